/**
 * HarvesterKeyPair's provider handlers (dynamic.ResourceProvider shape):
 * model (model.ts) → pure rules and plan (validate.ts, public-key.ts, plan.ts) → the API calls here.
 *
 * - check: the inputs, the public key judged as Harvester's webhook judges it (with the reason), then against the
 *   cluster: the namespace exists, and no key pair of that name we do not own. Nothing is written.
 * - create/update: the key pair with our ownership labels, or a merge patch of our key pair (a retry after a
 *   create that failed part-way, or a labels change), preconditioned on our ownership; then a watch until
 *   Harvester's controller has set `validated` (False is final: its reason is the error). A failure after the
 *   first write is recorded with the key pair as it is (core/partial.ts).
 * - read: one GET; the live key and labels as inputs, so an out-of-band edit shows per property after a refresh.
 * - delete: ours only, then waits until gone. Harvester does not check a KeyPair's delete (its webhook has no
 *   DELETE rule, there is no finalizer): VMs made with the key keep it, as cloud-init copied it into them.
 */
import { waitFor, waitForDeletion } from '../../await';
import { progressFor, type ProgressSink } from '../../core/progress';
import { HarvesterClient } from '../../client/harvester-client';
import type { KeyPair } from '../../client/objects';
import { assertOwned, isOwnedBy, notOwnedError } from '../../client/ownership';
import { connectionFor } from '../../core/connection';
import { parseDuration } from '../../core/duration';
import { checkInputs, deleteBeforeReplaceDiff, parseChecked, userInputs } from '../../core/check-flow';
import { withoutUnrecorded } from '../../core/imported';
import { recordPartial, unfinishedLines, type WriteOperation } from '../../core/partial';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { keyPairSchema, OUTPUT_ONLY, type KeyPairInputs, type KeyPairOutputs } from './model';
import { desiredKeyPair, diffInputs, driftOf, keyPairId, keyPairOwner, liveInputs, toOutputs, validation } from './plan';
import { validateInputs } from './validate';

type Raw = Record<string, unknown>;

export interface KeyPairProviderOptions {
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Progress lines of the waits and the key pair they are about. @default dropped */
  onProgress?: ProgressSink;
}

const fail = (property: string, reason: string): CheckFailure => ({ property, reason: `${property}: ${reason}` });

/** [namespace, name] of an id ("namespace/name"; a bare name is in "default"). */
const splitId = (id: string, recorded: Partial<KeyPairOutputs>): [string, string] =>
  id.includes('/') ? (id.split('/', 2) as [string, string]) : [recorded.namespace ?? 'default', id];

export function createKeyPairProvider(options: KeyPairProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clientFor = (props: Partial<KeyPairInputs>) => connect({ kubeconfig: props.kubeconfig, context: props.context });

  async function clusterFailures(inputs: KeyPairInputs, client: HarvesterClient): Promise<CheckFailure[]> {
    const out: CheckFailure[] = [];
    if (!(await client.namespaces.get(inputs.namespace))) out.push(fail('namespace', `namespace ${inputs.namespace} does not exist: create it, or choose an existing one`));
    const same = await client.keyPairs.get(inputs.name, inputs.namespace);
    if (same && !isOwnedBy(same, keyPairOwner(inputs))) {
      const err = notOwnedError(same, keyPairOwner(inputs), 'manage', 'KeyPair');
      out.push(fail('name', `${err.message} Or import it (id "${keyPairId(inputs)}"), or delete it (\`kubectl delete keypair -n ${inputs.namespace} ${inputs.name}\`) if nothing uses it.`));
    }
    return out;
  }

  /** Brings the key pair to the inputs (creating it, or patching ours) and waits until Harvester validated it. */
  async function converge(inputs: KeyPairInputs, op: WriteOperation): Promise<KeyPairOutputs> {
    const client = await clientFor(inputs);
    const live = await client.keyPairs.get(inputs.name, inputs.namespace);
    const desired = desiredKeyPair(inputs);
    if (!live) {
      await client.keyPairs.create(desired);
    } else {
      assertOwned(live, keyPairOwner(inputs), op, 'KeyPair');
      // Labels we no longer set are removed (null); Harvester's and Kubernetes' own labels are left alone.
      const dropped = Object.keys(liveInputs(live).labels).filter((k) => !(k in desired.metadata.labels!));
      const labels = { ...desired.metadata.labels, ...Object.fromEntries(dropped.map((k) => [k, null])) };
      await client.keyPairs.mergePatch(inputs.name, { metadata: { labels }, spec: desired.spec }, { namespace: inputs.namespace, owner: keyPairOwner(inputs) });
    }
    return toOutputs(inputs, await waitValidated(client, inputs, op));
  }

  /** create/update: converge, a failure after the first write recorded with the key pair as it is. */
  function apply(inputs: KeyPairInputs, op: WriteOperation): Promise<KeyPairOutputs> {
    return recordPartial(() => converge(inputs, op), {
      id: keyPairId(inputs),
      op,
      object: `KeyPair ${keyPairId(inputs)}`,
      observe: async (drift) => {
        const live = await (await clientFor(inputs)).keyPairs.get(inputs.name, inputs.namespace);
        return live && isOwnedBy(live, keyPairOwner(inputs)) ? toOutputs(inputs, live, drift) : undefined;
      },
    });
  }

  async function waitValidated(client: HarvesterClient, inputs: KeyPairInputs, op: WriteOperation): Promise<KeyPair> {
    const [kp] = await waitFor<KeyPair>({
      resource: client.keyPairs,
      namespace: inputs.namespace,
      name: inputs.name,
      timeoutMs: parseDuration(inputs.timeouts[op]) ?? 60_000,
      what: `KeyPair ${keyPairId(inputs)} to be validated`,
      timeoutOption: `timeouts.${op}`,
      onProgress: progressFor(options.onProgress, inputs),
      check: ([current]) => validation(keyPairId(inputs), current),
    });
    return kp;
  }

  return {
    check: (olds: Raw, news: Raw): Promise<CheckResult<Raw>> =>
      checkInputs(olds, news, validateInputs, (inputs) => clientFor(inputs).then((client) => clusterFailures(inputs, client))),

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<KeyPairOutputs>, userInputs(news) as Partial<KeyPairInputs>);
      // The same namespace/name: the old key pair must go before the new one is made.
      return deleteBeforeReplaceDiff(d);
    },

    async create(raw: Raw): Promise<CreateResult<KeyPairOutputs>> {
      const inputs = parseChecked('HarvesterKeyPair', raw, validateInputs);
      return { id: keyPairId(inputs), outs: await apply(inputs, 'create') };
    },

    async read(id: string, props?: Raw): Promise<ReadResult<KeyPairOutputs>> {
      const recorded = (props ?? {}) as Partial<KeyPairOutputs>;
      const [ns, name] = splitId(id, recorded);
      const live = await (await clientFor(recorded)).keyPairs.get(recorded.name ?? name, recorded.namespace ?? ns);
      if (!live) return {};
      const importing = recorded.publicKey === undefined;
      const base = keyPairSchema.parse({
        name: live.metadata.name,
        namespace: live.metadata.namespace,
        ...liveInputs(live),
        timeouts: recorded.timeouts,
        kubeconfig: recorded.kubeconfig,
        context: recorded.context,
      });
      const drift = importing ? [] : [...driftOf(recorded as KeyPairInputs, live), ...unfinishedLines(recorded.drift)];
      const read = toOutputs(base, live, drift);
      const outs = importing ? withoutUnrecorded(read) : read;
      const inputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !OUTPUT_ONLY.includes(k) && v !== undefined));
      return { id: keyPairId(base), props: outs, inputs };
    },

    async update(_id: string, _olds: Raw, news: Raw): Promise<UpdateResult<KeyPairOutputs>> {
      return { outs: await apply(parseChecked('HarvesterKeyPair', news, validateInputs), 'update') };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = props as Partial<KeyPairOutputs>;
      const [ns, name] = splitId(id, recorded);
      const [namespace, kpName] = [recorded.namespace ?? ns, recorded.name ?? name];
      const client = await clientFor(recorded);
      const live = await client.keyPairs.get(kpName, namespace);
      if (!live || !isOwnedBy(live, keyPairOwner({ name: kpName }))) return; // never delete what we do not own
      await client.keyPairs.delete(kpName, { namespace, owner: keyPairOwner({ name: kpName }) });
      await waitForDeletion<KeyPair>({
        resource: client.keyPairs,
        namespace,
        name: kpName,
        timeoutMs: parseDuration(recorded.timeouts?.delete ?? '1m') ?? 60_000,
        timeoutOption: 'timeouts.delete',
        what: `KeyPair ${namespace}/${kpName} to be deleted`,
        onProgress: progressFor(options.onProgress, { name: kpName }),
      });
    },
  };
}

export type KeyPairProvider = ReturnType<typeof createKeyPairProvider>;
