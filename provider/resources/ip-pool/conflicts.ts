/**
 * What the IPPool webhook refuses because of the other pools, found at preview (load-balancer-harvester
 * validator.go checkRange and checkSelector; docs/design/harvester-load-balancer.md).
 */
import type { IPPool } from '../../client/objects';
import type { CheckFailure } from '../../core/types';
import type { IPPoolInputs } from './model';
import { formatInterval, overlaps } from './ranges';
import { isGlobalScope, rangesOf, scopeClash } from './validate';
import { failure as fail } from '../../core/input-errors';


/**
 * What the IPPool webhook would refuse because of the other pools, found at preview (validator.go checkRange and
 * checkSelector): ranges overlapping theirs; a global pool when one exists (nothing else is compared then);
 * otherwise, against every pool but the global one, a non-zero priority already taken, or, both at priority 0, a
 * scope tuple theirs matches on the same network ("scope selector is same as the pool …").
 */
export function conflictsWithOthers(inputs: IPPoolInputs, others: IPPool[]): CheckFailure[] {
  const out: CheckFailure[] = [];
  const mine = rangesOf(inputs.ranges);
  const { priority, scope } = inputs.selector;
  for (const other of others) {
    const name = other.metadata.name;
    const theirs = rangesOf(other.spec?.ranges).filter((r) => r !== undefined);
    mine.forEach((m, i) => {
      const clash = m && theirs.find((t) => overlaps(m, t));
      if (clash) out.push(fail(`ranges[${i}]`, `${formatInterval(m)} overlaps IPPool ${name} (${formatInterval(clash)}): pick addresses no other pool holds`));
    });
    const selector = other.spec?.selector;
    const otherGlobal = isGlobalScope(selector?.scope, '');
    if (isGlobalScope(scope)) {
      if (otherGlobal) out.push(fail('selector.scope', `makes this the global pool, but IPPool ${name} already is (only one may exist): narrow the scope`));
      continue;
    }
    if (otherGlobal) continue;
    const theirPriority = selector?.priority ?? 0;
    if (priority !== 0 && theirPriority === priority) {
      out.push(fail('selector.priority', `${priority} is already the priority of IPPool ${name} (non-zero priorities are unique): choose another`));
    } else if (priority === 0 && theirPriority === 0) {
      const i = scopeClash(inputs.selector, selector);
      const t = scope[i];
      if (t) {
        out.push(fail(`selector.scope[${i}]`, `{project ${t.project}, namespace ${t.namespace}, guestCluster ${t.guestCluster}} is also in the scope of IPPool ${name}, and both pools have priority 0 on ${inputs.selector.network ? `network ${inputs.selector.network}` : 'no network'} (the webhook refuses two pools a load balancer would match alike): set a non-zero selector.priority, unique among pools, or a scope IPPool ${name} does not cover`));
      }
    }
  }
  return out;
}
