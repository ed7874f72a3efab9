/**
 * TopologyLabels on the reconciler (core/reconciler): region and zone labels on Harvester hosts, each host
 * recording this resource as its owner (annotation) and the values it had before (plan.ts, apply.ts).
 * - check: every invalid input with its fix; against the cluster: each host exists and is not claimed by another
 *   TopologyLabels resource; with waitForGuestSync, the guest's versions can sync.
 * - converge: per host one preconditioned merge patch of our keys (apply.ts); hosts and keys that left the inputs
 *   are restored; then the zone count (warning below three) and the guest nodes (optionally waited for).
 * - observe: one LIST of hosts; what this resource wrote is its recorded state, or for an import (or an apply that
 *   failed part-way) what the hosts' annotations say; the guest nodes for a read with a guest kubeconfig.
 * - remove: restores every host's previous values (removes keys that were absent), except values changed outside
 *   since, and hosts now owned by another resource.
 */
import { mapLimit } from '../../core/concurrency';
import { errorMessage } from '../../core/errors';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource, ResourceContext } from '../../core/reconciler/resource';
import type { CheckFailure } from '../../core/types';
import { containsUnknown, isUnknown } from '../../core/unknowns';
import { onCluster } from '../../core/unreachable';
import { parseDuration } from '../../await/duration';
import { applyHost, type HostStep } from './apply';
import { diffInputs } from './diff';
import { claimedByOther, guestRefused, hostMissing } from './errors';
import { cloudProviderVersion } from '../../core/guest-cloud-provider';
import { lowestKubelet, observeGuest, waitForGuestSync, type GuestObservation } from './guest';
import { KEY_NAMES, topologyLabelsOutputsSchema, topologyLabelsSchema, type HostTopology, type TopologyLabelsInputs, type TopologyLabelsOutputs } from './model';
import { listHosts } from './observe';
import { distinctZones, driftOf, liveInputs, liveValue, ownerOfHost, previousOnHost, zoneWarning, type KeyValues, type LiveHost } from './plan';
import { validateInputs } from './validate';
import { syncSupport } from './versions';

export type TopologyLabelsProviderOptions = ReconcilerOptions;

type Inputs = TopologyLabelsInputs;
type Outputs = TopologyLabelsOutputs;
type Written = Pick<Outputs, 'applied' | 'previous'>;

/** The hosts, what this resource wrote on them, and the guest nodes. */
export interface ObservedTopology {
  hosts: Map<string, LiveHost>;
  written?: Written;
  guest?: Pick<Outputs, 'guestNodes' | 'guestVersions'>;
  warnings: string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const guestOf = (ctx: ResourceContext, values: Partial<Inputs>) => onCluster('guestKubeconfig', () => ctx.connect({ kubeconfig: values.guestKubeconfig, context: values.guestContext }));

/** What the hosts' annotations say this resource wrote (an import; a create that failed part-way). */
function writtenOnHosts(name: string, hosts: Map<string, LiveHost>): Written | undefined {
  const applied: Record<string, HostTopology> = {};
  const previous: Record<string, KeyValues> = {};
  for (const host of hosts.values()) {
    if (ownerOfHost(host) !== name) continue;
    const before = previousOnHost(host) ?? {};
    previous[host.name] = before;
    const values: HostTopology = {};
    for (const key of KEY_NAMES) {
      const v = liveValue(host, key);
      if (key in before && v !== null) values[key] = v;
    }
    applied[host.name] = values;
  }
  return Object.keys(applied).length ? { applied, previous } : undefined;
}

/** The guest nodes and versions, and the warnings about them; a guest that cannot be read is a warning. */
async function guestPart(ctx: ResourceContext, values: Partial<Inputs>, hosts: Map<string, LiveHost>): Promise<{ guest?: GuestObservation; warnings: string[] }> {
  if (!values.guestKubeconfig) return { warnings: [] };
  try {
    const guest = await observeGuest(ctx.client, await guestOf(ctx, values), hosts, values.guestNamespace ?? 'default', values.guestCloudProviderVersion);
    return { guest, warnings: [...guest.support.refusals, ...guest.support.notes] };
  } catch (err) {
    return { warnings: [`the guest cluster could not be read: ${errorMessage(err)}`] };
  }
}

function zoneWarnings(hosts: Map<string, LiveHost>): string[] {
  const note = zoneWarning([...hosts.values()]);
  return note ? [note] : [];
}

export const topologyLabelsResource: ManagedResource<Inputs, Outputs, ObservedTopology> = {
  type: 'TopologyLabels',
  model: {
    inputs: topologyLabelsSchema,
    outputs: topologyLabelsOutputsSchema,
    validate: validateInputs,
    // What no host records: the guest connection and how to wait for it.
    notOnCluster: ['guestKubeconfig', 'guestContext', 'guestNamespace', 'guestCloudProviderVersion', 'waitForGuestSync', 'guestSyncTimeout'],
  },
  scope: 'cluster',
  ref: (v) => ({ name: v.name as string }),
  describe: (ref) => `TopologyLabels ${ref.name}`,
  owner: (ref) => ({ resourceType: 'topology-labels', resourceName: ref.name }),

  async observe(ctx, ref, values) {
    const hosts = await listHosts(ctx.client);
    // A refresh compares what the state says we wrote with the hosts (drift); while applying (a failure part-way is
    // recorded from this), what the hosts' annotations say is the truth: some hosts already have the new values.
    const applying = ctx.operation === 'create' || ctx.operation === 'update';
    const written = values.applied && !applying ? { applied: values.applied, previous: values.previous ?? {} } : writtenOnHosts(ref.name, hosts);
    // The guest nodes are outputs a read reports; the other calls have no use for them.
    const { guest, warnings } = written && ctx.operation === 'read' ? await guestPart(ctx, values, hosts) : { warnings: [] };
    return { hosts, written, guest: guest && { guestNodes: guest.nodes, guestVersions: guest.versions }, warnings: [...zoneWarnings(hosts), ...warnings] };
  },
  exists: (live) => live.written !== undefined,
  owns: () => true, // each host's owner annotation is checked host by host when it is written or restored
  foreign: () => [],

  async checkCluster(ctx, { raw, recorded, live }) {
    const failures: CheckFailure[] = [];
    if (isObj(raw.hosts)) {
      const hosts = live?.hosts ?? (await listHosts(ctx.client));
      const ours = new Set([raw.name, recorded.name].filter((n) => typeof n === 'string'));
      for (const name of Object.keys(raw.hosts)) {
        const host = hosts.get(name);
        // A host removed from the cluster later is reported by read/update, not by check of unchanged inputs (trap 10 of
        // docs/design/dynamic-host-contract.md).
        if (!host) {
          if (!(isObj(recorded.hosts) && name in recorded.hosts)) failures.push(hostMissing(name, [...hosts.keys()].sort()));
        } else {
          const owner = ownerOfHost(host);
          if (owner !== undefined && !ours.has(owner) && !isUnknown(raw.name)) failures.push(claimedByOther(name, owner));
        }
      }
    }
    if (raw.waitForGuestSync === true && typeof raw.guestKubeconfig === 'string' && !containsUnknown([raw.guestKubeconfig, raw.guestContext, raw.guestCloudProviderVersion])) {
      const guest = await guestOf(ctx, raw as Partial<Inputs>);
      const [nodes, ccm] = await onCluster('guestKubeconfig', () => Promise.all([guest.nodes.list(), cloudProviderVersion(guest, raw.guestCloudProviderVersion as string | undefined)]));
      const support = syncSupport(lowestKubelet(nodes.items), ccm);
      if (support.refusals.length) failures.push(guestRefused(support.refusals));
    }
    return failures;
  },

  /** Writes every host of the inputs (and releases those that left them), then reads the outcome. */
  async converge(ctx, inputs, live, _op, recorded) {
    const applied: Record<string, HostTopology> = { ...(recorded.applied ?? {}) };
    const previous: Record<string, KeyValues> = { ...(recorded.previous ?? {}) };
    const recordedOf = (host: string) => ({ previous: recorded.previous?.[host], applied: recorded.applied?.[host] });
    const steps: HostStep[] = Object.keys(inputs.hosts).sort().map((host) => ({ host, desired: inputs.hosts[host], recorded: recordedOf(host) }));
    const leaving = [...new Set([...Object.keys(recorded.applied ?? {}), ...Object.keys(recorded.previous ?? {})])].filter((h) => !(h in inputs.hosts)).sort();
    for (const host of leaving) steps.push({ host, recorded: recordedOf(host) });
    await mapLimit(steps, 4, async (step) => {
      const result = await applyHost(ctx.client, inputs.name, step);
      if (result.skipped) ctx.warn(`host ${step.host} left as it is: ${result.skipped}`);
      if (Object.keys(result.previous).length) {
        previous[step.host] = result.previous;
        applied[step.host] = result.applied;
      } else {
        delete previous[step.host];
        delete applied[step.host];
      }
    });
    const hosts = await listHosts(ctx.client);
    const warnings = zoneWarnings(hosts);
    let guest: ObservedTopology['guest'];
    if (inputs.guestKubeconfig) {
      const guestClient = await guestOf(ctx, inputs);
      const observed = await observeGuest(ctx.client, guestClient, hosts, inputs.guestNamespace, inputs.guestCloudProviderVersion);
      warnings.push(...observed.support.refusals, ...observed.support.notes);
      let guestNodes = observed.nodes;
      if (inputs.waitForGuestSync) {
        guestNodes = await waitForGuestSync(guestClient, observed, {
          timeoutMs: parseDuration(inputs.guestSyncTimeout) as number,
          timeoutText: inputs.guestSyncTimeout,
          clock: ctx.clock,
          onProgress: ctx.progress,
        });
      }
      guest = { guestNodes, guestVersions: observed.versions };
    }
    for (const w of warnings) ctx.warn(w);
    void live;
    return { hosts, written: { applied, previous }, guest, warnings };
  },

  liveInputs: (live) => ({ hosts: liveInputs(live.written!.applied, live.hosts) }),
  drift: (recorded, live) => driftOf(recorded.name, live.written!.applied, live.hosts),
  diff: diffInputs,
  outputs: (inputs, live, drift) =>
    JSON.parse(JSON.stringify({
      ...inputs,
      ...live.written,
      zones: distinctZones([...live.hosts.values()]),
      warnings: live.warnings,
      drift,
      guestNodes: live.guest?.guestNodes ?? [],
      guestVersions: live.guest?.guestVersions ?? null,
    })) as Outputs,

  async remove(ctx, live, ref) {
    if (!live.written) return;
    const { applied, previous } = live.written;
    const hosts = [...new Set([...Object.keys(applied), ...Object.keys(previous)])].sort();
    await mapLimit(hosts, 4, async (host) => {
      const result = await applyHost(ctx.client, ref.name, { host, recorded: { previous: previous[host], applied: applied[host] } });
      if (result.skipped) ctx.warn(`host ${host} left as it is: ${result.skipped}`);
      for (const change of result.changes.filter((c) => c.includes('kept'))) ctx.warn(`host ${host}: ${change}`);
    });
  },
};

export function createTopologyLabelsProvider(options: TopologyLabelsProviderOptions = {}) {
  return reconciledProvider(topologyLabelsResource, options);
}

export type TopologyLabelsProvider = ReturnType<typeof createTopologyLabelsProvider>;
