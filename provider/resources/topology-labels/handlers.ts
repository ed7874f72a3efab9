/**
 * TopologyLabels' provider handlers in the shape of Pulumi's dynamic.ResourceProvider:
 * model (zod) → plan (pure: plan.ts, diff.ts, versions.ts) → apply (apply.ts; reads in observe.ts, guest.ts).
 *
 * - check: every invalid input with its fix; then against the cluster: each host exists and is not claimed
 *   by another TopologyLabels resource; with waitForGuestSync, the guest's versions can sync. Nothing is written.
 * - create/update: per host one preconditioned merge patch of our keys (apply.ts); hosts and keys that left
 *   the inputs are restored; then the zone count (warning below three) and the guest nodes (optionally waited
 *   for). A failure after a write is recorded (ResourceInitError) with what was written, so nothing is lost.
 * - read: one LIST of hosts; live values returned as inputs, so a label changed in the UI shows as drift;
 *   import (`pulumi import` by name) rebuilds the state from the hosts' annotations.
 * - delete: restores every host's previous values (removes keys that were absent), except values changed
 *   outside since, and hosts now owned by another resource.
 * The kubeconfigs travel as inputs (secret) and in outputs under the same names (kept secret by Pulumi),
 * because read and delete receive only outputs.
 */
import { deleteBeforeReplaceDiff, userInputs } from '../../core/check-flow';
import { connectionFor } from '../../core/connection';
import type { Clock } from '../../await/clock';
import { systemClock } from '../../await/clock';
import { HarvesterClient } from '../../client/harvester-client';
import { mapLimit } from '../../core/concurrency';
import { parseDuration } from '../../core/duration';
import { ProviderError, ResourceInitError, errorMessage } from '../../core/errors';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { containsUnknown, isUnknown } from '../../core/unknowns';
import { applyHost, type HostStep } from './apply';
import { diffInputs } from './diff';
import { claimedByOther, clusterUnreachable, guestRefused, hostMissing } from './errors';
import { cloudProviderVersion, lowestKubelet, observeGuest, waitForGuestSync } from './guest';
import { KEY_NAMES, OUTPUT_ONLY, topologyLabelsSchema, type HostTopology, type TopologyLabelsInputs, type TopologyLabelsOutputs } from './model';
import { listHosts } from './observe';
import { distinctZones, driftOf, liveInputs, liveValue, ownerOfHost, previousOnHost, zoneWarning, type KeyValues, type LiveHost } from './plan';
import { validateInputs } from './validate';
import { syncSupport } from './versions';
import { progressFor, type ProgressSink } from '../../core/progress';

/** Injection points for tests and the SDK. */
export interface TopologyLabelsProviderOptions {
  /** How to reach a cluster (Harvester or guest). @default HarvesterClient.connect */
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Clock of the guest wait. @default the system clock */
  clock?: Clock;
  /** Progress lines of the guest wait and the resource they are about. @default dropped */
  onProgress?: ProgressSink;
  /** Warnings (fewer than three zones, guest versions, hosts left alone). @default written to stderr */
  onWarning?: (line: string) => void;
}

type Raw = Record<string, unknown>;
type Props = { kubeconfig?: string; context?: string; guestKubeconfig?: string; guestContext?: string };

/** The one place the Harvester credentials are taken from: the override inputs, else stack config, else $KUBECONFIG (core/connection.ts). */
function harvesterCredentials(props: Props): { kubeconfig?: string; context?: string } {
  return connectionFor({ kubeconfig: props.kubeconfig, context: props.context });
}

/** The guest cluster's credentials (a secret input of this resource; not stack config: one per guest). */
function guestCredentials(props: Props): { kubeconfig?: string; context?: string } {
  return { kubeconfig: props.guestKubeconfig, context: props.guestContext };
}

function parseInputs(raw: Raw): TopologyLabelsInputs {
  const v = validateInputs(raw);
  if (v.inputs) return v.inputs;
  throw new ProviderError('InvalidInputs', `The TopologyLabels inputs are invalid:\n${v.failures.map((f) => `  - ${f.reason}`).join('\n')}\n`, {
    fix: 'Fix the inputs above and run again.',
  });
}

/** A copy without undefined values (the Pulumi host must never see undefined in a result). */
function defined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const isObj = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);

/** createTopologyLabelsProvider returns the handlers, with injection points for tests. */
export function createTopologyLabelsProvider(options: TopologyLabelsProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(o));
  const clock = options.clock ?? systemClock;
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`warning: TopologyLabels: ${line}\n`));

  /** Cluster checks of `check`: hosts exist and are not another resource's; the guest can sync when waited for. */
  async function clusterFailures(olds: Raw, raw: Raw): Promise<CheckFailure[]> {
    const failures: CheckFailure[] = [];
    if (!isUnknown(raw.kubeconfig) && !isUnknown(raw.context) && isObj(raw.hosts)) {
      try {
        const hosts = await listHosts(await connect(harvesterCredentials(raw as Props)));
        const ours = new Set([raw.name, olds.name].filter((n) => typeof n === 'string'));
        for (const name of Object.keys(raw.hosts)) {
          const host = hosts.get(name);
          // A host removed from the cluster later is reported by read/update, not by check of unchanged inputs (trap 10).
          if (!host) {
            if (!(isObj(olds.hosts) && name in olds.hosts)) failures.push(hostMissing(name, [...hosts.keys()].sort()));
          } else {
            const owner = ownerOfHost(host);
            if (owner !== undefined && !ours.has(owner) && !isUnknown(raw.name)) failures.push(claimedByOther(name, owner));
          }
        }
      } catch (err) {
        failures.push(clusterUnreachable('kubeconfig', errorMessage(err)));
      }
    }
    if (raw.waitForGuestSync === true && typeof raw.guestKubeconfig === 'string' && !containsUnknown([raw.guestKubeconfig, raw.guestContext, raw.guestCloudProviderVersion])) {
      try {
        const guest = await connect(guestCredentials(raw as Props));
        const [nodes, ccm] = await Promise.all([guest.nodes.list(), cloudProviderVersion(guest, raw.guestCloudProviderVersion as string | undefined)]);
        const support = syncSupport(lowestKubelet(nodes.items), ccm);
        if (support.refusals.length) failures.push(guestRefused(support.refusals));
      } catch (err) {
        failures.push(clusterUnreachable('guestKubeconfig', errorMessage(err)));
      }
    }
    return failures;
  }

  /** The outputs for `inputs` after the hosts were written: zones, warnings, guest nodes (waited for when asked). */
  async function finish(inputs: TopologyLabelsInputs, client: HarvesterClient, written: Pick<TopologyLabelsOutputs, 'applied' | 'previous'>, wait: boolean): Promise<TopologyLabelsOutputs> {
    const hosts = await listHosts(client);
    const warnings: string[] = [];
    const zoneNote = zoneWarning([...hosts.values()]);
    if (zoneNote) warnings.push(zoneNote);
    let guestNodes: TopologyLabelsOutputs['guestNodes'] = [];
    let guestVersions: TopologyLabelsOutputs['guestVersions'] = null;
    if (inputs.guestKubeconfig) {
      const guest = await connect(guestCredentials(inputs));
      const observed = await observeGuest(client, guest, hosts, inputs.guestNamespace, inputs.guestCloudProviderVersion);
      warnings.push(...observed.support.refusals, ...observed.support.notes);
      guestVersions = observed.versions;
      guestNodes = observed.nodes;
      if (wait) {
        guestNodes = await waitForGuestSync(guest, observed, {
          timeoutMs: parseDuration(inputs.guestSyncTimeout) ?? 600_000,
          timeoutText: inputs.guestSyncTimeout,
          clock,
          onProgress: progressFor(options.onProgress, inputs),
        });
      }
    }
    for (const w of warnings) warn(w);
    return defined({ ...inputs, ...written, zones: distinctZones([...hosts.values()]), warnings, drift: [], guestNodes, guestVersions });
  }

  /** Writes every host of `inputs` (and releases those that left them), then finishes; records partial work on failure. */
  async function converge(id: string, inputs: TopologyLabelsInputs, recorded: Partial<TopologyLabelsOutputs> | undefined): Promise<TopologyLabelsOutputs> {
    const client = await connect(harvesterCredentials(inputs));
    const applied: Record<string, HostTopology> = { ...(recorded?.applied ?? {}) };
    const previous: Record<string, KeyValues> = { ...(recorded?.previous ?? {}) };
    const recordedOf = (host: string) => ({ previous: recorded?.previous?.[host], applied: recorded?.applied?.[host] });
    const steps: HostStep[] = Object.keys(inputs.hosts).sort().map((host) => ({ host, desired: inputs.hosts[host], recorded: recordedOf(host) }));
    const leaving = [...new Set([...Object.keys(recorded?.applied ?? {}), ...Object.keys(recorded?.previous ?? {})])].filter((h) => !(h in inputs.hosts)).sort();
    for (const host of leaving) steps.push({ host, recorded: recordedOf(host) });
    let wrote = false;
    try {
      await mapLimit(steps, 4, async (step) => {
        const result = await applyHost(client, inputs.name, step);
        wrote ||= result.patch !== undefined;
        if (result.skipped) warn(`host ${step.host} left as it is: ${result.skipped}`);
        if (Object.keys(result.previous).length) {
          previous[step.host] = result.previous;
          applied[step.host] = result.applied;
        } else {
          delete previous[step.host];
          delete applied[step.host];
        }
      });
      return await finish(inputs, client, { applied, previous }, inputs.waitForGuestSync);
    } catch (err) {
      if (!wrote && recorded === undefined) throw err;
      const outs = defined({ ...inputs, applied, previous, zones: [], warnings: [], guestNodes: [], guestVersions: null, drift: [`the last operation did not finish (${(err as { code?: string }).code ?? 'error'}); the next \`pulumi up\` resumes it`] });
      throw new ResourceInitError(id, outs, [errorMessage(err)], err);
    }
  }

  /** State of a resource being imported: the hosts whose owner annotation names it. */
  function imported(name: string, hosts: Map<string, LiveHost>): Pick<TopologyLabelsOutputs, 'applied' | 'previous'> | undefined {
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

  return {
    /** check validates the inputs, then checks them against the cluster (see the file header). */
    async check(olds: Raw, news: Raw): Promise<CheckResult<Raw>> {
      const raw = userInputs(news);
      const v = validateInputs(raw);
      const failures = [...v.failures];
      const seen = new Set(failures.map((f) => f.property));
      if (!seen.has('kubeconfig') && !seen.has('hosts')) {
        for (const f of await clusterFailures(userInputs(olds), raw)) if (!seen.has(f.property)) failures.push(f);
      }
      if (failures.length) return { inputs: news, failures };
      return { inputs: (v.inputs as unknown as Raw) ?? raw };
    },

    /** diff compares recorded outputs with the new inputs (diff.ts). */
    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<TopologyLabelsOutputs>, userInputs(news));
      return deleteBeforeReplaceDiff(d);
    },

    /** create labels the hosts, remembering what they had. */
    async create(raw: Raw): Promise<CreateResult<TopologyLabelsOutputs>> {
      const inputs = parseInputs(userInputs(raw));
      return { id: inputs.name, outs: await converge(inputs.name, inputs, undefined) };
    },

    /** read reports the hosts as they are, with live values as inputs (drift) and the guest nodes. */
    async read(id: string, props?: Raw): Promise<ReadResult<TopologyLabelsOutputs>> {
      const recorded = { ...(props ?? {}) } as Partial<TopologyLabelsOutputs>;
      const name = recorded.name ?? id;
      const client = await connect(harvesterCredentials(recorded));
      const hosts = await listHosts(client);
      let written: Pick<TopologyLabelsOutputs, 'applied' | 'previous'> | undefined = recorded.applied ? { applied: recorded.applied, previous: recorded.previous ?? {} } : undefined;
      const importing = written === undefined;
      if (importing) written = imported(name, hosts);
      if (!written) return {};
      const drift = importing ? [] : driftOf(name, written.applied, hosts);
      const warnings: string[] = [];
      const zoneNote = zoneWarning([...hosts.values()]);
      if (zoneNote) warnings.push(zoneNote);
      let guestNodes = recorded.guestNodes ?? [];
      let guestVersions = recorded.guestVersions ?? null;
      if (recorded.guestKubeconfig) {
        try {
          const guest = await connect(guestCredentials(recorded));
          const observed = await observeGuest(client, guest, hosts, recorded.guestNamespace ?? 'default', recorded.guestCloudProviderVersion);
          guestNodes = observed.nodes;
          guestVersions = observed.versions;
          warnings.push(...observed.support.refusals, ...observed.support.notes);
        } catch (err) {
          warnings.push(`the guest cluster could not be read: ${errorMessage(err)}`);
        }
      }
      const outs = defined({
        guestNamespace: 'default',
        waitForGuestSync: false,
        guestSyncTimeout: '10m',
        ...recorded,
        name,
        ...written,
        hosts: liveInputs(written.applied, hosts),
        zones: distinctZones([...hosts.values()]),
        warnings,
        drift,
        guestNodes,
        guestVersions,
      }) as TopologyLabelsOutputs;
      const inputs = Object.fromEntries(Object.entries(outs).filter(([k]) => !OUTPUT_ONLY.includes(k) && k in topologyLabelsSchema.shape));
      return { id: name, props: outs, inputs };
    },

    /** update brings the hosts to the new inputs and restores those that left them. */
    async update(id: string, olds: Raw, news: Raw): Promise<UpdateResult<TopologyLabelsOutputs>> {
      const inputs = parseInputs(userInputs(news));
      return { outs: await converge(id, inputs, olds as Partial<TopologyLabelsOutputs>) };
    },

    /** delete restores every host's previous values. */
    async delete(_id: string, props: Raw): Promise<void> {
      const recorded = props as Partial<TopologyLabelsOutputs>;
      const name = recorded.name ?? _id;
      const client = await connect(harvesterCredentials(recorded));
      const hosts = [...new Set([...Object.keys(recorded.applied ?? {}), ...Object.keys(recorded.previous ?? {})])].sort();
      await mapLimit(hosts, 4, async (host) => {
        const result = await applyHost(client, name, { host, recorded: { previous: recorded.previous?.[host], applied: recorded.applied?.[host] } });
        if (result.skipped) warn(`host ${host} left as it is: ${result.skipped}`);
        for (const change of result.changes.filter((c) => c.includes('kept'))) warn(`host ${host}: ${change}`);
      });
    },
  };
}

/** The handler object type. */
export type TopologyLabelsProvider = ReturnType<typeof createTopologyLabelsProvider>;
