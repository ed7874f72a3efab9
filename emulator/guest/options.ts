/** Options of the simulated guest RKE2 cluster (installGuestCluster) and their defaults. */
import type { Store } from '../api/types';
import { DEFAULT_DHCP_RANGE, DhcpRange } from '../controllers/options';

/** Delays (ms) of the guest side. */
export interface GuestDelays {
  /** VMI Running → the kubelet registers the Node (tainted uninitialized). @default 500 */
  nodeRegister: number;
  /** Uninitialized taint seen → the cloud-node controller initialises the Node. @default 200 */
  ccmInit: number;
  /** kube-vip.io/loadbalancerIPs set → kube-vip announces and the Service gets its ingress IP. @default 100 */
  kubeVip: number;
}

/** Defaults of GuestDelays. */
export const DEFAULT_GUEST_DELAYS: GuestDelays = { nodeRegister: 500, ccmInit: 200, kubeVip: 100 };

/** Options of installGuestCluster. */
export interface GuestOptions {
  /** The CCM's `--cluster-name` (Rancher passes the guest cluster's name); VMs carry it as
   *  `guestcluster.harvesterhci.io/name`. */
  clusterName: string;
  /** harvester-cloud-provider version. Below v0.2.0: health-check annotations honoured, vm-type LBs with
   *  listeners, labels only at node initialisation; below v0.1.4 no region/zone at all. @default v0.2.7 */
  ccmVersion?: string;
  /** Reported in Node status.nodeInfo.kubeletVersion. @default v1.28.10+rke2r1 */
  kubeletVersion?: string;
  /** Namespace of the guest's VMs and of the LoadBalancers it creates (the CCM kubeconfig's namespace).
   *  @default default */
  namespace?: string;
  /** `--management-network` (ns/name), copied to LBs as cloudprovider.harvesterhci.io/managementNetwork. */
  managementNetwork?: string;
  /** Simulated DHCP range for `ipam: dhcp` services (share it with the Harvester side). @default 192.168.100.100–199 */
  dhcpRange?: DhcpRange;
  delays?: Partial<GuestDelays>;
  /** The Harvester API as the CCM's credentials see it (emulator/rbac/credentialed-store.ts); unset = admin. */
  harvesterClient?: Store;
  /**
   * Turns a cloud-config kubeconfig found on the guest's VMs (cloud-init write_files) into the CCM's Harvester
   * client; used when no harvesterClient is set. Unset: such files are ignored.
   */
  clientForCloudConfig?: (text: string) => Store | undefined;
  /**
   * Also play the guests' kubelets: register a Node for each VM labelled with the cluster name. False: Nodes are
   * registered by someone else (the RKE2 simulation, emulator/guest/rke2) and this is the cloud provider only,
   * mapping Nodes to the VMs of its namespace by name, as the real one does. @default true
   */
  kubelet?: boolean;
}

/** GuestOptions with defaults applied. */
export interface ResolvedGuestOptions {
  clusterName: string;
  ccmVersion: string;
  kubeletVersion: string;
  namespace: string;
  managementNetwork?: string;
  dhcpRange: DhcpRange;
  delays: GuestDelays;
  /** Register Nodes for labelled VMs (GuestOptions.kubelet). */
  kubelet: boolean;
  /** ccmVersion ≥ v0.2.0 */
  modernCcm: boolean;
  /** ccmVersion ≥ v0.1.4: InstanceMetadata returns the VMI's region/zone (harvester/docs node-driver.md, cloud-provider-harvester#21). */
  topologyCcm: boolean;
}

/** `v0.2.7` → [0, 2, 7]; unparseable parts count as 0. */
export function parseVersion(version: string): number[] {
  const core = version.trim().replace(/^v/, '').split(/[-+]/)[0];
  return core.split('.').map((p) => Number.parseInt(p, 10) || 0);
}

/** a < b for semantic versions. */
export function versionLess(a: string, b: string): boolean {
  const x = parseVersion(a);
  const y = parseVersion(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

/** Applies defaults; throws when the cluster name is missing. */
export function resolveGuestOptions(options: GuestOptions): ResolvedGuestOptions {
  if (!options.clusterName) throw new Error('installGuestCluster needs options.clusterName (the CCM --cluster-name, e.g. "gc1").');
  const ccmVersion = options.ccmVersion ?? 'v0.2.7';
  return {
    clusterName: options.clusterName,
    ccmVersion,
    kubeletVersion: options.kubeletVersion ?? 'v1.28.10+rke2r1',
    namespace: options.namespace ?? 'default',
    managementNetwork: options.managementNetwork,
    dhcpRange: options.dhcpRange ?? DEFAULT_DHCP_RANGE,
    delays: { ...DEFAULT_GUEST_DELAYS, ...(options.delays ?? {}) },
    kubelet: options.kubelet !== false,
    modernCcm: !versionLess(ccmVersion, 'v0.2.0'),
    topologyCcm: !versionLess(ccmVersion, 'v0.1.4'),
  };
}
