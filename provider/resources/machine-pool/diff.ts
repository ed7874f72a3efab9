/**
 * Pure input-level diff for the `diff` handler: recorded outputs vs new inputs. Every input change is an
 * update (even provider-only ones such as kubeconfig or timeouts, so state keeps what read/delete will
 * use), except `name`/`namespace`, which replace the pool. Unknown values (preview) count as changes.
 * An unhealthy recorded pool (a VM not ready, fewer VMs than count, drift found by read) is a change too,
 * so the next `pulumi up` converges after a partial failure. Reasons never quote secret values.
 */
import { secretDigest } from '../../core/hash';
import { describeValue } from '../../core/input-errors';
import { isUnknown } from '../../core/unknowns';
import { sameInput } from './equivalence';
import { REPLACE_INPUTS, SECRET_INPUTS, machinePoolSchema } from './model';
import type { MachinePoolOutputs } from './outputs';

/** Result of diffInputs. */
export interface InputDiff {
  changes: boolean;
  /** Inputs whose change replaces the pool. */
  replaces: string[];
  /** One line per changed property (for logs and tests). */
  reasons: string[];
}

/** diffInputs compares recorded outputs with new inputs (defaults applied unless unknown). */
export function diffInputs(olds: Partial<MachinePoolOutputs>, news: Record<string, unknown>): InputDiff {
  const reasons: string[] = [];
  const replaces: string[] = [];
  const ns = typeof news.namespace === 'string' && !isUnknown(news.namespace) ? news.namespace : (olds.namespace ?? 'default');
  for (const key of Object.keys(machinePoolSchema.shape)) {
    const next = news[key];
    let changed: boolean;
    let text: string;
    if (isUnknown(next)) {
      changed = true;
      text = `${key} is not known until apply`;
    } else if (key === 'userData' || key === 'networkData') {
      const recorded = key === 'userData' ? olds.userDataHash : olds.networkDataHash;
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
