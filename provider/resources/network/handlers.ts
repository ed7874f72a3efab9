/**
 * HarvesterNetwork's provider handlers (dynamic.ResourceProvider shape):
 * model (model.ts) → pure rules and plan (validate.ts, plan.ts) → the API calls here.
 *
 * - check: every input rule at once (validate.ts), then against the cluster what Harvester would refuse at
 *   apply (research harvester-supporting-kinds.md §3.2): a cluster network that does not exist (N16) or that no
 *   host is attached to (no VlanConfig of it matches a host: no VM could run on the network), a VLAN reserved by
 *   the storage network (N2), a VLAN change while VMs run on the network (N22), and a network of that name we do
 *   not own. Nothing is written.
 * - create/update: the NAD as the Harvester UI writes it with our ownership labels, or a merge patch of what
 *   differs on ours; then a watch until Harvester's network controller has labelled it and, for an auto route
 *   on a VLAN, learnt the route. A failure after the first write is recorded with the network as it is.
 * - read: one GET; the live network as inputs, so a kubectl edit shows per property after a refresh.
 * - delete: refused, naming them, while VMs use the network (Harvester's rules N22/N23); then waits until gone.
 */
import { waitFor, waitForDeletion } from '../../await';
import { HarvesterClient } from '../../client/harvester-client';
import type { NetworkAttachmentDefinition, VlanConfig } from '../../client/objects';
import { assertOwned, isOwnedBy, notOwnedError } from '../../client/ownership';
import { checkInputs, deleteBeforeReplaceDiff, parseChecked, userInputs } from '../../core/check-flow';
import { connectionFor } from '../../core/connection';
import { parseDuration } from '../../core/duration';
import { ProviderError } from '../../core/errors';
import { withoutUnrecorded } from '../../core/imported';
import { recordPartial, unfinishedLines, type WriteOperation } from '../../core/partial';
import { progressFor, type ProgressSink } from '../../core/progress';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { networkSchema, OUTPUT_ONLY, type NetworkInputs, type NetworkOutputs } from './model';
import { desiredNetwork, diffInputs, driftOf, liveConfig, liveInputs, networkOwner, networkSettled, toOutputs, updatePatch } from './plan';
import { validateInputs } from './validate';
import { networkUsers } from './users';

type Raw = Record<string, unknown>;

export interface NetworkProviderOptions {
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Progress lines of the waits and the network they are about. @default dropped */
  onProgress?: ProgressSink;
}

const fail = (property: string, reason: string): CheckFailure => ({ property, reason: `${property}: ${reason}` });
const EXCLUSIVE_VLAN = 'storage-network.settings.harvesterhci.io/exclusivevlan';
const MATCHED_NODES = 'network.harvesterhci.io/matched-nodes';

/** `namespace/name` from an id or the recorded inputs. */
export function splitId(id: string, recorded: Partial<NetworkInputs>): [string, string] {
  const [ns, name] = id.includes('/') ? id.split('/', 2) : [recorded.namespace ?? 'default', id];
  return [recorded.namespace ?? ns, recorded.name ?? name];
}

/** The hosts the VlanConfigs of a cluster network attach (their matched-nodes annotation, written by Harvester's webhook). */
export function attachedHosts(vlanConfigs: VlanConfig[], clusterNetwork: string): string[] {
  const hosts = new Set<string>();
  for (const vc of vlanConfigs.filter((v) => v.spec?.clusterNetwork === clusterNetwork && !v.metadata.deletionTimestamp)) {
    try {
      const nodes = JSON.parse(vc.metadata.annotations?.[MATCHED_NODES] || '[]') as unknown;
      if (Array.isArray(nodes)) for (const n of nodes) hosts.add(String(n));
    } catch {
      // an unreadable annotation attaches nothing (Harvester's GetMatchNodes fails on it too)
    }
  }
  return [...hosts].sort();
}

export function createNetworkProvider(options: NetworkProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clientFor = (props: Partial<NetworkInputs>) => connect({ kubeconfig: props.kubeconfig, context: props.context });

  async function clusterNetworkFailures(inputs: NetworkInputs, client: HarvesterClient): Promise<CheckFailure[]> {
    const cn = inputs.clusterNetwork;
    if (cn === 'mgmt') return []; // every host is on the management network from installation
    if (!(await client.clusterNetworks.get(cn))) {
      return [fail('clusterNetwork', `ClusterNetwork ${cn} does not exist (Harvester refuses a network on it: "nad refers to a none-existing cluster network ${cn}"): create it and a VlanConfig attaching hosts, or use "mgmt"`)];
    }
    if (attachedHosts((await client.vlanConfigs.list({})).items, cn).length === 0) {
      return [fail('clusterNetwork', `no host is attached to ClusterNetwork ${cn} (no VlanConfig of it matches a host), so no VM could run on this network: add a VlanConfig with the hosts' uplink NICs, or use "mgmt"`)];
    }
    return [];
  }

  async function vlanFailures(inputs: NetworkInputs, client: HarvesterClient, live: NetworkAttachmentDefinition | undefined): Promise<CheckFailure[]> {
    const out: CheckFailure[] = [];
    const key = `${inputs.namespace}/${inputs.name}`;
    if (inputs.vlan) {
      const reserved = (await client.networks.list({ labelSelector: `${EXCLUSIVE_VLAN}=true` })).items.find((n) => liveConfig(n).vlan === inputs.vlan);
      if (reserved) {
        out.push(fail('vlan', `${inputs.vlan} is exclusively reserved for the storage network (${reserved.metadata.namespace}/${reserved.metadata.name}); Harvester refuses other networks on it: choose another VLAN`));
      }
    }
    if (live && isOwnedBy(live, networkOwner(inputs.namespace, inputs.name)) && liveInputs(live).vlan !== inputs.vlan) {
      const { running } = await networkUsers(client, live);
      if (running.length) {
        out.push(fail('vlan', `VM network ${key} is used by running VM(s) ${running.join(', ')}; Harvester refuses changing its VLAN while they run: stop them first`));
      }
    }
    return out;
  }

  async function clusterFailures(inputs: NetworkInputs, client: HarvesterClient): Promise<CheckFailure[]> {
    const live = await client.networks.get(inputs.name, inputs.namespace);
    const out: CheckFailure[] = [];
    const owner = networkOwner(inputs.namespace, inputs.name);
    if (live && !isOwnedBy(live, owner)) {
      const err = notOwnedError(live, owner, 'manage', 'NetworkAttachmentDefinition');
      out.push(fail('name', `${err.message} Choose another name, or import it (id "${inputs.namespace}/${inputs.name}").`));
    }
    out.push(...(await clusterNetworkFailures(inputs, client)), ...(await vlanFailures(inputs, client, live)));
    return out;
  }

  async function waitSettled(client: HarvesterClient, inputs: NetworkInputs, op: WriteOperation): Promise<NetworkAttachmentDefinition> {
    const key = `${inputs.namespace}/${inputs.name}`;
    const [nad] = await waitFor<NetworkAttachmentDefinition>({
      resource: client.networks,
      namespace: inputs.namespace,
      name: inputs.name,
      timeoutMs: parseDuration(inputs.timeouts[op]) ?? 120_000,
      what: `VM network ${key} to be labelled by Harvester${inputs.vlan && inputs.route.mode === 'auto' ? ' and its route learnt' : ''}`,
      timeoutOption: `timeouts.${op}`,
      onProgress: progressFor(options.onProgress, inputs),
      check: ([n]) => networkSettled(key, inputs, n),
    });
    return nad;
  }

  /** Brings the network to the inputs (creating it, or patching ours) and waits until Harvester has settled it. */
  async function converge(inputs: NetworkInputs, op: WriteOperation): Promise<NetworkOutputs> {
    const client = await clientFor(inputs);
    const owner = networkOwner(inputs.namespace, inputs.name);
    const live = await client.networks.get(inputs.name, inputs.namespace);
    if (!live) {
      await client.networks.create(desiredNetwork(inputs));
    } else {
      assertOwned(live, owner, op, 'NetworkAttachmentDefinition');
      const patch = updatePatch(inputs, live);
      if (patch) await client.networks.mergePatch(inputs.name, patch, { namespace: inputs.namespace, owner });
    }
    return toOutputs(inputs, await waitSettled(client, inputs, op));
  }

  function apply(inputs: NetworkInputs, op: WriteOperation): Promise<NetworkOutputs> {
    return recordPartial(() => converge(inputs, op), {
      id: `${inputs.namespace}/${inputs.name}`,
      op,
      object: `VM network ${inputs.namespace}/${inputs.name}`,
      observe: async (drift) => {
        const live = await (await clientFor(inputs)).networks.get(inputs.name, inputs.namespace);
        return live && isOwnedBy(live, networkOwner(inputs.namespace, inputs.name)) ? toOutputs(inputs, live, drift) : undefined;
      },
    });
  }

  return {
    check: (olds: Raw, news: Raw): Promise<CheckResult<Raw>> =>
      checkInputs(olds, news, validateInputs, (inputs) => clientFor(inputs).then((client) => clusterFailures(inputs, client))),

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<NetworkOutputs>, userInputs(news) as Partial<NetworkInputs>);
      return deleteBeforeReplaceDiff(d);
    },

    async create(raw: Raw): Promise<CreateResult<NetworkOutputs>> {
      const inputs = parseChecked('HarvesterNetwork', raw, validateInputs);
      return { id: `${inputs.namespace}/${inputs.name}`, outs: await apply(inputs, 'create') };
    },

    async read(id: string, props?: Raw): Promise<ReadResult<NetworkOutputs>> {
      const recorded = (props ?? {}) as Partial<NetworkOutputs>;
      const [namespace, name] = splitId(id, recorded);
      const client = await clientFor(recorded);
      const live = await client.networks.get(name, namespace);
      if (!live) return {};
      const importing = recorded.route === undefined;
      const base = networkSchema.parse({ name, namespace, ...liveInputs(live), timeouts: recorded.timeouts, kubeconfig: recorded.kubeconfig, context: recorded.context });
      const drift = importing ? [] : [...driftOf(recorded as NetworkInputs, live), ...unfinishedLines(recorded.drift)];
      const read = toOutputs(base, live, drift);
      const outs = importing ? withoutUnrecorded(read) : read;
      const inputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !OUTPUT_ONLY.includes(k) && v !== undefined));
      return { id: `${namespace}/${name}`, props: outs, inputs };
    },

    async update(_id: string, _olds: Raw, news: Raw): Promise<UpdateResult<NetworkOutputs>> {
      return { outs: await apply(parseChecked('HarvesterNetwork', news, validateInputs), 'update') };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = props as Partial<NetworkOutputs>;
      const [namespace, name] = splitId(id, recorded);
      const owner = networkOwner(namespace, name);
      const client = await clientFor(recorded);
      const live = await client.networks.get(name, namespace);
      if (!live || !isOwnedBy(live, owner)) return; // never delete what we do not own
      const { running, templates: attached } = await networkUsers(client, live);
      const templates = attached.filter((vm) => !running.includes(vm));
      if (running.length || templates.length) {
        const parts = [
          running.length ? `running VM(s) ${running.join(', ')} (Harvester: "which must be stopped at first")` : '',
          templates.length ? `VM(s) ${templates.join(', ')} whose spec attaches it (Harvester: "which must remove the related networks and interfaces")` : '',
        ].filter(Boolean);
        throw new ProviderError('NetworkInUse', `VM network ${namespace}/${name} cannot be deleted: it is still used by ${parts.join(' and ')}.`, {
          object: `NetworkAttachmentDefinition ${namespace}/${name}`,
          fix: 'Remove the network from those VMs (or delete them, e.g. their machine pool) first, then run again.',
        });
      }
      await client.networks.delete(name, { namespace, owner });
      await waitForDeletion<NetworkAttachmentDefinition>({
        resource: client.networks,
        namespace,
        name,
        timeoutMs: parseDuration(recorded.timeouts?.delete ?? '2m') ?? 120_000,
        timeoutOption: 'timeouts.delete',
        what: `VM network ${namespace}/${name} to be deleted`,
        onProgress: progressFor(options.onProgress, { namespace, name }),
      });
    },
  };
}

export type NetworkProvider = ReturnType<typeof createNetworkProvider>;
