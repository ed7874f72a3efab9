/**
 * The writes of GuestClusterCredentials: bringing its four objects to the inputs, and removing those of ours.
 * - ensure: creates an object, or brings a live one of ours to it (labels and our annotations stamped); a binding
 *   edited by hand is deleted and made again (roleRef is immutable).
 * - converge: ServiceAccount, token Secret, a watch until the token controller filled token and ca.crt, the
 *   RoleBinding, and the ClusterRoleBinding while bindCsiDriverRole (ours deleted when it is turned off: the rights
 *   go in the same up). When rotationTrigger changes every object is made again under the same names: a legacy
 *   token is a signature over the ServiceAccount's name and uid, so only a new ServiceAccount makes a new token.
 * The token is registered with the redactor the moment it is read: it never reaches a message or a log line.
 */
import { waitFor, waitForDeletion } from '../../await';
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject, RoleBinding, Secret } from '../../client/objects';
import { notOwnedError, type OwnerIdentity } from '../../client/ownership';
import { registerSecret } from '../../client/redact';
import type { ResourceClient } from '../../client/resource-client';
import type { WriteOperation } from '../../core/partial';
import type { ResourceContext } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import type { GuestClusterCredentialsInputs } from './model';
import {
  OWNED_ANNOTATIONS, bindingHolds, credentialsOwner, desiredClusterRoleBinding, desiredRoleBinding, desiredServiceAccount, desiredTokenSecret,
  isOurs, issuedToken, namesOf, rotates, tokenReadiness, type LiveCredentials,
} from './plan';

type Identity = Pick<GuestClusterCredentialsInputs, 'namespace' | 'serviceAccountName'>;

/** Who writes, and how long a wait may take. */
interface WriteContext {
  owner: OwnerIdentity;
  /** The ServiceAccount uid whose objects an import adopted (plan.ts adoptableUid). */
  adopted?: string;
  op: WriteOperation | 'delete';
  timeoutMs: number;
  onProgress?: (line: string) => void;
}

/** The four objects of one set of credentials, as they are. */
export async function observeCredentials(client: HarvesterClient, id: Identity): Promise<LiveCredentials> {
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
export async function removeOwned(client: HarvesterClient, live: LiveCredentials, write: Omit<WriteContext, 'op'> & { timeoutOption: string }): Promise<void> {
  for (const [obj, resource] of ownedObjects(client, live, write.owner, write.adopted)) {
    const { name, namespace } = obj.metadata as { name: string; namespace?: string };
    await resource.delete(name, { namespace });
    await waitForDeletion<KubeObject>({ resource, name, namespace, timeoutMs: write.timeoutMs, timeoutOption: write.timeoutOption, what: `${resource.describe(name, namespace)} to be deleted`, onProgress: write.onProgress });
  }
}

/** Creates `desired`, or brings a live object of ours to it (labels stamped; `recreate` says when it must be made again). */
async function ensure<T extends KubeObject>(resource: ResourceClient<T>, desired: T, live: T | undefined, write: WriteContext, recreate: (live: T) => boolean): Promise<T> {
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

/** Brings the four objects to the inputs from `live` (what exists, ours or adopted), waiting for the token. */
export async function convergeCredentials(ctx: ResourceContext, inputs: GuestClusterCredentialsInputs, live: LiveCredentials, adopted: string | undefined, op: WriteOperation): Promise<LiveCredentials> {
  const client = ctx.client;
  const names = namesOf(inputs);
  const write: WriteContext = { owner: credentialsOwner(inputs), adopted, op, timeoutMs: timeoutMs(inputs.timeouts, op), onProgress: ctx.progress };
  if (rotates(inputs, live.tokenSecret)) {
    // A Secret made again under the same name for the same ServiceAccount holds the same token (RSA signatures
    // are deterministic), and the old one would work again: everything goes, for a new ServiceAccount uid.
    await removeOwned(client, live, { ...write, timeoutOption: `timeouts.${op}` });
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
    onProgress: ctx.progress,
    check: ([s]) => (s && s.metadata.uid !== secret.metadata.uid ? { done: false, description: 'the Secret was replaced', pending: ['token'] } : tokenReadiness(names.tokenSecret, s)),
  });
  registerSecret(issuedToken(filled)?.token);
  const roleBinding = await ensure(client.roleBindings, desiredRoleBinding(inputs, sa), live.roleBinding, write, (b) => !bindingHolds(b, desiredRoleBinding(inputs, sa)));
  let clusterRoleBinding: RoleBinding | undefined;
  if (inputs.bindCsiDriverRole) {
    const desired = desiredClusterRoleBinding(inputs, sa);
    clusterRoleBinding = await ensure(client.clusterRoleBindings, desired, live.clusterRoleBinding, write, (b) => !bindingHolds(b, desired));
  } else if (live.clusterRoleBinding && isOurs(live.clusterRoleBinding, write.owner, adopted)) {
    // Turned off: the cluster-wide rights go in this same up, not at the next refresh.
    await client.clusterRoleBindings.delete(names.clusterRoleBinding);
  }
  return { serviceAccount: sa, tokenSecret: filled, roleBinding, clusterRoleBinding };
}
