/**
 * The writes and waits of HarvesterLoadBalancer, for its two shapes:
 * - `vm`: the LoadBalancer with ownership labels, or on ours a merge patch of the spec (lists replaced wholesale,
 *   removed optionals and selector keys nulled) and our network annotation; then a watch until an address is
 *   allocated and it is Ready; a timeout says which of "no pool matches", "pool exhausted", "DHCP gave nothing"
 *   or "no backend runs" held it back.
 * - `cluster`: the guest Service (type LoadBalancer) the guest's Harvester cloud provider turns into a Harvester
 *   LoadBalancer; a watch until it has an address, then that LoadBalancer read back (guest-service.ts).
 */
import { waitFor } from '../../await';
import type { HarvesterClient } from '../../client/harvester-client';
import type { LoadBalancer, Service } from '../../client/objects';
import type { WriteOperation } from '../../core/partial';
import type { ResourceContext } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import { SERVICE_ANNOTATIONS, desiredService, waitForServiceAddress } from './guest-service';
import type { LoadBalancerInputs } from './model';
import { NETWORK_ANNOTATION, desiredLoadBalancer, desiredSpec, lbOwner, readyOf } from './plan';

/** Why a load balancer is not Ready yet, in the user's terms (the controller's message kept). */
export function explainNotReady(lb: LoadBalancer | undefined, inputs: LoadBalancerInputs): string {
  const { message } = readyOf(lb);
  if (/no matched IPPool/i.test(message)) {
    return `no IP pool matches it (tried: ${inputs.ipPool ? `pool ${inputs.ipPool}` : `network ${inputs.network ?? '(none)'}, namespace ${inputs.namespace}, then the global pool`}): create a HarvesterIPPool whose selector matches, or set ipPool (${message})`;
  }
  if (/no available IP|no IP addresses available/i.test(message)) return `the IP pool is exhausted: widen its ranges or free an address (${message})`;
  if (inputs.ipam === 'dhcp' && !lb?.status?.address) return `DHCP gave no address yet: check the DHCP server of the VM network${inputs.network ? ` ${inputs.network}` : ''} (${message})`;
  if (/backend/i.test(message)) return `${message}: no running VM matches backendServerSelector ${JSON.stringify(inputs.backendServerSelector)} in namespace ${inputs.namespace}`;
  return message;
}

/** A merge patch of the spec (lists replaced wholesale, removed optionals nulled) and our network annotation. */
function specPatch(inputs: LoadBalancerInputs, live: LoadBalancer): Record<string, unknown> {
  const desired = desiredSpec(inputs);
  // A merge patch merges maps: selector keys that left the inputs must be nulled to go.
  const selector: Record<string, string[] | null> = { ...desired.backendServerSelector };
  for (const key of Object.keys(live.spec?.backendServerSelector ?? {})) if (!(key in selector)) selector[key] = null;
  const spec = { ...desired, backendServerSelector: selector, description: inputs.description ?? null, ipPool: inputs.ipPool ?? null, healthCheck: inputs.healthCheck ?? null };
  return { metadata: { annotations: { [NETWORK_ANNOTATION]: inputs.network ?? null } }, spec };
}

/** `vm`: brings the LoadBalancer to the inputs (creating it, or patching ours) and waits until it serves. */
export async function convergeLoadBalancer(ctx: ResourceContext, inputs: LoadBalancerInputs, live: LoadBalancer | undefined, op: WriteOperation): Promise<LoadBalancer> {
  const api = ctx.client.loadBalancers;
  if (live) await api.mergePatch(inputs.name, specPatch(inputs, live), { namespace: inputs.namespace, owner: lbOwner(inputs.name) });
  else await api.create(desiredLoadBalancer(inputs));
  const [lb] = await waitFor<LoadBalancer>({
    resource: api,
    namespace: inputs.namespace,
    name: inputs.name,
    timeoutMs: timeoutMs(inputs.timeouts, op),
    what: `LoadBalancer ${inputs.namespace}/${inputs.name} to get an address and be Ready`,
    timeoutOption: `timeouts.${op}`,
    onProgress: ctx.progress,
    check: ([current]) => {
      const { ready } = readyOf(current);
      const address = current?.status?.address ?? '';
      const poolMatches = inputs.ipam === 'dhcp' || !inputs.ipPool || current?.status?.allocatedAddress?.ipPool === inputs.ipPool;
      if (ready && address && poolMatches) return { done: true, description: `LoadBalancer ${inputs.namespace}/${inputs.name} serves on ${address}` };
      if (inputs.waitForBackends === false && address && poolMatches) return { done: true, description: `LoadBalancer ${inputs.namespace}/${inputs.name} has its address ${address} (its backends come later)` };
      const why = explainNotReady(current, inputs);
      return { done: false, description: `LoadBalancer ${inputs.namespace}/${inputs.name}: ${why}`, pending: [why] };
    },
  });
  return lb;
}

/** `cluster`: brings the guest Service to the inputs (a merge patch of our annotations, ports and selector on ours). */
export async function convergeService(
  ctx: ResourceContext, guest: HarvesterClient, inputs: LoadBalancerInputs, live: Service | undefined, op: WriteOperation,
): Promise<{ svc: Service; lb: LoadBalancer | undefined }> {
  const desired = desiredService(inputs);
  if (live) {
    const annotations: Record<string, string | null> = { ...desired.metadata.annotations };
    for (const key of Object.values(SERVICE_ANNOTATIONS)) if (!(key in annotations) && live.metadata.annotations?.[key] !== undefined) annotations[key] = null;
    const selector: Record<string, string | null> = { ...(desired.spec?.selector ?? {}) };
    for (const key of Object.keys(live.spec?.selector ?? {})) if (!(key in selector)) selector[key] = null;
    await guest.services.mergePatch(inputs.name, { metadata: { annotations }, spec: { ports: desired.spec!.ports, selector } }, { namespace: inputs.namespace, owner: lbOwner(inputs.name) });
  } else {
    await guest.services.create(desired);
  }
  return waitForServiceAddress(guest, ctx.client, inputs, op, ctx.progress);
}
