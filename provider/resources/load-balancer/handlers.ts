/**
 * HarvesterLoadBalancer's provider handlers (dynamic.ResourceProvider shape):
 * model (model.ts) → pure rules and plan (validate.ts, plan.ts) → the API calls here.
 *
 * - check: every input rule at once; then against the cluster: the namespace, the named ipPool and network
 *   exist, some IP pool would serve a load balancer that names none (pool-choice.ts; at preview too, with what is
 *   known), and a load balancer of that name we do not own is reported with the ways out. Nothing is written.
 * - diff: ipam (Harvester refuses changing it in place), name and namespace replace, deleting the old one first
 *   (the name is fixed, and the old address must be released).
 * - create/update: the object with ownership labels (update: a merge patch of spec and our annotation), then a
 *   watch until an address is allocated and the load balancer is Ready; a timeout says which of "no pool
 *   matches", "pool exhausted", "DHCP gave nothing" or "no backend runs" held it back. A failure after the first
 *   write is recorded with what exists (core/partial.ts: the LoadBalancer, or for "cluster" the guest Service).
 * - read: one GET; the live spec as inputs, so an out-of-band edit shows per property after a refresh; the
 *   line of an unfinished create/update is kept until an up completes it.
 * - delete: deletes it and waits until it is gone (Harvester's finalizer releases the address first).
 */
import { waitFor, waitForDeletion } from '../../await';
import { progressFor, type ProgressSink } from '../../core/progress';
import { HarvesterClient } from '../../client/harvester-client';
import type { LoadBalancer } from '../../client/objects';
import { assertOwned, isOwnedBy, notOwnedError } from '../../client/ownership';
import { connectionFor } from '../../core/connection';
import { parseDuration } from '../../core/duration';
import { checkInputs, deleteBeforeReplaceDiff, parseChecked, userInputs, type CheckContext } from '../../core/check-flow';
import { errorMessage } from '../../core/errors';
import { withoutUnrecorded } from '../../core/imported';
import { recordPartial, unfinishedLines, type WriteOperation } from '../../core/partial';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { OUTPUT_ONLY, loadBalancerSchema, type LoadBalancerInputs, type LoadBalancerOutputs } from './model';
import { NETWORK_ANNOTATION, desiredLoadBalancer, desiredSpec, diffInputs, driftOf, lbOwner, liveInputs, readyOf, toOutputs } from './plan';
import { validateInputs } from './validate';
import { chosenPool } from './pool-choice';
import { isHarvesterError } from '../../client/errors';
import { containsUnknown, isUnknown } from '../../core/unknowns';
import { declaredInProgram } from '../../core/program-refs';
import { SERVICE_ANNOTATIONS, deleteService, desiredService, guestVersion, harvesterSide, healthCheckRefusal, serviceInputs, serviceOutputs, waitForServiceAddress } from './guest-service';
import type { Service } from '../../client/objects';
import { driftValue, stableStringify } from '../../core/hash';

type Raw = Record<string, unknown>;

export interface LoadBalancerProviderOptions {
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Progress lines of the waits and the load balancer they are about. @default dropped */
  onProgress?: ProgressSink;
}

const fail = (property: string, reason: string): CheckFailure => ({ property, reason: `${property}: ${reason}` });

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

export function createLoadBalancerProvider(options: LoadBalancerProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clientFor = (props: Partial<LoadBalancerInputs>) => connect({ kubeconfig: props.kubeconfig, context: props.context });
  // The guest's credentials are this resource's own (secret) inputs: one per guest cluster, not stack config.
  const guestFor = (props: Partial<LoadBalancerInputs>) => connect({ kubeconfig: props.guestKubeconfig, context: props.guestContext });

  async function guestFailures(inputs: LoadBalancerInputs): Promise<CheckFailure[]> {
    const out: CheckFailure[] = [];
    let guest: HarvesterClient;
    try {
      guest = await guestFor(inputs);
      const version = await guestVersion(guest, inputs);
      const refusal = inputs.healthCheck ? healthCheckRefusal(version) : undefined;
      if (refusal) out.push(fail('healthCheck', refusal));
    } catch (err) {
      return [{ property: '', reason: `cannot check the inputs against the guest cluster (guestKubeconfig): ${errorMessage(err)}` }];
    }
    const same = await guest.services.get(inputs.name, inputs.namespace);
    if (same && !isOwnedBy(same, lbOwner(inputs.name))) {
      out.push(fail('name', `${notOwnedError(same, lbOwner(inputs.name), 'manage', 'Service').message} Or delete it in the guest cluster if nothing uses it.`));
    }
    return out;
  }

  /** Brings the guest Service to the inputs: a merge patch of our annotations (removed ones nulled), ports and selector. */
  async function patchService(guest: HarvesterClient, inputs: LoadBalancerInputs, live: Service): Promise<void> {
    const desired = desiredService(inputs);
    const annotations: Record<string, string | null> = { ...desired.metadata.annotations };
    for (const key of Object.values(SERVICE_ANNOTATIONS)) if (!(key in annotations) && live.metadata.annotations?.[key] !== undefined) annotations[key] = null;
    const selector: Record<string, string | null> = { ...(desired.spec?.selector ?? {}) };
    for (const key of Object.keys(live.spec?.selector ?? {})) if (!(key in selector)) selector[key] = null;
    await guest.services.mergePatch(inputs.name, { metadata: { annotations }, spec: { ports: desired.spec!.ports, selector } }, { namespace: inputs.namespace, owner: lbOwner(inputs.name) });
  }

  async function convergeService(inputs: LoadBalancerInputs, op: WriteOperation): Promise<LoadBalancerOutputs> {
    const [guest, harvester] = await Promise.all([guestFor(inputs), clientFor(inputs)]);
    const live = await guest.services.get(inputs.name, inputs.namespace);
    if (live) {
      assertOwned(live, lbOwner(inputs.name), op, 'Service');
      await patchService(guest, inputs, live);
    } else {
      await guest.services.create(desiredService(inputs));
    }
    const { svc, lb } = await waitForServiceAddress(guest, harvester, inputs, op, progressFor(options.onProgress, inputs));
    return serviceOutputs(inputs, svc, lb);
  }

  async function networkFailures(inputs: LoadBalancerInputs, client: HarvesterClient): Promise<CheckFailure[]> {
    if (!inputs.network) return [];
    const [ns, name] = inputs.network.split('/');
    return (await client.networks.get(name, ns)) ? [] : [fail('network', `VM network ${inputs.network} does not exist: name an existing NetworkAttachmentDefinition`)];
  }

  async function clusterFailures(inputs: LoadBalancerInputs, client: HarvesterClient, context: CheckContext): Promise<CheckFailure[]> {
    const out: CheckFailure[] = [...(await networkFailures(inputs, client))];
    if (!(await client.namespaces.get(inputs.namespace))) out.push(fail('namespace', `namespace ${inputs.namespace} does not exist: create it, or choose an existing one`));
    // A pool this program creates does not exist yet at preview; up checks again once it does.
    if (inputs.ipPool && !context.inProgram.has('ipPool') && !(await client.ipPools.get(inputs.ipPool))) out.push(fail('ipPool', `IPPool ${inputs.ipPool} does not exist: create it (a HarvesterIPPool), or leave ipPool out to let Harvester choose`));
    const same = await client.loadBalancers.get(inputs.name, inputs.namespace);
    if (same && !isOwnedBy(same, lbOwner(inputs.name))) {
      const err = notOwnedError(same, lbOwner(inputs.name), 'manage', 'LoadBalancer');
      out.push(fail('name', `${err.message} Or delete it (\`kubectl delete lb -n ${inputs.namespace} ${inputs.name}\`) if nothing uses it.`));
    }
    return out;
  }

  /**
   * A vm load balancer with ipam "pool" and no ipPool takes the pool Harvester chooses (pool-choice.ts); when no pool
   * on the cluster would serve it and the program declares none (the SDK names `ipPool` then, core/program-refs.ts),
   * up would only learn it when timeouts.create runs out ("no matched IPPool"): refused here instead. Inputs not
   * known yet (a preview) match anything; a user who may not list IP pools is left to up.
   */
  async function poolServingFailures(inputs: Record<string, unknown>, client: HarvesterClient, inProgram: ReadonlySet<string>): Promise<CheckFailure[]> {
    if (inputs.workloadType !== 'vm' || inputs.ipam !== 'pool' || inputs.ipPool !== undefined || inProgram.has('ipPool')) return [];
    const requirement = {
      network: isUnknown(inputs.network) ? undefined : ((inputs.network as string | undefined) ?? ''),
      namespace: isUnknown(inputs.namespace) ? undefined : (inputs.namespace as string),
    };
    let pools;
    try {
      pools = (await client.ipPools.list({})).items;
    } catch (err) {
      if (isHarvesterError(err, 'Forbidden')) return [];
      throw err;
    }
    if (chosenPool(pools, requirement)) return [];
    const network = requirement.network === undefined ? 'the network' : requirement.network ? `network ${requirement.network}` : 'no network';
    const namespace = requirement.namespace ?? 'its namespace';
    return [fail('ipPool', `no IP pool would serve this load balancer, so up would wait out timeouts.create for an address ("no matched IPPool"): with ipPool unset, Harvester takes the highest-priority pool whose selector names ${network} and whose scope covers namespace ${namespace}, else the global pool, and the cluster has neither. Create such a pool (a HarvesterIPPool in this program counts), set ipPool to an existing one, or use ipam "dhcp"`)];
  }

  /** check's cluster rules again at a preview whose inputs are not all known (checkInputs skips them): the pool rule needs only what is known. */
  async function previewPoolFailures(news: Raw, checked: CheckResult<Raw>): Promise<CheckResult<Raw>> {
    const inputs = userInputs(checked.inputs);
    if (checked.failures?.length || !containsUnknown(inputs) || isUnknown(inputs.kubeconfig) || isUnknown(inputs.context)) return checked;
    const defaulted = { ...inputs, workloadType: inputs.workloadType ?? 'vm', ipam: inputs.ipam ?? 'pool', namespace: inputs.namespace ?? 'default' };
    try {
      const failures = await poolServingFailures(defaulted, await clientFor(inputs as Partial<LoadBalancerInputs>), declaredInProgram(news));
      return failures.length ? { inputs: news, failures } : checked;
    } catch {
      return checked; // the cluster is not reachable: up checks again with every input known
    }
  }

  /** Brings the LoadBalancer to the inputs (creating it, or patching ours) and waits until it serves. */
  async function convergeLoadBalancer(inputs: LoadBalancerInputs, op: WriteOperation): Promise<LoadBalancerOutputs> {
    const client = await clientFor(inputs);
    const live = await client.loadBalancers.get(inputs.name, inputs.namespace);
    if (live) {
      // Ours (a retry after a create that failed part-way, or an update): bring it to the inputs.
      assertOwned(live, lbOwner(inputs.name), op, 'LoadBalancer');
      await patchToInputs(client, inputs, live);
    } else {
      await client.loadBalancers.create(desiredLoadBalancer(inputs));
    }
    return toOutputs(inputs, await waitReady(client, inputs, op));
  }

  /** The outputs of what exists of ours after a failed apply (undefined when nothing does). */
  async function observeWritten(inputs: LoadBalancerInputs, drift: string[]): Promise<LoadBalancerOutputs | undefined> {
    const owner = lbOwner(inputs.name);
    if (inputs.workloadType === 'cluster') {
      const svc = await (await guestFor(inputs)).services.get(inputs.name, inputs.namespace);
      return svc && isOwnedBy(svc, owner) ? serviceOutputs(inputs, svc, await harvesterSide(await clientFor(inputs), inputs, svc), drift) : undefined;
    }
    const live = await (await clientFor(inputs)).loadBalancers.get(inputs.name, inputs.namespace);
    return live && isOwnedBy(live, owner) ? toOutputs(inputs, live, drift) : undefined;
  }

  /** create/update: converge, a failure after the first write recorded with what exists. */
  function apply(id: string, inputs: LoadBalancerInputs, op: WriteOperation): Promise<LoadBalancerOutputs> {
    const cluster = inputs.workloadType === 'cluster';
    return recordPartial(() => (cluster ? convergeService(inputs, op) : convergeLoadBalancer(inputs, op)), {
      id,
      op,
      object: `${cluster ? 'guest Service' : 'LoadBalancer'} ${inputs.namespace}/${inputs.name}`,
      observe: (drift) => observeWritten(inputs, drift),
    });
  }

  async function waitReady(client: HarvesterClient, inputs: LoadBalancerInputs, op: WriteOperation): Promise<LoadBalancer> {
    const [lb] = await waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: inputs.namespace,
      name: inputs.name,
      timeoutMs: parseDuration(inputs.timeouts[op]) ?? 300_000,
      what: `LoadBalancer ${inputs.namespace}/${inputs.name} to get an address and be Ready`,
      timeoutOption: `timeouts.${op}`,
      onProgress: progressFor(options.onProgress, inputs),
      check: ([current]) => {
        const { ready } = readyOf(current);
        const address = current?.status?.address ?? '';
        const poolMatches = inputs.ipam === 'dhcp' || !inputs.ipPool || current?.status?.allocatedAddress?.ipPool === inputs.ipPool;
        if (ready && address && poolMatches) return { done: true, description: `LoadBalancer ${inputs.namespace}/${inputs.name} serves on ${address}` };
        const why = explainNotReady(current, inputs);
        return { done: false, description: `LoadBalancer ${inputs.namespace}/${inputs.name}: ${why}`, pending: [why] };
      },
    });
    return lb;
  }

  /** read of a guest Service: the Service's managed fields as inputs, the Harvester side read back. */
  async function readService(id: string, recorded: LoadBalancerOutputs): Promise<ReadResult<LoadBalancerOutputs>> {
    const guest = await guestFor(recorded);
    const svc = await guest.services.get(recorded.name, recorded.namespace);
    if (!svc) return {};
    const live = serviceInputs(svc);
    const recordedInputs = recordedInputsOf(recorded);
    const base = loadBalancerSchema.parse({ ...recordedInputs, description: undefined, network: undefined, podSelector: undefined, healthCheck: undefined, ...live });
    const drift = (Object.keys(live) as (keyof typeof live)[])
      .concat((['network', 'description', 'podSelector', 'healthCheck'] as const).filter((k) => !(k in live) && recorded[k] !== undefined))
      .filter((k) => stableStringify(live[k]) !== stableStringify(recorded[k]))
      .map((k) => `Service ${recorded.namespace}/${recorded.name} (guest): ${k} is ${driftValue(live[k])}, this resource set ${driftValue(recorded[k])}`)
      .concat(unfinishedLines(recorded.drift));
    const outs = serviceOutputs(base, svc, await harvesterSide(await clientFor(recorded), base, svc), drift);
    const inputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !OUTPUT_ONLY.includes(k) && v !== undefined));
    return { id, props: outs, inputs };
  }

  return {
    check: async (olds: Raw, news: Raw): Promise<CheckResult<Raw>> => {
      const checked = await checkInputs(olds, news, validateInputs, async (inputs, context) => {
        const client = await clientFor(inputs);
        if (inputs.workloadType === 'cluster') return [...(await guestFailures(inputs)), ...(await networkFailures(inputs, client))];
        return [...(await clusterFailures(inputs, client, context)), ...(await poolServingFailures(inputs, client, context.inProgram))];
      });
      return previewPoolFailures(news, checked);
    },

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<LoadBalancerOutputs>, userInputs(news) as Partial<LoadBalancerInputs>);
      return deleteBeforeReplaceDiff(d);
    },

    async create(raw: Raw): Promise<CreateResult<LoadBalancerOutputs>> {
      const inputs = parseChecked('HarvesterLoadBalancer', raw, validateInputs);
      const id = `${inputs.namespace}/${inputs.name}`;
      return { id, outs: await apply(id, inputs, 'create') };
    },

    async read(id: string, props?: Raw): Promise<ReadResult<LoadBalancerOutputs>> {
      const recorded = (props ?? {}) as Partial<LoadBalancerOutputs>;
      const [ns, name] = id.includes('/') ? id.split('/', 2) : [recorded.namespace ?? 'default', id];
      if (recorded.workloadType === 'cluster') return readService(id, recorded as LoadBalancerOutputs);
      const client = await clientFor(recorded);
      const live = await client.loadBalancers.get(recorded.name ?? name, recorded.namespace ?? ns);
      if (!live) return {};
      const [lbNamespace, lbName] = [recorded.namespace ?? ns, recorded.name ?? name];
      const importing = recorded.listeners === undefined;
      const base = loadBalancerSchema.parse({
        name: lbName,
        namespace: lbNamespace,
        ...liveInputs(live),
        timeouts: recorded.timeouts,
        kubeconfig: recorded.kubeconfig,
        context: recorded.context,
      });
      const drift = importing ? [] : [...driftOf(recorded as LoadBalancerInputs, live), ...unfinishedLines(recorded.drift)];
      const read = toOutputs(base, live, drift);
      const outs = importing ? withoutUnrecorded(read) : read;
      const inputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !OUTPUT_ONLY.includes(k) && v !== undefined));
      return { id: `${lbNamespace}/${lbName}`, props: outs, inputs };
    },

    async update(id: string, _olds: Raw, news: Raw): Promise<UpdateResult<LoadBalancerOutputs>> {
      const inputs = parseChecked('HarvesterLoadBalancer', news, validateInputs);
      return { outs: await apply(id, inputs, 'update') };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = props as Partial<LoadBalancerOutputs>;
      const [ns, name] = id.includes('/') ? id.split('/', 2) : [recorded.namespace ?? 'default', id];
      if (recorded.workloadType === 'cluster') {
        const inputs = loadBalancerSchema.parse(recordedInputsOf(recorded));
        const guest = await guestFor(inputs);
        const svc = await guest.services.get(inputs.name, inputs.namespace);
        if (svc && isOwnedBy(svc, lbOwner(inputs.name))) await deleteService(guest, await clientFor(inputs), inputs, svc, progressFor(options.onProgress, inputs));
        return;
      }
      const client = await clientFor(recorded);
      const live = await client.loadBalancers.get(recorded.name ?? name, recorded.namespace ?? ns);
      const [lbNamespace, lbName] = [recorded.namespace ?? ns, recorded.name ?? name];
      if (!live || !isOwnedBy(live, lbOwner(lbName))) return; // never delete what we do not own
      await client.loadBalancers.delete(lbName, { namespace: lbNamespace, owner: lbOwner(lbName) });
      await waitForDeletion<LoadBalancer>({
        resource: client.loadBalancers,
        namespace: lbNamespace,
        name: lbName,
        timeoutMs: parseDuration(recorded.timeouts?.delete ?? '5m') ?? 300_000,
        timeoutOption: 'timeouts.delete',
        what: `LoadBalancer ${lbNamespace}/${lbName} to be deleted and its address released`,
        onProgress: progressFor(options.onProgress, { namespace: lbNamespace, name: lbName }),
      });
    },
  };
}

/** The inputs recorded in a state (outputs left out; host-safe already dropped the host's `__provider`). */
function recordedInputsOf(recorded: Partial<LoadBalancerOutputs>): Raw {
  return Object.fromEntries(Object.entries(recorded).filter(([k]) => !OUTPUT_ONLY.includes(k)));
}

/** A merge patch of the spec (lists replaced wholesale, removed optionals nulled) and our network annotation. */
async function patchToInputs(client: HarvesterClient, inputs: LoadBalancerInputs, live: LoadBalancer): Promise<void> {
  const desired = desiredSpec(inputs);
  // A merge patch merges maps: selector keys that left the inputs must be nulled to go.
  const selector: Record<string, string[] | null> = { ...desired.backendServerSelector };
  for (const key of Object.keys(live.spec?.backendServerSelector ?? {})) if (!(key in selector)) selector[key] = null;
  const spec = { ...desired, backendServerSelector: selector, description: inputs.description ?? null, ipPool: inputs.ipPool ?? null, healthCheck: inputs.healthCheck ?? null };
  await client.loadBalancers.mergePatch(
    inputs.name,
    { metadata: { annotations: { [NETWORK_ANNOTATION]: inputs.network ?? null } }, spec },
    { namespace: inputs.namespace, owner: lbOwner(inputs.name) },
  );
}

export type LoadBalancerProvider = ReturnType<typeof createLoadBalancerProvider>;
