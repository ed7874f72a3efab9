/**
 * Pure input-level diff for the `diff` handler: recorded outputs vs new inputs. Every input change is an
 * update (even provider-only ones such as kubeconfig or timeouts, so state keeps what read/delete will
 * use), except `name`/`namespace`, which replace the pool. Unknown values (preview) count as changes.
 * An unhealthy recorded pool (a VM not ready, fewer VMs than count, drift found by read) is a change too,
 * so the next `pulumi up` converges after a partial failure. After an import, the inputs the cluster does not
 * record (outputs' importGaps) take the program's value. Reasons never quote secret values.
 */
import { secretDigest } from '../../core/hash';
import { describeValue } from '../../core/input-errors';
import { isUnknown } from '../../core/unknowns';
import { sameInput } from './equivalence';
import { REPLACE_INPUTS, SECRET_INPUTS, machinePoolSchema } from './model';
import type { MachinePoolOutputs } from './outputs';

/** The secret inputs recorded only as keyed digests, with the output holding each digest. */
const HASHED: Record<string, 'userDataHash' | 'networkDataHash' | 'guestCredentialsHash' | 'initUserDataHash'> = {
  userData: 'userDataHash',
  networkData: 'networkDataHash',
  guestCredentials: 'guestCredentialsHash',
  initUserData: 'initUserDataHash',
};

/**
 * Inputs that are never a change: guestKubeconfig (credentials of the guest cluster, used while rolling); and
 * initUserData once its VM is gone (or never was: only a pool's first VM is made from it).
 */
function ignored(key: string, olds: Partial<MachinePoolOutputs>): boolean {
  return key === 'guestKubeconfig' || (key === 'initUserData' && olds.initMachine === undefined && olds.machines !== undefined);
}

/** Result of diffInputs. */
export interface InputDiff {
  changes: boolean;
  /** Inputs whose change replaces the pool. */
  replaces: string[];
  /** One line per changed property (for logs and tests). */
  reasons: string[];
}

/** zonesCover: the program's zones hold every zone a VM sits in, and VMs are pinned exactly when zones are listed. */
function zonesCover(program: string[], seen: string[]): boolean {
  return program.length === 0 ? seen.length === 0 : seen.length > 0 && seen.every((z) => program.includes(z));
}

/** diffInputs compares recorded outputs with new inputs (defaults applied unless unknown). */
export function diffInputs(olds: Partial<MachinePoolOutputs>, news: Record<string, unknown>): InputDiff {
  const reasons: string[] = [];
  const replaces: string[] = [];
  // After an import: inputs the cluster could not tell take the program's value (zones: any list covering the VMs').
  const gaps = new Set(olds.importGaps ?? []);
  const ns = typeof news.namespace === 'string' && !isUnknown(news.namespace) ? news.namespace : (olds.namespace ?? 'default');
  for (const key of Object.keys(machinePoolSchema.shape)) {
    const next = news[key];
    let changed: boolean;
    let text: string;
    if (ignored(key, olds)) {
      continue;
    } else if (isUnknown(next)) {
      changed = true;
      text = `${key} is not known until apply`;
    } else if (key === 'zones' && gaps.has(key)) {
      changed = !zonesCover((next as string[] | undefined) ?? [], olds.zones ?? []);
      text = `zones: VMs sit in ${describeValue((olds.zones ?? []).join(', ') || 'no zone')}, not covered by ${describeValue(((next as string[] | undefined) ?? []).join(', '))}`;
    } else if (gaps.has(key)) {
      continue;
    } else if (key in HASHED) {
      const recorded = olds[HASHED[key]];
      changed = secretDigest(next as string | undefined, `${ns}/${olds.name ?? news.name}`) !== recorded;
      text = `${key} changed (value not shown: it is secret)`;
    } else {
      changed = !sameInput(key, (olds as Record<string, unknown>)[key], next, ns);
      text = SECRET_INPUTS.includes(key)
        ? `${key} changed (value not shown: it is secret)`
        : `${key}: ${describeValue((olds as Record<string, unknown>)[key])} → ${describeValue(next)}`;
    }
    if (!changed) continue;
    reasons.push(text);
    if (REPLACE_INPUTS.includes(key)) replaces.push(key);
  }
  const machines = olds.machines ?? [];
  const notReady = machines.filter((m) => !m.ready).map((m) => m.name);
  if (notReady.length) reasons.push(`not ready on record: ${notReady.join(', ')}`);
  if (olds.count !== undefined && machines.length !== olds.count && olds.machines !== undefined) {
    reasons.push(`${machines.length} of ${olds.count} VMs on record`);
  }
  for (const d of olds.drift ?? []) reasons.push(`drift: ${d}`);
  return { changes: reasons.length > 0, replaces, reasons };
}
