/**
 * Recording a create or update that failed after its first write. Pulumi's dynamic-provider host turns an error
 * carrying `id` into ErrorResourceInitFailed and records its properties as the resource's state
 * (docs/design/dynamic-host-contract.md §"Each call"); a plain error instead leaves what was written in no state,
 * and destroy never removes it. So a failed apply becomes a ResourceInitError with the outputs of what exists, read
 * back from the cluster, plus a drift line saying the operation did not finish: diff then reports a change and the
 * next `pulumi up` resumes it. Read keeps that line (unfinishedLines) until an up completes; only a successful
 * apply clears it.
 */
import { ResourceInitError, errorMessage } from './errors';

/** The words that mark the drift line of an unfinished create/update. */
export const UNFINISHED = 'did not finish';

export type WriteOperation = 'create' | 'update';

/** The drift line saying the last `op` of `object` ("Kind namespace/name") failed part-way with `err`. */
export function unfinishedLine(op: WriteOperation, object: string, err: unknown): string {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  const why = typeof code === 'string' ? code : err instanceof Error ? err.name : 'error';
  return `the last ${op} of ${object} ${UNFINISHED} (${why}); the next \`pulumi up\` resumes it`;
}

/** The unfinished lines of a recorded drift list, for read to carry over. */
export function unfinishedLines(drift: readonly string[] | undefined): string[] {
  return (drift ?? []).filter((line) => line.includes(UNFINISHED));
}

/** How recordPartial finds what exists. */
export interface PartialRecord<Outputs> {
  /** The resource's id, as create returns it. */
  id: string;
  op: WriteOperation;
  /** The object the operation writes, "Kind namespace/name", as the drift line names it. */
  object: string;
  /** The outputs of what exists, with `drift` as their drift list; undefined when nothing of ours exists. */
  observe: (drift: string[]) => Promise<Outputs | undefined>;
}

/**
 * Runs `apply`; when it fails, throws a ResourceInitError carrying the outputs `observe` reads back. The
 * original error is thrown as it was when nothing of ours exists (nothing to record: a create that wrote
 * nothing, or an update whose object is gone, whose recorded state the engine keeps) or when reading fails.
 */
export async function recordPartial<Outputs extends object>(apply: () => Promise<Outputs>, record: PartialRecord<Outputs>): Promise<Outputs> {
  try {
    return await apply();
  } catch (err) {
    let outputs: Outputs | undefined;
    try {
      outputs = await record.observe([unfinishedLine(record.op, record.object, err)]);
    } catch {
      throw err;
    }
    if (outputs === undefined) throw err;
    throw new ResourceInitError(record.id, outputs as Record<string, unknown>, [errorMessage(err)], err);
  }
}
