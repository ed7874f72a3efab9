/**
 * GuestClusterCredentials on the reconciler (core/reconciler): a ServiceAccount, its token Secret, a RoleBinding to
 * harvesterhci.io:cloudprovider and (bindCsiDriverRole) a ClusterRoleBinding to harvesterhci.io:csi-driver, with
 * the names and owner references Harvester's generator uses (names.ts), written by apply.ts.
 * - check: every input rule; against the cluster, the namespace and the two Harvester ClusterRoles exist (apply
 *   checks again before its first write: a binding to a missing role would be accepted by the API), and the
 *   reconciler refuses any of the four names holding someone else's object (what an import adopted is ours).
 * - read: four GETs; the live objects as inputs plus drift lines; gone when the ServiceAccount is; an import
 *   (`namespace/serviceAccount`) reads what the generator or Rancher made, writing nothing.
 * - remove: every object of ours (bindings, token Secret, ServiceAccount), waiting until each is gone.
 */
import type { KubeObject, ServiceAccount } from '../../client/objects';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import type { CheckFailure } from '../../core/types';
import { convergeCredentials, observeCredentials, removeOwned } from './apply';
import { guestClusterCredentialsOutputsSchema, guestClusterCredentialsSchema, type GuestClusterCredentialsInputs, type GuestClusterCredentialsOutputs } from './model';
import { CLOUD_PROVIDER_ROLE, CSI_DRIVER_ROLE } from './names';
import { adoptableUid, credentialsOwner, driftOf, isOurs, liveInputs, toOutputs, type LiveCredentials } from './plan';
import { validateInputs } from './validate';

export type GuestClusterCredentialsProviderOptions = ReconcilerOptions;

type Inputs = GuestClusterCredentialsInputs;
type Outputs = GuestClusterCredentialsOutputs;
type Identity = Pick<Inputs, 'namespace' | 'serviceAccountName'>;

/** What exists of one set of credentials, and the API server its kubeconfig names. */
export interface ObservedCredentials extends LiveCredentials {
  server: string;
}

const identityOf = (ref: { namespace?: string; name: string }): Identity => ({ namespace: ref.namespace ?? 'default', serviceAccountName: ref.name });
const withSa = (live: ObservedCredentials) => live as ObservedCredentials & { serviceAccount: ServiceAccount };
const timeoutsOf = (recorded: Partial<Outputs>) => guestClusterCredentialsSchema.shape.timeouts.parse(recorded.timeouts);

/** The ServiceAccount uid whose objects the recorded state adopted (an import), while it is that very ServiceAccount. */
function adoptedBy(recorded: Partial<Outputs>, live: LiveCredentials, identity: Identity): string | undefined {
  return adoptableUid(recorded, identity, live);
}

export const guestClusterCredentialsResource: ManagedResource<Inputs, Outputs, ObservedCredentials> = {
  type: 'GuestClusterCredentials',
  model: { inputs: guestClusterCredentialsSchema, outputs: guestClusterCredentialsOutputsSchema, validate: validateInputs },
  scope: 'namespaced',
  nameInput: 'serviceAccountName',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.serviceAccountName as string }),
  refInputs: (ref) => identityOf(ref),
  describe: (ref) => `ServiceAccount ${ref.namespace}/${ref.name}`,
  owner: (ref) => credentialsOwner(identityOf(ref)),
  checkBeforeWrite: true,

  async observe(ctx, ref, recorded) {
    const live = await observeCredentials(ctx.client, identityOf(ref));
    if (!live.serviceAccount && !live.tokenSecret && !live.roleBinding && !live.clusterRoleBinding) return undefined;
    // The kubeconfig keeps naming the server it was made for; a first write names the connection's.
    return { ...live, server: recorded.server ?? ctx.client.connection.server };
  },
  exists: (live) => live.serviceAccount !== undefined,
  owns(live, ref, recorded) {
    const identity = identityOf(ref);
    const adopted = adoptedBy(recorded, live, identity);
    return [live.serviceAccount, live.tokenSecret, live.roleBinding, live.clusterRoleBinding].some((o) => o && isOurs(o, credentialsOwner(identity), adopted));
  },
  foreign(live, ref, recorded, inputs) {
    const identity = identityOf(ref);
    const owner = credentialsOwner(identity);
    const adopted = adoptedBy(recorded, live, identity);
    const objects = [live.serviceAccount, live.tokenSecret, live.roleBinding, inputs?.bindCsiDriverRole === false ? undefined : live.clusterRoleBinding];
    return objects.filter((o): o is KubeObject => o !== undefined && !isOurs(o, owner, adopted));
  },

  async checkCluster(ctx, { inputs }) {
    if (!inputs) return [];
    const out: CheckFailure[] = [];
    const [namespace, cloudRole, csiRole] = await Promise.all([
      ctx.client.namespaces.get(inputs.namespace),
      ctx.client.clusterRoles.get(CLOUD_PROVIDER_ROLE),
      inputs.bindCsiDriverRole ? ctx.client.clusterRoles.get(CSI_DRIVER_ROLE) : Promise.resolve({} as KubeObject),
    ]);
    const missingRole = (role: string) => `ClusterRole ${role} does not exist on the cluster (Harvester's chart installs it: is this a Harvester cluster, of v1.2 or later?)`;
    if (!namespace) out.push({ property: 'namespace', reason: `namespace ${inputs.namespace} does not exist: name the namespace the guest cluster's VMs live in` });
    if (!cloudRole) out.push({ property: 'namespace', reason: `${missingRole(CLOUD_PROVIDER_ROLE)}: the RoleBinding in ${inputs.namespace} would grant nothing` });
    if (!csiRole) out.push({ property: 'bindCsiDriverRole', reason: `${missingRole(CSI_DRIVER_ROLE)}: set bindCsiDriverRole to false if the guest runs no Harvester CSI driver` });
    return out;
  },

  async converge(ctx, inputs, live, op, recorded) {
    const found = live ?? {};
    const written = await convergeCredentials(ctx, inputs, found, adoptedBy(recorded, found, inputs), op);
    return { ...written, server: inputs.serverUrl ?? ctx.client.connection.server };
  },

  liveInputs(live, recorded) {
    const base = { clusterName: recorded.clusterName, bindCsiDriverRole: recorded.bindCsiDriverRole ?? true, serverUrl: recorded.serverUrl };
    const { timeouts: _t, kubeconfig: _k, context: _c, ...now } = liveInputs(base, withSa(live));
    return now;
  },
  drift: (recorded, live) => driftOf(recorded, withSa(live)),
  outputs: (inputs, live, drift) => toOutputs(inputs, withSa(live), inputs.serverUrl ?? live.server, drift),

  async remove(ctx, live, ref, recorded) {
    const identity = identityOf(ref);
    // What an import adopted is ours only while it is the very ServiceAccount the import recorded.
    const adopted = recorded.serviceAccountUid && live.serviceAccount?.metadata.uid === recorded.serviceAccountUid ? recorded.serviceAccountUid : undefined;
    await removeOwned(ctx.client, live, { owner: credentialsOwner(identity), adopted, timeoutMs: timeoutMs(timeoutsOf(recorded), 'delete'), timeoutOption: 'timeouts.delete', onProgress: ctx.progress });
  },
};

export function createGuestClusterCredentialsProvider(options: GuestClusterCredentialsProviderOptions = {}) {
  return reconciledProvider(guestClusterCredentialsResource, options);
}

export type GuestClusterCredentialsProvider = ReturnType<typeof createGuestClusterCredentialsProvider>;
