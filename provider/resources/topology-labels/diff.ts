/**
 * Pure input-level diff: recorded outputs vs new inputs. `name` replaces (delete first, so the old name
 * restores the hosts before the new one claims them); everything else updates in place. Drift found by read,
 * and guest nodes out of sync while waitForGuestSync is on, are changes too, so `pulumi up` converges.
 * Reasons never quote secret values.
 */
import { deepEqual } from '../../client/object-utils';
import { describeValue } from '../../core/input-errors';
import { containsUnknown } from '../../core/unknowns';
import { REPLACE_INPUTS, SECRET_INPUTS, topologyLabelsSchema, type TopologyLabelsOutputs } from './model';

/** Result of diffInputs. */
export interface InputDiff {
  changes: boolean;
  replaces: string[];
  reasons: string[];
}

const DEFAULTS: Record<string, unknown> = { guestNamespace: 'default', waitForGuestSync: false, guestSyncTimeout: '10m' };

/** diffInputs compares recorded outputs with new inputs. */
export function diffInputs(olds: Partial<TopologyLabelsOutputs>, news: Record<string, unknown>): InputDiff {
  const reasons: string[] = [];
  const replaces: string[] = [];
  for (const key of Object.keys(topologyLabelsSchema.shape)) {
    const next = news[key] ?? DEFAULTS[key];
    const prev = (olds as Record<string, unknown>)[key] ?? DEFAULTS[key];
    let text: string;
    if (containsUnknown(next)) text = `${key} is not known until apply`;
    else if (deepEqual(prev, next)) continue;
    else text = SECRET_INPUTS.includes(key) ? `${key} changed (value not shown: it is secret)` : `${key}: ${describeValue(prev)} → ${describeValue(next)}`;
    reasons.push(text);
    if (REPLACE_INPUTS.includes(key) && olds.name !== undefined) replaces.push(key);
  }
  for (const d of olds.drift ?? []) reasons.push(`drift: ${d}`);
  if (olds.waitForGuestSync) for (const n of olds.guestNodes ?? []) if (!n.inSync) reasons.push(`guest node ${n.name} not in sync`);
  return { changes: reasons.length > 0, replaces, reasons };
}
