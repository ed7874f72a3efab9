/**
 * Version gating of guest label sync (pure). Sources:
 *  - RKE2: harvester/docs docs/rancher/node/node-driver.md ("Topology spread constraints"): for RKE2 lines before
 *    v1.25 the topology label sync needs at least v1.24.3+rke2r1, v1.23.9+rke2r1 or v1.22.12+rke2r1; v1.25 and
 *    later are fine. The page gives no reason; our reading is that those are the first releases bundling a cloud
 *    provider with the topology support (InstanceMetadata below).
 *  - Harvester cloud provider: the same page asks custom installs for >= v0.1.4 (InstanceMetadata reading the VMI
 *    topology annotations: cloud-provider-harvester#21 for harvester#1418). From v0.2.0 its VMI controller
 *    re-taints a guest node whose VMI topology changed, so labels follow migrations (cloud-provider-harvester#30,
 *    harvester#3142, commit 0615f247); below v0.2.0 labels are set only at node initialisation.
 */
import { compareVersions, parseVersion } from '../../core/versions';

/** RKE2 minimums per release line below v1.25 (node-driver.md). */
export const RKE2_MINIMUMS: Readonly<Record<string, string>> = {
  '1.22': 'v1.22.12+rke2r1',
  '1.23': 'v1.23.9+rke2r1',
  '1.24': 'v1.24.3+rke2r1',
};
/** Lowest cloud provider version that reads the topology (node-driver.md, custom installs). */
export const MIN_CLOUD_PROVIDER = 'v0.1.4';
/** First cloud provider version that re-syncs labels after migration (cloud-provider-harvester#30). */
export const RESYNC_CLOUD_PROVIDER = 'v0.2.0';

/** The verdict on a guest's versions. */
export interface SyncSupport {
  /** Sync cannot happen: each line says why and what to do. */
  refusals: string[];
  /** Sync works with limits (e.g. only at node initialisation), or a version could not be judged. */
  notes: string[];
  /** Labels follow VM migrations and updates (cloud provider >= v0.2.0). */
  resyncs: boolean;
}

function less(a: string, b: string): boolean {
  const x = parseVersion(a);
  const y = parseVersion(b);
  return x !== undefined && y !== undefined && compareVersions(x, y) < 0;
}

/** rke2Refusal: why an RKE2 version cannot sync topology labels, or undefined when it can (or is not RKE2). */
export function rke2Refusal(version: string): string | undefined {
  const v = parseVersion(version);
  if (!v || v.distribution !== 'rke2') return undefined;
  if (v.major > 1 || (v.major === 1 && v.minor >= 25)) return undefined;
  const minimum = RKE2_MINIMUMS[`${v.major}.${v.minor}`];
  if (minimum && !less(version, minimum)) return undefined;
  const need = minimum ? `at least ${minimum} on the v${v.major}.${v.minor} line, or v1.25 or later` : 'v1.22.12+rke2r1, v1.23.9+rke2r1, v1.24.3+rke2r1 or v1.25 and later';
  return `the guest runs RKE2 ${version}, which cannot sync topology labels to its nodes (Harvester's node-driver docs require ${need}). Upgrade the guest cluster's Kubernetes version.`;
}

/**
 * syncSupport judges the guest's versions. `rke2` is the lowest kubelet version of the guest nodes;
 * `cloudProvider` the Harvester cloud provider's (undefined: unknown).
 */
export function syncSupport(rke2: string | undefined, cloudProvider: string | undefined): SyncSupport {
  const refusals: string[] = [];
  const notes: string[] = [];
  let resyncs = false;
  if (rke2 !== undefined) {
    const refusal = rke2Refusal(rke2);
    if (refusal) refusals.push(refusal);
    else if (parseVersion(rke2)?.distribution !== 'rke2') notes.push(`the guest runs Kubernetes ${rke2}, not RKE2: its Harvester cloud provider must be installed by hand (at least ${MIN_CLOUD_PROVIDER}).`);
  }
  if (cloudProvider === undefined) {
    notes.push(
      'the Harvester cloud provider version of the guest is unknown (no Deployment kube-system/harvester-cloud-provider): cannot tell whether labels sync. ' +
        'Set guestCloudProviderVersion for a custom install.',
    );
  } else if (!parseVersion(cloudProvider)) {
    notes.push(`the Harvester cloud provider version "${cloudProvider}" is not a release version: assuming it syncs labels after migration.`);
    resyncs = true;
  } else if (less(cloudProvider, MIN_CLOUD_PROVIDER)) {
    refusals.push(
      `the guest runs Harvester cloud provider ${cloudProvider}, which never copies region/zone to guest nodes (topology needs at least ${MIN_CLOUD_PROVIDER}). ` +
        'Upgrade the cloud provider (with RKE2 it comes with the Kubernetes version).',
    );
  } else if (less(cloudProvider, RESYNC_CLOUD_PROVIDER)) {
    notes.push(
      `the guest runs Harvester cloud provider ${cloudProvider} (below ${RESYNC_CLOUD_PROVIDER}): labels are copied to a guest node only when it is initialised, ` +
        'never after a host label change or a migration. Give the machine pool zone node affinity (zones) so rebuilt VMs stay in their zone, ' +
        `or upgrade the cloud provider to ${RESYNC_CLOUD_PROVIDER} or later.`,
    );
  } else {
    resyncs = true;
  }
  return { refusals, notes, resyncs };
}
