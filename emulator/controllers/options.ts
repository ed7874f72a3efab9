/** Options of the simulated Harvester (installHarvester) and their defaults. */

/** How long each simulated transition takes (ms). Per object, `<stage>.emulator.harvester-iac.local/delay` wins. */
export interface HarvesterDelays {
  /** VMI Scheduling → Scheduled (a host was picked). Stage `vmi-scheduled`. @default 300 */
  vmiSchedule: number;
  /** VMI Scheduled → Running (the guest booted). Stage `vmi-running`. @default 1500 */
  vmiBoot: number;
  /** VMI Running → guest agent connected and IPv4 reported. Stage `vmi-guest-agent`. @default 1000 */
  guestAgent: number;
  /**
   * Whole image download/import, split over the progress steps. Stages `image-*`. @default 2000
   *
   * The emulator never dials an image URL: the download is simulated from the URL's form (image-stages.ts).
   * These forms fail, as a real download of them would:
   * - a host under `.invalid` (RFC 2606: never resolves): the HEAD fails, `Head "<url>": dial tcp: lookup <host>: no such host`;
   * - a path segment `http-<code>` (400–599), e.g. `https://example.com/http-404/x.img`: `got <code> status code from <url>`;
   * - a path segment `fail-at-<percent>` (0–99): the download breaks at that percent, `<url>: unexpected EOF`;
   * - annotation `image-import.emulator.harvester-iac.local/fail: <message>`: the download breaks at once with that message.
   * Each failure is retried as Harvester retries (spec.retry times, `imageRetry` apart) before RetryLimitExceeded.
   */
  imageImport: number;
  /** Wait between a failed image import and its retry (Harvester's handleRetry: 10s; at least 1s). Stage `image-initialized`. @default 10000 */
  imageRetry: number;
  /** PVC Pending → Bound, and resize completion. Stages `pvc-*`. @default 0 */
  pvcBind: number;
  /** KeyPair fingerprint + validated condition. Stage `keypair-validated`. @default 0 */
  keyPairValidate: number;
  /** Live migration: memory copied, the VMI switches to the target host. Stage `vmi-migration-complete`. @default 1000 */
  migration: number;
  /**
   * How long a migration waits for a target host before it fails (KubeVirt's
   * migrations.unschedulablePendingTimeoutSeconds). Stage `vmim-unschedulable`. @default 300000
   */
  migrationUnschedulableTimeout: number;
}

/** Defaults of HarvesterDelays: short enough for tests on a real clock, long enough to observe each phase. */
export const DEFAULT_DELAYS: HarvesterDelays = {
  vmiSchedule: 300,
  vmiBoot: 1500,
  guestAgent: 1000,
  imageImport: 2000,
  imageRetry: 10_000,
  pvcBind: 0,
  keyPairValidate: 0,
  migration: 1000,
  migrationUnschedulableTimeout: 300_000,
};

/** An inclusive IPv4 range handed out by the simulated DHCP server of a VM network. */
export interface DhcpRange {
  start: string;
  end: string;
}

/** Default simulated DHCP range (LoadBalancers with ipam dhcp). */
export const DEFAULT_DHCP_RANGE: DhcpRange = { start: '192.168.100.100', end: '192.168.100.199' };

/** Options of installHarvester. */
export interface HarvesterOptions {
  /** Transition delays; see HarvesterDelays for defaults. */
  delays?: Partial<HarvesterDelays>;
  /**
   * Address ranges of VM networks (`namespace/name` of the NetworkAttachmentDefinition → CIDR) for networks
   * whose NAD carries no `network.harvesterhci.io/route` annotation with a `cidr`. @default {}
   */
  vmNetworkCidrs?: Record<string, string>;
  /** CIDR used for VM networks that have neither a route annotation nor an entry above. @default 10.10.0.0/16 */
  defaultVmCidr?: string;
  /** Salt for the deterministic VM IP/MAC choice (same salt → same addresses). @default 'harvester-iac' */
  addressSeed?: string;
  /**
   * Simulated DHCP range for `ipam: dhcp` load balancers. By default a load balancer's lease comes from the
   * subnet of its VM network (as that VLAN's DHCP server would give it) and this range serves only load
   * balancers with no known network; set it to make every lease come from this range instead.
   * @default 192.168.100.100–192.168.100.199 (for load balancers with no network)
   */
  dhcpRange?: DhcpRange;
  /**
   * Refuse growing a volume in `harvesterhci.io/volumeClaimTemplates` while the VM runs ("please stop the VM
   * before resizing volumes"), as Harvester's VM validator did before 1.6. Harvester ≥ 1.6 expands online
   * (its `checkResizeVolumes` only refuses shrinking). @default false
   */
  volumeResizeRequiresStop?: boolean;
}

/** Options with every default applied. */
export interface ResolvedHarvesterOptions {
  delays: HarvesterDelays;
  vmNetworkCidrs: Record<string, string>;
  defaultVmCidr: string;
  addressSeed: string;
  dhcpRange: DhcpRange;
  /** True when `dhcpRange` was given: every DHCP lease then comes from it. */
  dhcpRangeConfigured: boolean;
  volumeResizeRequiresStop: boolean;
}

/** Applies defaults (the returned object is live: admin knobs mutate `delays`). */
export function resolveHarvesterOptions(options: HarvesterOptions = {}): ResolvedHarvesterOptions {
  return {
    delays: { ...DEFAULT_DELAYS, ...(options.delays ?? {}) },
    vmNetworkCidrs: { ...(options.vmNetworkCidrs ?? {}) },
    defaultVmCidr: options.defaultVmCidr ?? '10.10.0.0/16',
    addressSeed: options.addressSeed ?? 'harvester-iac',
    dhcpRange: options.dhcpRange ?? DEFAULT_DHCP_RANGE,
    dhcpRangeConfigured: options.dhcpRange !== undefined,
    volumeResizeRequiresStop: options.volumeResizeRequiresStop ?? false,
  };
}
