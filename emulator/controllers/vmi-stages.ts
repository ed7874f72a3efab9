/**
 * The VirtualMachineInstance lifecycle as KubeVirt + kube-scheduler + the guest drive it, one stage per row:
 *
 * 1. `vmi-pending`        (new)        → phase Pending                                      (no delay)
 * 2. `vmi-scheduling`     Pending      → phase Scheduling (virt-launcher pod created)       (no delay)
 * 3. `vmi-unschedulable`  Scheduling, no host fits → condition PodScheduled=False/Unschedulable (no delay)
 * 4. `vmi-scheduled`      Scheduling, a host fits  → phase Scheduled, status.nodeName         (delays.vmiSchedule)
 * 5. `vmi-running`        Scheduled    → phase Running, Ready, LiveMigratable (False unless every PVC is
 *                                        ReadWriteMany), NICs with MACs but no IP           (delays.vmiBoot)
 * 6. `vmi-guest-agent`    Running, cloud-init installs+starts qemu-guest-agent, not yet connected
 *                                      → AgentConnected, IPv4 on each NIC, guestOSInfo      (delays.guestAgent)
 * Live migration rows (abort, start before the guest agent; complete after it) are in vmi-migration-stages.ts.
 *
 * Field names follow KubeVirt v1 VMI status (see shared examples virtualmachineinstances_*.yaml).
 */
import { KubeObject, Store } from '../api/types';
import { HarvesterKinds } from './kinds';
import { ResolvedHarvesterOptions } from './options';
import { LABEL_KUBEVIRT_NODE_NAME } from '../util/names';
import {
  Condition,
  dropCondition,
  enterPhase,
  field,
  findCondition,
  isDeleting,
  labelsOf,
  setCondition,
  specOf,
  statusOf,
  timestamp,
} from '../util/objects';
import { Placement, placeVmi, vmisPerNode } from './scheduler';
import { Stage } from './stages';
import { vmiRunsGuestAgent } from './guest-agent';
import { addressesInUse, macFor, networkBlock, nicsOf, persistedMacs, pickAddress } from './vm-network';
import { linkLocalFromMac } from '../util/hashing';
import { parseIPv4 } from '../util/ipv4';
import { Clock } from '../clock';
import { vmiMigrationStages } from './vmi-migration-stages';
import { objectKey } from './runtime';

/** What the VMI stages need from their surroundings. */
export interface VmiStageContext {
  store: Store;
  kinds: HarvesterKinds;
  options: ResolvedHarvesterOptions;
  clock: Clock;
}

function phaseOf(vmi: KubeObject): string | undefined {
  return field<string>(vmi, 'status', 'phase');
}

/** Claim names of the VMI's PVC and DataVolume volumes. */
function claimsOf(vmi: KubeObject): string[] {
  const volumes = (specOf(vmi).volumes as Record<string, unknown>[] | undefined) ?? [];
  return volumes
    .map((v) => field<string>(v, 'persistentVolumeClaim', 'claimName') ?? field<string>(v, 'dataVolume', 'name'))
    .filter((c): c is string => Boolean(c));
}

function missingClaim(ctx: VmiStageContext, vmi: KubeObject): string | undefined {
  return claimsOf(vmi).find((claim) => !ctx.store.get(ctx.kinds.pvc, vmi.metadata.namespace, claim));
}

/**
 * KubeVirt's LiveMigratable condition for the volume rule (virt-controller checkVolumesForMigration): every
 * PVC must be shared (ReadWriteMany), as the node driver's Longhorn volumes are.
 */
function liveMigratable(ctx: VmiStageContext, vmi: KubeObject): Pick<Condition, 'type' | 'status' | 'reason' | 'message'> {
  for (const claim of claimsOf(vmi)) {
    const pvc = ctx.store.get(ctx.kinds.pvc, vmi.metadata.namespace, claim);
    const modes = field<string[]>(pvc, 'spec', 'accessModes') ?? [];
    if (!modes.includes('ReadWriteMany')) {
      const message = `cannot migrate VMI: PVC ${claim} is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`;
      return { type: 'LiveMigratable', status: 'False', reason: 'DisksNotLiveMigratable', message };
    }
  }
  return { type: 'LiveMigratable', status: 'True' };
}

/** Where the VMI's pod would go now (or why it cannot go anywhere). */
export function placementFor(ctx: VmiStageContext, vmi: KubeObject): Placement {
  const claim = missingClaim(ctx, vmi);
  if (claim) return { message: `0/${ctx.store.list(ctx.kinds.node).items.length} nodes are available: persistentvolumeclaim "${claim}" not found.` };
  return placeVmi(specOf(vmi), ctx.store.list(ctx.kinds.node).items, vmisPerNode(ctx.store.listShared(ctx.kinds.vmi).items, vmi));
}

function conditions(vmi: KubeObject): Condition[] | undefined {
  return field<Condition[]>(vmi, 'status', 'conditions');
}

/** The NIC status entries (MACs, optional IPs) of a VMI. */
function interfaceStatus(ctx: VmiStageContext, vmi: KubeObject, withIp: boolean): Record<string, unknown>[] {
  const ns = String(vmi.metadata.namespace);
  const vmKey = objectKey(vmi);
  const vm = ctx.store.get(ctx.kinds.vm, ns, String(vmi.metadata.name));
  const persisted = persistedMacs(vm);
  const used = withIp ? addressesInUse(ctx.store, ctx.kinds, vmKey) : new Set<number>();
  return nicsOf(specOf(vmi), ns).map((nic, index) => {
    const mac = macFor(nic, vmKey, persisted, ctx.options.addressSeed);
    const entry: Record<string, unknown> = { name: nic.name, mac, infoSource: 'domain' };
    if (!withIp) return entry;
    const block = networkBlock(ctx.store, ctx.kinds, ctx.options, nic.network);
    const ip = pickAddress(block, `${ctx.options.addressSeed}/${vmKey}/${nic.name}`, used);
    entry.infoSource = 'domain, guest-agent';
    entry.interfaceName = `enp${index + 1}s0`;
    if (ip) {
      used.add(parseIPv4(ip) as number);
      entry.ipAddress = ip;
      entry.ipAddresses = [ip, linkLocalFromMac(mac)];
    }
    return entry;
  });
}

/** The stage table of the VMI lifecycle. Delays are read live from `ctx.options.delays`. */
export function vmiStages(ctx: VmiStageContext): Stage[] {
  const now = (): string => timestamp(ctx.clock.now());
  const migration = vmiMigrationStages(ctx);
  return [
    {
      name: 'vmi-pending',
      when: (vmi) => !isDeleting(vmi) && !phaseOf(vmi),
      delayMs: () => 0,
      next: (vmi) => {
        enterPhase(vmi, 'Pending', now());
        statusOf(vmi).guestOSInfo = {};
        return vmi;
      },
    },
    {
      name: 'vmi-scheduling',
      when: (vmi) => !isDeleting(vmi) && phaseOf(vmi) === 'Pending',
      delayMs: () => 0,
      next: (vmi) => {
        enterPhase(vmi, 'Scheduling', now());
        return vmi;
      },
    },
    {
      name: 'vmi-unschedulable',
      when: (vmi) => {
        if (isDeleting(vmi) || phaseOf(vmi) !== 'Scheduling') return false;
        const placement = placementFor(ctx, vmi);
        if (placement.node) return false;
        const current = findCondition(vmi, 'PodScheduled');
        return current?.status !== 'False' || current.message !== placement.message;
      },
      delayMs: () => 0,
      next: (vmi) => {
        const placement = placementFor(ctx, vmi);
        if (placement.node) return undefined;
        statusOf(vmi).conditions = setCondition(
          conditions(vmi),
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: placement.message },
          now(),
        );
        return vmi;
      },
    },
    {
      name: 'vmi-scheduled',
      when: (vmi) => !isDeleting(vmi) && phaseOf(vmi) === 'Scheduling' && Boolean(placementFor(ctx, vmi).node),
      delayMs: () => ctx.options.delays.vmiSchedule,
      next: (vmi) => {
        const node = placementFor(ctx, vmi).node;
        if (!node) return undefined;
        const nodeName = String(node.metadata.name);
        enterPhase(vmi, 'Scheduled', now());
        const status = statusOf(vmi);
        status.nodeName = nodeName;
        status.conditions = dropCondition(conditions(vmi), 'PodScheduled');
        labelsOf(vmi, true)[LABEL_KUBEVIRT_NODE_NAME] = nodeName;
        return vmi;
      },
    },
    {
      name: 'vmi-running',
      when: (vmi) => !isDeleting(vmi) && phaseOf(vmi) === 'Scheduled',
      delayMs: () => ctx.options.delays.vmiBoot,
      next: (vmi) => {
        const at = now();
        enterPhase(vmi, 'Running', at);
        const status = statusOf(vmi);
        let list = setCondition(conditions(vmi), { type: 'Ready', status: 'True' }, at);
        list = setCondition(list, liveMigratable(ctx, vmi), at);
        status.conditions = list;
        status.interfaces = interfaceStatus(ctx, vmi, false);
        status.qosClass = 'Burstable';
        return vmi;
      },
    },
    migration.abort,
    migration.start,
    {
      name: 'vmi-guest-agent',
      when: (vmi) =>
        !isDeleting(vmi) &&
        phaseOf(vmi) === 'Running' &&
        findCondition(vmi, 'AgentConnected')?.status !== 'True' &&
        vmiRunsGuestAgent(vmi, ctx.store, ctx.kinds),
      delayMs: () => ctx.options.delays.guestAgent,
      next: (vmi) => {
        const status = statusOf(vmi);
        status.conditions = setCondition(conditions(vmi), { type: 'AgentConnected', status: 'True' }, now());
        status.interfaces = interfaceStatus(ctx, vmi, true);
        status.guestOSInfo = {
          id: 'ubuntu',
          name: 'Ubuntu',
          prettyName: 'Ubuntu 22.04.4 LTS',
          version: '22.04',
          versionId: '22.04',
          kernelRelease: '5.15.0-119-generic',
        };
        return vmi;
      },
    },
    migration.complete,
  ];
}
