/**
 * check's pure rules for GuestClusterReady: the model, at least one node, each named once.
 */
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { SECRET_INPUTS, guestClusterReadySchema } from './model';

export function crossFieldFailures(user: Record<string, unknown>): CheckFailure[] {
  const out: CheckFailure[] = [];
  const nodes = user.nodes;
  if (!Array.isArray(nodes) || isUnknown(nodes)) return out;
  if (nodes.length === 0) out.push({ property: 'nodes', reason: 'is empty: list the VMs of the cluster\'s pools, e.g. [{ name: "prod-1-server-0", role: "server" }]' });
  const seen = new Set<string>();
  nodes.forEach((n, i) => {
    const name = (n as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || isUnknown(name)) return;
    if (seen.has(name)) out.push({ property: `nodes[${i}].name`, reason: `${name} is listed twice: list each VM once` });
    seen.add(name);
  });
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(guestClusterReadySchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}
