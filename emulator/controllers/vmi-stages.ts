/**
 * The VirtualMachineInstance lifecycle as KubeVirt + kube-scheduler + the guest drive it, one stage per row:
 *
 * 1. `vmi-pending`        (new)        → phase Pending                                      (no delay)
 * 2. `vmi-scheduling`     Pending      → virt-launcher pod created (vmi-launch.ts), phase Scheduling; a
 *                                        refused create (quota) stays Pending, Synchronized=False/FailedCreate,
 *                                        and is tried again when the namespace's pods or quotas change (no delay)
 * 3. `vmi-unschedulable`  Scheduling, the pod is unschedulable → condition PodScheduled=False/Unschedulable
 *                                        with kube-scheduler's message (pod-scheduler.ts)   (no delay)
 * 4. `vmi-scheduled`      Scheduling, the pod runs on a host → phase Scheduled, status.nodeName (no delay;
 *                                        the pod starts delays.vmiSchedule after it is bound)
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
import { EventRecorder } from './events';
import { launcherPodOf } from './node-usage';
import { failedCreate, launch, podCreateRefusal } from './vmi-launch';
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
  events: EventRecorder;
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

/** The PodScheduled=False condition of the VMI's pod, if the scheduler found no host for it. */
function podUnschedulable(ctx: VmiStageContext, vmi: KubeObject): Condition | undefined {
  const pod = launcherPodOf(ctx.store, ctx.kinds, vmi);
  const c = pod ? findCondition(pod, 'PodScheduled') : undefined;
  return pod && !field(pod, 'spec', 'nodeName') && c?.status === 'False' ? c : undefined;
}

/** The host the VMI's pod runs on, once it runs. */
function podHost(ctx: VmiStageContext, vmi: KubeObject): string | undefined {
  const pod = launcherPodOf(ctx.store, ctx.kinds, vmi);
  return pod && field(pod, 'status', 'phase') === 'Running' ? field<string>(pod, 'spec', 'nodeName') : undefined;
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
      when: (vmi) => {
        if (isDeleting(vmi) || phaseOf(vmi) !== 'Pending') return false;
        if (launcherPodOf(ctx.store, ctx.kinds, vmi)) return true;
        // After a refused create, try again only once the apiserver would take the pod.
        return !failedCreate(vmi) || podCreateRefusal(ctx, vmi) === undefined;
      },
      delayMs: () => 0,
      next: (vmi) => {
        if (!launcherPodOf(ctx.store, ctx.kinds, vmi)) {
          const launched = launch(ctx, vmi);
          if (!launched.pod) return launched.vmi;
        }
        enterPhase(vmi, 'Scheduling', now());
        return vmi;
      },
    },
    {
      name: 'vmi-unschedulable',
      when: (vmi) => {
        if (isDeleting(vmi) || phaseOf(vmi) !== 'Scheduling') return false;
        const fromPod = podUnschedulable(ctx, vmi);
        const current = findCondition(vmi, 'PodScheduled');
        return Boolean(fromPod) && (current?.status !== 'False' || current.message !== fromPod!.message);
      },
      delayMs: () => 0,
      next: (vmi) => {
        const fromPod = podUnschedulable(ctx, vmi);
        if (!fromPod) return undefined;
        statusOf(vmi).conditions = setCondition(
          conditions(vmi),
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: fromPod.message },
          now(),
        );
        return vmi;
      },
    },
    {
      name: 'vmi-scheduled',
      when: (vmi) => !isDeleting(vmi) && phaseOf(vmi) === 'Scheduling' && Boolean(podHost(ctx, vmi)),
      delayMs: () => 0,
      next: (vmi) => {
        const nodeName = podHost(ctx, vmi);
        if (!nodeName) return undefined;
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
