/**
 * Apply: the only code that writes hosts. Each host gets one JSON merge patch of our two keys and our two
 * annotations, sent with the resourceVersion it was planned from (a precondition). On 409 the host is read
 * again: if the keys and annotations we planned from are unchanged (the concurrent edit touched something
 * else), the plan is recomputed and sent at the new version; if they changed, we stop with ConcurrentEdit
 * rather than overwrite that edit.
 */
import { ConflictError } from '../../client/errors';
import type { HarvesterClient } from '../../client/harvester-client';
import { concurrentEdit, hostGone, notOwnedHost } from './errors';
import type { HostTopology } from './model';
import { getHost } from './observe';
import { ownerOfHost, planHost, sameManagedState, type HostPlan, type Recorded } from './plan';

const MAX_CONFLICTS = 5;

/** What applyHost should do. */
export interface HostStep {
  host: string;
  /** Undefined: release the host (restore what it had). */
  desired?: HostTopology;
  recorded: Recorded;
}

/**
 * applyHost brings one host to `step.desired` (or releases it) for resource `owner`. On release, a host that
 * is gone or owned by someone else is left alone (`skipped` says why); when claiming, both are errors.
 */
export async function applyHost(client: HarvesterClient, owner: string, step: HostStep): Promise<HostPlan & { skipped?: string }> {
  const releasing = step.desired === undefined;
  let live = await getHost(client, step.host);
  for (let attempt = 1; ; attempt++) {
    if (!live) {
      if (releasing) return { host: step.host, previous: {}, applied: {}, changes: [], skipped: 'host no longer exists' };
      throw hostGone(step.host);
    }
    const other = ownerOfHost(live);
    if (other !== undefined && other !== owner) {
      if (releasing) return { host: step.host, previous: {}, applied: {}, changes: [], skipped: `now managed by TopologyLabels "${other}"` };
      throw notOwnedHost(step.host, other, owner);
    }
    const plan = planHost(owner, live, step.desired, step.recorded);
    if (!plan.patch) return plan;
    try {
      await client.nodes.mergePatch(step.host, plan.patch as unknown as Record<string, unknown>, { resourceVersion: live.resourceVersion });
      return plan;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= MAX_CONFLICTS) throw err;
      const again = await getHost(client, step.host);
      if (again && !sameManagedState(live, again)) throw concurrentEdit(step.host, live, again);
      live = again;
    }
  }
}
