/**
 * GuestClusterCredentials' provider handlers (dynamic.ResourceProvider shape):
 * model (model.ts) → pure names, rules and plan (names.ts, validate.ts, plan.ts) → the API calls here.
 *
 * - check: every input rule; then against the cluster what apply would refuse: the namespace and the two
 *   Harvester ClusterRoles exist, and no object of the names Harvester's generator uses is someone else's
 *   (plan.ts: what an import adopted is ours). Nothing is written.
 * - create/update: ServiceAccount and token Secret (when rotationTrigger changes, every object is made again
 *   under the same names: only a new ServiceAccount uid makes a new legacy token; the old one dies), a watch until the token controller filled token and ca.crt, then the RoleBinding and (bindCsiDriverRole)
 *   the ClusterRoleBinding; a binding edited by hand is recreated (roleRef is immutable). A failure after the
 *   first write is recorded with what exists (core/partial.ts).
 * - read: four GETs; the live objects as inputs plus drift lines; an import (`namespace/serviceAccount`) reads
 *   what the generator or Rancher made, writing nothing.
 * - delete: every object of ours (bindings, token Secret, ServiceAccount), waiting until each is gone.
 * The token is registered with the redactor the moment it is read: it never reaches a message or a log line.
 */
import { waitFor, waitForDeletion } from '../../await';
import { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject, RoleBinding, Secret } from '../../client/objects';
import { notOwnedError, type OwnerIdentity } from '../../client/ownership';
import { registerSecret } from '../../client/redact';
import type { ResourceClient } from '../../client/resource-client';
import { checkInputs, deleteBeforeReplaceDiff, parseChecked, userInputs } from '../../core/check-flow';
import { connectionFor } from '../../core/connection';
import { ProviderError } from '../../core/errors';
import { parseDuration } from '../../core/duration';
import { withoutUnrecorded } from '../../core/imported';
import { recordPartial, unfinishedLines, type WriteOperation } from '../../core/partial';
import { progressFor, type ProgressSink } from '../../core/progress';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { OUTPUT_ONLY, guestClusterCredentialsSchema, type GuestClusterCredentialsInputs, type GuestClusterCredentialsOutputs } from './model';
import { CLOUD_PROVIDER_ROLE, CSI_DRIVER_ROLE } from './names';
import {
  NOT_ON_CLUSTER, OWNED_ANNOTATIONS, adoptableUid, bindingHolds, credentialsId, credentialsOwner, desiredClusterRoleBinding,
  desiredRoleBinding, desiredServiceAccount, desiredTokenSecret, diffInputs, driftOf, isOurs, issuedToken, liveInputs, namesOf, rotates, toOutputs,
  tokenReadiness, type LiveCredentials,
} from './plan';
import { validateInputs } from './validate';

type Raw = Record<string, unknown>;
type Identity = Pick<GuestClusterCredentialsInputs, 'namespace' | 'serviceAccountName'>;
type Recorded = Partial<GuestClusterCredentialsOutputs>;

export interface GuestClusterCredentialsProviderOptions {
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Progress lines of the waits and the credentials they are about. @default dropped */
  onProgress?: ProgressSink;
}

/** Who writes, and how long a wait may take. */
interface WriteContext {
  owner: OwnerIdentity;
  /** The ServiceAccount uid whose objects an import adopted (plan.ts adoptableUid). */
  adopted?: string;
  op: WriteOperation;
  timeoutMs: number;
}

const fail = (property: string, reason: string): CheckFailure => ({ property, reason: `${property}: ${reason}` });

/** `namespace/serviceAccount` as an identity (import's id). */
export function parseId(id: string): Identity | undefined {
  const [namespace, serviceAccountName, ...rest] = id.split('/');
  return namespace && serviceAccountName && rest.length === 0 ? { namespace, serviceAccountName } : undefined;
}

/** The four objects of one set of credentials, as they are. */
async function observe(client: HarvesterClient, id: Identity): Promise<LiveCredentials> {
  const names = namesOf(id);
  const [serviceAccount, tokenSecret, roleBinding, clusterRoleBinding] = await Promise.all([
    client.serviceAccounts.get(names.serviceAccount, id.namespace),
    client.secrets.get(names.tokenSecret, id.namespace),
    client.roleBindings.get(names.roleBinding, id.namespace),
    client.clusterRoleBindings.get(names.clusterRoleBinding),
  ]);
  registerSecret(issuedToken(tokenSecret)?.token);
  return { serviceAccount, tokenSecret, roleBinding, clusterRoleBinding };
}

/** Objects of ours among the live ones, each with the client that deletes it (bindings first, the ServiceAccount last). */
function ownedObjects(client: HarvesterClient, live: LiveCredentials, owner: OwnerIdentity, adoptedUid: string | undefined) {
  const all: [KubeObject | undefined, ResourceClient<KubeObject>][] = [
    [live.clusterRoleBinding, client.clusterRoleBindings as ResourceClient<KubeObject>],
    [live.roleBinding, client.roleBindings as ResourceClient<KubeObject>],
    [live.tokenSecret, client.secrets as ResourceClient<KubeObject>],
    [live.serviceAccount, client.serviceAccounts as ResourceClient<KubeObject>],
  ];
  return all.filter((e): e is [KubeObject, ResourceClient<KubeObject>] => !!e[0] && isOurs(e[0], owner, adoptedUid));
}

/** Deletes every object of ours among `live`, waiting until each is gone. */
async function removeOwned(client: HarvesterClient, live: LiveCredentials, write: Omit<WriteContext, 'op'> & { timeoutOption: string; onProgress?: (line: string) => void }): Promise<void> {
  for (const [obj, resource] of ownedObjects(client, live, write.owner, write.adopted)) {
    const { name, namespace } = obj.metadata as { name: string; namespace?: string };
    await resource.delete(name, { namespace });
    await waitForDeletion<KubeObject>({ resource, name, namespace, timeoutMs: write.timeoutMs, timeoutOption: write.timeoutOption, what: `${resource.describe(name, namespace)} to be deleted`, onProgress: write.onProgress });
  }
}

export function createGuestClusterCredentialsProvider(options: GuestClusterCredentialsProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clientFor = (props: Partial<GuestClusterCredentialsInputs>) => connect({ kubeconfig: props.kubeconfig, context: props.context });

  /** Someone else's objects under our names, the namespace and the roles: what apply would refuse. */
  async function clusterFailures(inputs: GuestClusterCredentialsInputs, recorded: Partial<Identity>, client: HarvesterClient): Promise<CheckFailure[]> {
    const out: CheckFailure[] = [];
    const [namespace, cloudRole, csiRole, live] = await Promise.all([
      client.namespaces.get(inputs.namespace),
      client.clusterRoles.get(CLOUD_PROVIDER_ROLE),
      inputs.bindCsiDriverRole ? client.clusterRoles.get(CSI_DRIVER_ROLE) : Promise.resolve({} as KubeObject),
      observe(client, inputs),
    ]);
    if (!namespace) out.push(fail('namespace', `namespace ${inputs.namespace} does not exist: name the namespace the guest cluster's VMs live in`));
    const missingRole = (role: string) => `ClusterRole ${role} does not exist on the cluster (Harvester's chart installs it: is this a Harvester cluster, of v1.2 or later?)`;
    if (!cloudRole) out.push(fail('namespace', `${missingRole(CLOUD_PROVIDER_ROLE)}: the RoleBinding in ${inputs.namespace} would grant nothing`));
    if (!csiRole) out.push(fail('bindCsiDriverRole', `${missingRole(CSI_DRIVER_ROLE)}: set bindCsiDriverRole to false if the guest runs no Harvester CSI driver`));
    const owner = credentialsOwner(inputs);
    const adopted = adoptableUid(recorded, inputs, live);
    const objects: [KubeObject | undefined, string][] = [[live.serviceAccount, 'ServiceAccount'], [live.tokenSecret, 'Secret'], [live.roleBinding, 'RoleBinding']];
    if (inputs.bindCsiDriverRole) objects.push([live.clusterRoleBinding, 'ClusterRoleBinding']);
    for (const [obj, kind] of objects) {
      if (!obj || isOurs(obj, owner, adopted)) continue;
      const adopt = kind === 'ServiceAccount' ? ` Or import what Harvester's generator (or Rancher) made: id "${credentialsId(inputs)}".` : '';
      out.push(fail('serviceAccountName', `${notOwnedError(obj, owner, 'manage', kind).message}${adopt}`));
    }
    return out;
  }

  /** Creates `desired`, or brings a live object of ours to it (labels stamped; a binding edited by hand recreated). */
  async function ensure<T extends KubeObject>(
    resource: ResourceClient<T>, desired: T, live: T | undefined, write: WriteContext, recreate: (live: T) => boolean,
  ): Promise<T> {
    const { name, namespace } = desired.metadata as { name: string; namespace?: string };
    if (live && !isOurs(live, write.owner, write.adopted)) throw notOwnedError(live, write.owner, write.op, desired.kind);
    if (live && recreate(live)) {
      await resource.delete(name, { namespace });
      await waitForDeletion<T>({ resource, name, namespace, timeoutMs: write.timeoutMs, what: `${resource.describe(name, namespace)} to be replaced`, timeoutOption: `timeouts.${write.op}` });
      live = undefined;
    }
    if (!live) return resource.create(desired);
    const labels = desired.metadata.labels ?? {};
    const annotations: Record<string, string | null> = { ...desired.metadata.annotations };
    for (const key of OWNED_ANNOTATIONS) if (!(key in annotations) && live.metadata.annotations?.[key] !== undefined) annotations[key] = null;
    const stale = Object.entries(labels).some(([k, v]) => live!.metadata.labels?.[k] !== v) || Object.entries(annotations).some(([k, v]) => (live!.metadata.annotations?.[k] ?? null) !== v);
    return stale ? resource.mergePatch(name, { metadata: { labels, annotations } }, { namespace }) : live;
  }

  /** Brings the four objects to the inputs, waiting for the token; the outputs of the result. */
  async function converge(inputs: GuestClusterCredentialsInputs, op: WriteOperation, recorded: Recorded): Promise<GuestClusterCredentialsOutputs> {
    const client = await clientFor(inputs);
    const owner = credentialsOwner(inputs);
    const names = namesOf(inputs);
    // What check refuses, up refuses before its first write (a binding to a missing role would be accepted by the API).
    const refused = await clusterFailures(inputs, recorded, client);
    if (refused.length) {
      throw new ProviderError('InvalidInputs', `The GuestClusterCredentials inputs are refused by the cluster:\n${refused.map((f) => `  - ${f.reason}`).join('\n')}\n`, { fix: 'Fix the inputs above and run again.' });
    }
    let live = await observe(client, inputs);
    const adopted = adoptableUid(recorded, inputs, live);
    const write: WriteContext = { owner, adopted, op, timeoutMs: parseDuration(inputs.timeouts[op]) ?? 120_000 };
    const mine = (o: KubeObject) => isOurs(o, owner, adopted);
    const onProgress = progressFor(options.onProgress, { namespace: inputs.namespace, name: inputs.serviceAccountName });
    if (rotates(inputs, live.tokenSecret)) {
      // A legacy token is a signature over the ServiceAccount's name and uid and the Secret's name: a Secret made
      // again under the same name for the same ServiceAccount holds the same token (RSA signatures are
      // deterministic), and the old one would work again. Only a new ServiceAccount (a new uid) makes a new token.
      await removeOwned(client, live, { ...write, timeoutOption: `timeouts.${op}`, onProgress });
      live = {};
    }
    const ownerOf = (o: KubeObject) => o.metadata.ownerReferences?.[0]?.uid;
    const sa = await ensure(client.serviceAccounts, desiredServiceAccount(inputs), live.serviceAccount, write, () => false);
    // A ServiceAccount recreated by hand: the old Secret names a uid that is gone (its token is dead): a new one.
    const secret = await ensure(client.secrets, desiredTokenSecret(inputs, sa), live.tokenSecret, write, (s) => ownerOf(s) !== sa.metadata.uid);
    const [filled] = await waitFor<Secret>({
      resource: client.secrets, name: names.tokenSecret, namespace: inputs.namespace,
      timeoutMs: write.timeoutMs, timeoutOption: `timeouts.${op}`,
      what: `Secret ${inputs.namespace}/${names.tokenSecret} to hold a token and ca.crt`,
      onProgress,
      check: ([s]) => (s && s.metadata.uid !== secret.metadata.uid ? { done: false, description: 'the Secret was replaced', pending: ['token'] } : tokenReadiness(names.tokenSecret, s)),
    });
    const roleBinding = await ensure(client.roleBindings, desiredRoleBinding(inputs, sa), live.roleBinding, write, (b) => !bindingHolds(b, desiredRoleBinding(inputs, sa)));
    let clusterRoleBinding: RoleBinding | undefined;
    if (inputs.bindCsiDriverRole) {
      const desired = desiredClusterRoleBinding(inputs, sa);
      clusterRoleBinding = await ensure(client.clusterRoleBindings, desired, live.clusterRoleBinding, write, (b) => !bindingHolds(b, desired));
    } else if (live.clusterRoleBinding && mine(live.clusterRoleBinding)) {
      await client.clusterRoleBindings.delete(names.clusterRoleBinding);
    }
    live = { serviceAccount: sa, tokenSecret: filled, roleBinding, clusterRoleBinding };
    registerSecret(issuedToken(filled)?.token);
    return toOutputs(inputs, { ...live, serviceAccount: sa }, inputs.serverUrl ?? client.connection.server);
  }

  /** create/update: converge; a failure after the first write recorded with what exists of ours. */
  function apply(inputs: GuestClusterCredentialsInputs, op: WriteOperation, recorded: Recorded): Promise<GuestClusterCredentialsOutputs> {
    return recordPartial(() => converge(inputs, op, recorded), {
      id: credentialsId(inputs),
      op,
      object: `ServiceAccount ${credentialsId(inputs)}`,
      observe: async (drift) => {
        const client = await clientFor(inputs);
        const live = await observe(client, inputs);
        const sa = live.serviceAccount;
        if (!sa || !isOurs(sa, credentialsOwner(inputs), adoptableUid(recorded, inputs, live))) return undefined;
        return toOutputs(inputs, { ...live, serviceAccount: sa }, inputs.serverUrl ?? client.connection.server, drift);
      },
    });
  }

  return {
    check: (olds: Raw, news: Raw): Promise<CheckResult<Raw>> => {
      const recorded = (validateInputs(userInputs(olds)).inputs ?? userInputs(olds)) as Partial<Identity>;
      return checkInputs(olds, news, validateInputs, (inputs) => clientFor(inputs).then((client) => clusterFailures(inputs, recorded, client)));
    },

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Recorded, userInputs(news) as Partial<GuestClusterCredentialsInputs>);
      // Fixed names: the old objects must go before the new ones are made (trap 7).
      return deleteBeforeReplaceDiff(d);
    },

    async create(raw: Raw): Promise<CreateResult<GuestClusterCredentialsOutputs>> {
      const inputs = parseChecked('GuestClusterCredentials', raw, validateInputs);
      return { id: credentialsId(inputs), outs: await apply(inputs, 'create', {}) };
    },

    async read(id: string, props?: Raw): Promise<ReadResult<GuestClusterCredentialsOutputs>> {
      const recorded = (props ?? {}) as Recorded;
      const identity = recorded.namespace && recorded.serviceAccountName ? (recorded as Identity) : parseId(id);
      if (!identity) return {};
      const client = await clientFor(recorded);
      const live = await observe(client, identity);
      const sa = live.serviceAccount;
      if (!sa) return {};
      const importing = recorded.clusterName === undefined;
      const withSa = { ...live, serviceAccount: sa };
      const base = liveInputs({ timeouts: recorded.timeouts, serverUrl: recorded.serverUrl, kubeconfig: recorded.kubeconfig, context: recorded.context, clusterName: recorded.clusterName, bindCsiDriverRole: recorded.bindCsiDriverRole ?? true }, withSa);
      const inputs = { ...guestClusterCredentialsSchema.parse(base), serviceAccountName: base.serviceAccountName };
      const drift = importing ? [] : [...driftOf(recorded as GuestClusterCredentialsInputs, withSa), ...unfinishedLines(recorded.drift)];
      const read = toOutputs(inputs, withSa, recorded.server ?? inputs.serverUrl ?? client.connection.server, drift);
      const outs = importing ? withoutUnrecorded(read, NOT_ON_CLUSTER) : read;
      const readInputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !OUTPUT_ONLY.includes(k) && v !== undefined));
      return { id: credentialsId(identity), props: outs, inputs: readInputs };
    },

    async update(_id: string, olds: Raw, news: Raw): Promise<UpdateResult<GuestClusterCredentialsOutputs>> {
      return { outs: await apply(parseChecked('GuestClusterCredentials', news, validateInputs), 'update', olds as Recorded) };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = props as Recorded;
      const identity = recorded.namespace && recorded.serviceAccountName ? (recorded as Identity) : parseId(id);
      if (!identity) return;
      const client = await clientFor(recorded);
      const live = await observe(client, identity);
      // What an import adopted is ours only while it is the very ServiceAccount the import recorded.
      const adopted = recorded.serviceAccountUid && live.serviceAccount?.metadata.uid === recorded.serviceAccountUid ? recorded.serviceAccountUid : undefined;
      const timeoutMs = parseDuration(recorded.timeouts?.delete ?? '2m') ?? 120_000;
      const onProgress = progressFor(options.onProgress, { namespace: identity.namespace, name: identity.serviceAccountName });
      await removeOwned(client, live, { owner: credentialsOwner(identity), adopted, timeoutMs, timeoutOption: 'timeouts.delete', onProgress });
    },
  };
}

export type GuestClusterCredentialsProvider = ReturnType<typeof createGuestClusterCredentialsProvider>;
