/**
 * HarvesterIPPool's provider handlers (dynamic.ResourceProvider shape):
 * model (model.ts) → pure rules and plan (validate.ts, plan.ts) → the API calls here.
 *
 * - check: every input rule at once (validate.ts), then against the cluster what the webhook would refuse at
 *   apply: ranges overlapping another pool, a second global pool, a non-zero priority already taken, a network
 *   that does not exist; and a pool of that name we do not own (delete it or import it). Nothing is written.
 * - create/update: the pool with our ownership labels, or a merge patch of `spec` only on ours (a retry after a
 *   create that failed part-way, or an update), preconditioned on our ownership; `status.allocated` (the IPAM
 *   record) is never written. Then a watch until Ready (its message on failure). A failure after the first
 *   write is recorded with the pool as it is (core/partial.ts).
 * - read: one GET; the live spec as inputs, so an out-of-band edit shows per property after a refresh; the line
 *   of an unfinished create/update is kept until an up completes it.
 * - delete: refused while addresses are allocated, naming the load balancers holding them; then waits until gone.
 */
import { waitFor, waitForDeletion } from '../../await';
import { progressFor, type ProgressSink } from '../../core/progress';
import { HarvesterClient } from '../../client/harvester-client';
import type { IPPool } from '../../client/objects';
import { assertOwned, isOwnedBy, notOwnedError } from '../../client/ownership';
import { connectionFor } from '../../core/connection';
import { parseDuration } from '../../core/duration';
import { checkInputs, deleteBeforeReplaceDiff, parseChecked, userInputs } from '../../core/check-flow';
import { withoutUnrecorded } from '../../core/imported';
import { ProviderError } from '../../core/errors';
import { recordPartial, unfinishedLines, type WriteOperation } from '../../core/partial';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { ipPoolSchema, OUTPUT_ONLY, type IPPoolInputs, type IPPoolOutputs } from './model';
import { desiredPool, desiredSpec, diffInputs, driftOf, liveInputs, poolOwner, poolReadiness, toOutputs } from './plan';
import { formatInterval, overlaps } from './ranges';
import { isGlobalScope, rangesOf, scopeClash, validateInputs } from './validate';

type Raw = Record<string, unknown>;

export interface IPPoolProviderOptions {
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Progress lines of the waits and the pool they are about. @default dropped */
  onProgress?: ProgressSink;
}

const fail = (property: string, reason: string): CheckFailure => ({ property, reason: `${property}: ${reason}` });

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

export function createIPPoolProvider(options: IPPoolProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clientFor = (props: Partial<IPPoolInputs>) => connect({ kubeconfig: props.kubeconfig, context: props.context });

  async function clusterFailures(inputs: IPPoolInputs, client: HarvesterClient): Promise<CheckFailure[]> {
    const pools = (await client.ipPools.list({})).items;
    const same = pools.find((p) => p.metadata.name === inputs.name);
    const out = conflictsWithOthers(inputs, pools.filter((p) => p.metadata.name !== inputs.name));
    if (same && !isOwnedBy(same, poolOwner(inputs.name))) {
      const err = notOwnedError(same, poolOwner(inputs.name), 'manage', 'IPPool');
      out.push(fail('name', `${err.message} Or delete it (\`kubectl delete ippool ${inputs.name}\`) if nothing uses it.`));
    }
    const network = inputs.selector.network;
    if (network) {
      const [ns, name] = network.split('/');
      if (!(await client.networks.get(name, ns))) out.push(fail('selector.network', `VM network ${network} does not exist (the webhook refuses the pool): create it, or name an existing NetworkAttachmentDefinition`));
    }
    return out;
  }

  /** Brings the pool to the inputs (creating it, or patching ours) and waits until it is Ready. */
  async function convergePool(inputs: IPPoolInputs, op: WriteOperation): Promise<IPPoolOutputs> {
    const client = await clientFor(inputs);
    const live = await client.ipPools.get(inputs.name);
    if (!live) {
      await client.ipPools.create(desiredPool(inputs));
    } else {
      assertOwned(live, poolOwner(inputs.name), op, 'IPPool');
      // A merge patch of the spec alone: replacing lists wholesale, never touching status (the IPAM record). A merge
      // patch merges maps, so optional fields that left the inputs are nulled to go (a network left behind would
      // keep the pool serving only that network's load balancers).
      const spec = desiredSpec(inputs);
      await client.ipPools.mergePatch(
        inputs.name,
        { spec: { ...spec, selector: { ...spec.selector, network: inputs.selector.network ?? null }, description: inputs.description ?? null } },
        { owner: poolOwner(inputs.name) },
      );
    }
    return toOutputs(inputs, await waitReady(client, inputs, op));
  }

  /** create/update: converge, a failure after the first write recorded with the pool as it is. */
  function apply(inputs: IPPoolInputs, op: WriteOperation): Promise<IPPoolOutputs> {
    return recordPartial(() => convergePool(inputs, op), {
      id: inputs.name,
      op,
      object: `IPPool ${inputs.name}`,
      observe: async (drift) => {
        const live = await (await clientFor(inputs)).ipPools.get(inputs.name);
        return live && isOwnedBy(live, poolOwner(inputs.name)) ? toOutputs(inputs, live, drift) : undefined;
      },
    });
  }

  async function waitReady(client: HarvesterClient, inputs: IPPoolInputs, op: WriteOperation): Promise<IPPool> {
    const [pool] = await waitFor<IPPool>({
      resource: client.ipPools,
      name: inputs.name,
      timeoutMs: parseDuration(inputs.timeouts[op]) ?? 120_000,
      what: `IPPool ${inputs.name} to be Ready`,
      timeoutOption: `timeouts.${op}`,
      onProgress: progressFor(options.onProgress, inputs),
      check: ([p]) => poolReadiness(inputs.name, p),
    });
    return pool;
  }

  return {
    check: (olds: Raw, news: Raw): Promise<CheckResult<Raw>> =>
      checkInputs(olds, news, validateInputs, (inputs) => clientFor(inputs).then((client) => clusterFailures(inputs, client))),

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<IPPoolOutputs>, userInputs(news) as Partial<IPPoolInputs>);
      return deleteBeforeReplaceDiff(d);
    },

    async create(raw: Raw): Promise<CreateResult<IPPoolOutputs>> {
      const inputs = parseChecked('HarvesterIPPool', raw, validateInputs);
      return { id: inputs.name, outs: await apply(inputs, 'create') };
    },

    async read(id: string, props?: Raw): Promise<ReadResult<IPPoolOutputs>> {
      const recorded = (props ?? {}) as Partial<IPPoolOutputs>;
      const client = await clientFor(recorded);
      const live = await client.ipPools.get(recorded.name ?? id);
      if (!live) return {};
      const importing = recorded.ranges === undefined;
      const base = ipPoolSchema.parse({ name: live.metadata.name, ...liveInputs(live), timeouts: recorded.timeouts, kubeconfig: recorded.kubeconfig, context: recorded.context });
      const drift = importing ? [] : [...driftOf(recorded as IPPoolInputs, live), ...unfinishedLines(recorded.drift)];
      const read = toOutputs(base, live, drift);
      const outs = importing ? withoutUnrecorded(read) : read;
      const inputs = Object.fromEntries(Object.entries(outs).filter(([k]) => !OUTPUT_ONLY.includes(k) && outs[k as keyof IPPoolOutputs] !== undefined));
      return { id: live.metadata.name, props: outs, inputs };
    },

    async update(_id: string, _olds: Raw, news: Raw): Promise<UpdateResult<IPPoolOutputs>> {
      return { outs: await apply(parseChecked('HarvesterIPPool', news, validateInputs), 'update') };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = props as Partial<IPPoolOutputs>;
      const name = recorded.name ?? id;
      const client = await clientFor(recorded);
      const live = await client.ipPools.get(name);
      if (!live) return;
      if (!isOwnedBy(live, poolOwner(name))) return; // never delete what we do not own (adopted by another owner meanwhile)
      const allocated = Object.entries(live.status?.allocated ?? {});
      if (allocated.length) {
        throw new ProviderError(
          'PoolInUse',
          `IPPool ${name} cannot be deleted: ${allocated.length} address(es) are allocated: ${allocated.map(([ip, lb]) => `${ip} → LoadBalancer ${lb}`).join(', ')}.`,
          { object: `IPPool ${name}`, fix: 'Delete those load balancers first (or move them to another pool), then delete the pool.' },
        );
      }
      await client.ipPools.delete(name, { owner: poolOwner(name) });
      await waitForDeletion<IPPool>({ resource: client.ipPools, name, timeoutMs: parseDuration(recorded.timeouts?.delete ?? '2m') ?? 120_000, timeoutOption: 'timeouts.delete', what: `IPPool ${name} to be deleted`, onProgress: progressFor(options.onProgress, { name }) });
    },
  };
}

export type IPPoolProvider = ReturnType<typeof createIPPoolProvider>;
