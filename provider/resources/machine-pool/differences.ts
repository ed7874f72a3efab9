/**
 * The planner's judgement of one live VM against the VM it would build for the same index, zone and claims: both are
 * read back (read-back.ts) and their inputs compared as refresh compares a VM with the record (input-differences.ts),
 * so the planner and refresh always agree about which inputs differ. User labels and annotations are patched in
 * place, from the same read-back; any other input rolls the VM. What read-back leaves unread (fields we write that no
 * input reads back) is compared too, pruned to the shape we send so Harvester's additions never count, and a
 * difference there rolls the VM: an out-of-band edit of such a field is healed.
 */
import type { VirtualMachine } from '../../client/objects';
import { describeValue } from '../../core/input-errors';
import { diffPaths, pruneLive } from '../../core/prune';
import { type MachineInput, builtReference, describeDifference, differingInputs } from './input-differences';
import { readMachine } from './read-back';

/** One way a live VM differs from the VM we would build. */
export interface MachineDifference {
  /** The input it reads back differently; unset for a field no input reads back (see `field`). */
  input?: MachineInput;
  /** For a field no input reads back: its path in the VM (as read-back views it). */
  field?: string;
  /** Human text naming the input or field, live vs wanted, never a secret value. */
  detail: string;
  /** True when a metadata patch fixes it without restarting the VM. */
  inPlace: boolean;
}

/** Metadata a patch step writes (user labels/annotations on the VM and its template); null removes a key. */
export interface MetadataPatch {
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  templateLabels: Record<string, string | null>;
}

/** The judgement of one VM. */
export interface MachineJudgement {
  /** Empty: up to date. */
  differences: MachineDifference[];
  /** The patch making its user labels and annotations the wanted ones (empty maps when they are). */
  patch: MetadataPatch;
}

/** The inputs a metadata patch applies without restarting the VM. */
const IN_PLACE: ReadonlySet<MachineInput> = new Set(['labels', 'annotations']);

/** The keys to set (or remove, null) so that `live` becomes `wanted`. */
function mapPatch(live: Record<string, string>, wanted: Record<string, string>): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const key of new Set([...Object.keys(live), ...Object.keys(wanted)])) if (live[key] !== wanted[key]) patch[key] = wanted[key] ?? null;
  return patch;
}

/** judgeMachine compares a live VM with the desired one in pool namespace `ns`. */
export function judgeMachine(live: VirtualMachine, desired: VirtualMachine, ns: string): MachineJudgement {
  const seen = readMachine(live);
  const built = readMachine(desired);
  const differences: MachineDifference[] = differingInputs(seen.inputs, builtReference(built.inputs), ns)
    .map((d) => ({ input: d.input, detail: describeDifference(d, 'inputs'), inPlace: IN_PLACE.has(d.input) }));
  const wanted = built.unread();
  for (const d of diffPaths(wanted, pruneLive(seen.unread(), wanted))) {
    const leaf = typeof d.desired !== 'object' && typeof d.live !== 'object';
    const detail = leaf ? `${d.path} is ${describeValue(d.live)}, the pool writes ${describeValue(d.desired)}` : `${d.path} differs from what the pool writes`;
    differences.push({ field: d.path, detail: `${detail} (no input reads it back)`, inPlace: false });
  }
  const patch: MetadataPatch = {
    labels: mapPatch(seen.inputs.labels, built.inputs.labels),
    annotations: mapPatch(seen.inputs.annotations, built.inputs.annotations),
    templateLabels: mapPatch(seen.inputs.templateLabels, built.inputs.templateLabels),
  };
  return { differences, patch };
}
