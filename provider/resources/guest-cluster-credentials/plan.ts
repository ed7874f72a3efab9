/**
 * Pure planning of GuestClusterCredentials: the objects Harvester's generator makes (names.ts), stamped with our
 * ownership; the live objects read back in the inputs' own shape (a ClusterRoleBinding deleted by hand reads as
 * bindCsiDriverRole false), the drift lines and the outputs.
 *
 * Ownership: objects we create carry the ownership labels (client/ownership.ts). An import adopts what the
 * generator or Rancher made, writing nothing (core/imported.ts: import plans nothing); its record holds the
 * ServiceAccount's uid, which every other object names as its owner. That uid is this resource's proof of
 * adoption: an object carrying our labels, or owned by the recorded ServiceAccount, is ours to change and delete,
 * and the next write (an update, a heal, a rotation) stamps the labels on it.
 */
import type { CheckResult as WaitVerdict } from '../../await';
import type { KubeObject, RoleBinding, Secret, ServiceAccount } from '../../client/objects';
import { isOwnedBy, stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { driftValue } from '../../core/hash';
import type { GuestClusterCredentialsInputs, GuestClusterCredentialsOutputs } from './model';
import { CLOUD_PROVIDER_ROLE, CSI_DRIVER_ROLE, credentialNames, renderCloudInit, renderKubeconfig, type CredentialNames } from './names';

export const RESOURCE_TYPE = 'guest-cluster-credentials';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** The annotation recording the guest cluster's name on the ServiceAccount (what an import reads clusterName from). */
export const CLUSTER_NAME_ANNOTATION = 'harvester-iac.io/guest-cluster';
/** The annotation recording the rotation trigger the token Secret was issued under. */
export const ROTATION_ANNOTATION = 'harvester-iac.io/rotation-trigger';
/** The annotation recording the serverUrl input on the token Secret (so an import reads it back). */
export const SERVER_ANNOTATION = 'harvester-iac.io/server-url';
/** The annotations this resource writes: one absent from the desired object is removed from the live one. */
export const OWNED_ANNOTATIONS = [CLUSTER_NAME_ANNOTATION, ROTATION_ANNOTATION, SERVER_ANNOTATION] as const;
const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
export const TOKEN_SECRET_TYPE = 'kubernetes.io/service-account-token';

type Identity = Pick<GuestClusterCredentialsInputs, 'namespace' | 'serviceAccountName'>;

/** The resource's id and owner name: `namespace/serviceAccountName`. */
export const credentialsId = (i: Identity) => `${i.namespace}/${i.serviceAccountName}`;
export const credentialsOwner = (i: Identity): OwnerIdentity => ({ resourceType: RESOURCE_TYPE, resourceName: credentialsId(i) });
export const namesOf = (i: Identity): CredentialNames => credentialNames(i.namespace, i.serviceAccountName);

/** True when `obj` is ours: our labels, or owned by the ServiceAccount an import recorded (`adoptedUid`). */
export function isOurs(obj: KubeObject, owner: OwnerIdentity, adoptedUid?: string): boolean {
  if (isOwnedBy(obj, owner)) return true;
  if (!adoptedUid) return false;
  return obj.metadata.uid === adoptedUid || (obj.metadata.ownerReferences ?? []).some((r) => r.kind === 'ServiceAccount' && r.uid === adoptedUid);
}

const ownerRefTo = (sa: ServiceAccount) => [{ apiVersion: 'v1', kind: 'ServiceAccount', name: sa.metadata.name as string, uid: sa.metadata.uid as string }];

export function desiredServiceAccount(inputs: GuestClusterCredentialsInputs): ServiceAccount {
  return stampOwnership(
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: inputs.serviceAccountName, namespace: inputs.namespace, annotations: { [CLUSTER_NAME_ANNOTATION]: inputs.clusterName } } },
    credentialsOwner(inputs),
  );
}

/** The token Secret the token controller fills, owned by the ServiceAccount (as the generator makes it). */
export function desiredTokenSecret(inputs: GuestClusterCredentialsInputs, sa: ServiceAccount): Secret {
  const annotations: Record<string, string> = { [SA_NAME_ANNOTATION]: inputs.serviceAccountName, [SA_UID_ANNOTATION]: sa.metadata.uid as string };
  if (inputs.rotationTrigger !== undefined) annotations[ROTATION_ANNOTATION] = inputs.rotationTrigger;
  if (inputs.serverUrl !== undefined) annotations[SERVER_ANNOTATION] = inputs.serverUrl;
  const metadata = { name: namesOf(inputs).tokenSecret, namespace: inputs.namespace, ownerReferences: ownerRefTo(sa), annotations };
  return stampOwnership({ apiVersion: 'v1', kind: 'Secret', type: TOKEN_SECRET_TYPE, metadata }, credentialsOwner(inputs));
}

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', inputs: GuestClusterCredentialsInputs, sa: ServiceAccount): RoleBinding {
  const names = namesOf(inputs);
  const metadata: RoleBinding['metadata'] = kind === 'RoleBinding'
    ? { name: names.roleBinding, namespace: inputs.namespace, ownerReferences: ownerRefTo(sa) }
    : { name: names.clusterRoleBinding, ownerReferences: ownerRefTo(sa) };
  return stampOwnership({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind,
    metadata,
    subjects: [{ kind: 'ServiceAccount', namespace: inputs.namespace, name: inputs.serviceAccountName }],
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: kind === 'RoleBinding' ? CLOUD_PROVIDER_ROLE : CSI_DRIVER_ROLE },
  }, credentialsOwner(inputs));
}

/** The RoleBinding to harvesterhci.io:cloudprovider in the VMs' namespace. */
export const desiredRoleBinding = (inputs: GuestClusterCredentialsInputs, sa: ServiceAccount) => binding('RoleBinding', inputs, sa);
/** The ClusterRoleBinding to harvesterhci.io:csi-driver. */
export const desiredClusterRoleBinding = (inputs: GuestClusterCredentialsInputs, sa: ServiceAccount) => binding('ClusterRoleBinding', inputs, sa);

/** True when a live binding grants what the desired one grants (its role, to the ServiceAccount, owned by it). */
export function bindingHolds(live: RoleBinding | undefined, desired: RoleBinding): boolean {
  if (!live || live.metadata.deletionTimestamp) return false;
  const ref = live.roleRef ?? ({} as RoleBinding['roleRef']);
  const subject = desired.subjects?.[0];
  return ref.kind === desired.roleRef.kind && ref.name === desired.roleRef.name && ref.apiGroup === desired.roleRef.apiGroup
    && (live.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === subject?.name && s.namespace === subject?.namespace);
}

/** The token Secret's `token` and `ca.crt`, once the token controller filled both. */
export function issuedToken(secret: Secret | undefined): { token: string; caBase64: string } | undefined {
  const token = secret?.data?.token;
  const ca = secret?.data?.['ca.crt'];
  if (!token || !ca || secret?.metadata.deletionTimestamp) return undefined;
  return { token: Buffer.from(token, 'base64').toString('utf8'), caBase64: ca };
}

/** The wait's verdict on the token Secret: done once it holds a token and ca.crt. */
export function tokenReadiness(name: string, secret: Secret | undefined): WaitVerdict {
  if (issuedToken(secret)) return { done: true, description: `Secret ${name} holds a token and ca.crt` };
  const why = secret ? 'waiting for the token controller to fill token and ca.crt' : 'the Secret does not exist yet';
  return { done: false, description: `Secret ${name}: ${why}`, pending: [why] };
}

/** The live objects of one set of credentials (undefined: absent). */
export interface LiveCredentials {
  serviceAccount?: ServiceAccount;
  tokenSecret?: Secret;
  roleBinding?: RoleBinding;
  clusterRoleBinding?: RoleBinding;
}

/** The live objects as inputs; what the cluster does not record comes from `recorded`. */
export function liveInputs(recorded: Partial<GuestClusterCredentialsInputs>, live: LiveCredentials & { serviceAccount: ServiceAccount }): GuestClusterCredentialsInputs {
  const sa = live.serviceAccount;
  const identity = { namespace: sa.metadata.namespace as string, serviceAccountName: sa.metadata.name as string };
  const inputs = {
    ...recorded,
    clusterName: sa.metadata.annotations?.[CLUSTER_NAME_ANNOTATION] ?? recorded.clusterName ?? identity.serviceAccountName,
    ...identity,
    bindCsiDriverRole: bindingHolds(live.clusterRoleBinding, desiredClusterRoleBinding({ ...recorded, ...identity } as GuestClusterCredentialsInputs, sa)),
  } as GuestClusterCredentialsInputs;
  // Recorded on the token Secret; a Secret gone (drift) keeps the recorded values.
  if (live.tokenSecret) {
    const annotations = live.tokenSecret.metadata.annotations ?? {};
    for (const [key, input] of [[ROTATION_ANNOTATION, 'rotationTrigger'], [SERVER_ANNOTATION, 'serverUrl']] as const) {
      if (annotations[key] !== undefined) inputs[input] = annotations[key];
      else delete inputs[input];
    }
  }
  return inputs;
}

/** One line per object that is not what the recorded inputs made (never quoting the token). */
export function driftOf(recorded: GuestClusterCredentialsInputs, live: LiveCredentials & { serviceAccount: ServiceAccount }): string[] {
  const names = namesOf(recorded);
  const ns = recorded.namespace;
  const out: string[] = [];
  const now = liveInputs(recorded, live);
  if (now.clusterName !== recorded.clusterName) out.push(`ServiceAccount ${ns}/${names.serviceAccount}: clusterName is ${driftValue(now.clusterName)}, this resource set ${driftValue(recorded.clusterName)}`);
  if (!issuedToken(live.tokenSecret)) out.push(`Secret ${ns}/${names.tokenSecret}: ${live.tokenSecret ? 'holds no token' : 'missing (deleted outside Pulumi)'}; the next \`pulumi up\` issues a new token`);
  else {
    for (const input of ['rotationTrigger', 'serverUrl'] as const) {
      if (now[input] !== recorded[input]) out.push(`Secret ${ns}/${names.tokenSecret}: ${input} is ${driftValue(now[input])}, this resource set ${driftValue(recorded[input])}`);
    }
  }
  if (!bindingHolds(live.roleBinding, desiredRoleBinding(recorded, live.serviceAccount))) {
    out.push(`RoleBinding ${ns}/${names.roleBinding}: ${live.roleBinding ? `no longer binds ${CLOUD_PROVIDER_ROLE} to ServiceAccount ${names.serviceAccount} (edited outside Pulumi)` : 'missing (deleted outside Pulumi)'}; the next \`pulumi up\` restores it`);
  }
  if (now.bindCsiDriverRole !== recorded.bindCsiDriverRole) {
    out.push(`ClusterRoleBinding ${names.clusterRoleBinding}: bindCsiDriverRole is ${now.bindCsiDriverRole}, this resource set ${recorded.bindCsiDriverRole}`);
  }
  return out;
}

/** The outputs from inputs, the live objects and the server written into the kubeconfig. */
export function toOutputs(inputs: GuestClusterCredentialsInputs, live: LiveCredentials & { serviceAccount: ServiceAccount }, server: string, drift: string[] = []): GuestClusterCredentialsOutputs {
  const names = namesOf(inputs);
  const issued = issuedToken(live.tokenSecret);
  const cloudConfig = issued ? renderKubeconfig({ server, caBase64: issued.caBase64, token: issued.token, namespace: inputs.namespace }) : '';
  return {
    ...inputs,
    server,
    tokenSecretName: names.tokenSecret,
    roleBindingName: names.roleBinding,
    clusterRoleBindingName: names.clusterRoleBinding,
    serviceAccountUid: live.serviceAccount.metadata.uid ?? '',
    cloudConfig,
    cloudInit: cloudConfig ? renderCloudInit(cloudConfig) : '',
    drift,
  };
}

/**
 * Whether writing `news` rotates the token: the trigger the live Secret was issued under differs, on a Secret of
 * ours. The first write after an import (the Secret not labelled yet) records the trigger without rotating.
 */
export function rotates(news: GuestClusterCredentialsInputs, tokenSecret: Secret | undefined): boolean {
  if (!tokenSecret || !isOwnedBy(tokenSecret, credentialsOwner(news))) return false;
  return tokenSecret.metadata.annotations?.[ROTATION_ANNOTATION] !== news.rotationTrigger;
}

/**
 * The ServiceAccount uid whose objects an update may adopt: the recorded inputs name the same ServiceAccount
 * (this resource already manages it: created or imported), and its token Secret names it as owner (the set the
 * generator or Rancher made). Undefined otherwise: an object without our labels is then not ours.
 */
export function adoptableUid(recorded: Partial<Identity>, news: Identity, live: LiveCredentials): string | undefined {
  if (recorded.namespace !== news.namespace || recorded.serviceAccountName !== news.serviceAccountName) return undefined;
  const uid = live.serviceAccount?.metadata.uid;
  const owned = (live.tokenSecret?.metadata.ownerReferences ?? []).some((r) => r.kind === 'ServiceAccount' && r.uid === uid);
  return uid && owned ? uid : undefined;
}
