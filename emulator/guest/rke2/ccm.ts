/**
 * Which cloud controller initialises an emulated RKE2 cluster's Nodes (docs/design/guest-rke2.md §"Cloud
 * provider"):
 *
 * - `cloud-provider-name: harvester` (RKE2 rewrites it to `external`, sets `disable-cloud-controller` on servers
 *   and deploys its bundled `harvester-cloud-provider` chart, rancher/rke2 pkg/cli/cmds/root.go) or `external`
 *   (the user deploys a CCM, as CAPHV does): the Harvester cloud provider of emulator/guest (Nodes get providerID
 *   `harvester://<vm uid>`, topology labels, the taint removed; Services of type LoadBalancer become Harvester
 *   LoadBalancers), calling Harvester with the kubeconfig the user data writes — at the chart's `cloudConfigPath`
 *   (HelmChartConfig), else at `cloud-provider-config`, else at the chart's default path. Without that file the
 *   chart's hostPath mount fails: no cloud controller runs and every Node keeps its uninitialized taint. The CCM's
 *   `--cluster-name` is the chart's `global.cattle.clusterName` (HelmChartConfig), else `kubernetes`;
 * - no cloud provider and RKE2's own cloud controller enabled: it initialises Nodes with providerID
 *   `rke2://<node name>` (rancher/rke2#1216) and serves no LoadBalancer;
 * - otherwise (its own controller disabled, no provider): nobody removes the taint.
 */
import { Clock } from '../../clock';
import { KindInfo, Store } from '../../api/types';
import { Controller, ErrorSink } from '../../controllers/runtime';
import { clone, field, specOf, writeChanges } from '../../util/objects';
import { TAINT_UNINITIALIZED } from '../../util/names';
import { parseCloudConfig } from '../../guest-cluster';
import { rbacKinds } from '../../rbac/authorizer';
import { credentialedStore, TokenIdentity } from '../../rbac/credentialed-store';
import { GuestHandle, installGuestCluster } from '..';
import { Rke2Config } from './config';
import { ccmChartValues, DEFAULT_CLOUD_PROVIDER_CONFIG } from './user-data';

/** The cloud controller a cluster runs. */
export type CcmMode = 'harvester' | 'rke2' | 'none';

/** The decision and, for Harvester, what its CCM needs. */
export interface CcmPlan {
  mode: CcmMode;
  /** Why there is no cloud controller (mode none), or which file the Harvester CCM read. */
  note: string;
  clusterName?: string;
  /** The cloud-config kubeconfig's token and namespace. */
  credentials?: { token: string; namespace?: string };
}

/** Decides the cloud controller from the init server's config and files. */
export function planCcm(config: Rke2Config, files: Map<string, string>, disableCloudController: boolean): CcmPlan {
  const name = config.cloudProviderName ?? '';
  if (name === 'harvester' || name === 'external') {
    const chart = ccmChartValues(files);
    const path = chart.cloudConfigPath ?? config.cloudProviderConfig ?? DEFAULT_CLOUD_PROVIDER_CONFIG;
    const text = files.get(path);
    if (text === undefined) return { mode: 'none', note: `the Harvester cloud provider cannot start: no cloud config at ${path} in the user data's write_files` };
    try {
      return { mode: 'harvester', note: `Harvester cloud provider reading ${path}`, clusterName: chart.clusterName ?? 'kubernetes', credentials: parseCloudConfig(text) };
    } catch (err) {
      return { mode: 'none', note: `the Harvester cloud provider cannot start: ${path}: ${(err as Error).message}` };
    }
  }
  if (name === '' && !disableCloudController) return { mode: 'rke2', note: "RKE2's own cloud controller" };
  return { mode: 'none', note: name ? `cloud provider ${name} is not simulated: Nodes keep the uninitialized taint` : 'disable-cloud-controller is set and no cloud provider is named: Nodes keep the uninitialized taint' };
}

/** What installing a plan needs. */
export interface CcmContext {
  guest: Store;
  harvester: Store;
  clock: Clock;
  nodeKind: KindInfo;
  ccmVersion: string;
  ccmInitDelay: number;
  identity?: TokenIdentity;
  errors?: ErrorSink;
}

/** A running cloud controller. */
export interface RunningCcm {
  stop(): void;
  guestHandle?: GuestHandle;
}

/** RKE2's own cloud controller: initialises tainted Nodes with providerID `rke2://<name>`. */
function createRke2Ccm(ctx: CcmContext): Controller {
  const due = new Map<string, number>();
  const reconcile = (name: string): number | undefined => {
    const node = ctx.guest.get(ctx.nodeKind, undefined, name);
    const taints = (field<{ key: string }[]>(node, 'spec', 'taints') ?? []);
    if (!node || !taints.some((t) => t.key === TAINT_UNINITIALIZED)) {
      due.delete(name);
      return undefined;
    }
    const now = ctx.clock.now().getTime();
    const at = due.get(name) ?? now + ctx.ccmInitDelay;
    due.set(name, at);
    if (now < at) return at - now;
    due.delete(name);
    const desired = clone(node);
    const spec = specOf(desired, true);
    spec.providerID ??= `rke2://${name}`;
    spec.taints = taints.filter((t) => t.key !== TAINT_UNINITIALIZED);
    writeChanges(ctx.guest, ctx.nodeKind, node, desired, { fieldManager: 'rke2-cloud-controller-manager' });
    return undefined;
  };
  return new Controller({ name: 'rke2-cloud-node-controller', clock: ctx.clock, errors: ctx.errors, reconcile }).watch(ctx.guest, ctx.nodeKind, (n) => [String(n.metadata.name)]);
}

/** Starts the planned cloud controller. */
export function startCcm(plan: CcmPlan, ctx: CcmContext): RunningCcm {
  if (plan.mode === 'rke2') {
    const controller = createRke2Ccm(ctx);
    return { stop: () => controller.stop() };
  }
  if (plan.mode !== 'harvester' || !plan.credentials) return { stop: () => undefined };
  const kinds = rbacKinds(ctx.harvester.registry);
  const client = kinds && ctx.identity ? credentialedStore(ctx.harvester, kinds, ctx.identity, plan.credentials.token) : undefined;
  const handle = installGuestCluster(ctx.guest, ctx.harvester, ctx.clock, {
    clusterName: plan.clusterName ?? 'kubernetes',
    ccmVersion: ctx.ccmVersion,
    namespace: plan.credentials.namespace ?? 'default',
    harvesterClient: client,
    kubelet: false,
    delays: { ccmInit: ctx.ccmInitDelay },
  });
  return { stop: () => handle.stop(), guestHandle: handle };
}
