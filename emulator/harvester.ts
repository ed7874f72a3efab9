/**
 * The simulated Harvester: admission webhooks plus controllers over one ObjectStore, all writing through the
 * store so clients watching it see the same events a real cluster would send.
 *
 * Controllers (emulator/controllers): KubeVirt VM → VMI (vm-controller), the VMI lifecycle stages
 * (vmi-stages: Pending → Scheduling → Scheduled → Running → guest-agent IP) with their virt-launcher pods
 * (vmi-launch, launcher-pod), kube-scheduler and the kubelet (pod-scheduler), ResourceQuota admission and
 * status (resource-quota), Harvester's halt of VMs over their namespace quota (quota-halt), live migration
 * (migration-stages, vmi-migration-stages), host topology labels onto
 * node-driver VMIs (vmi-host-labels), PVC binding/expansion (pvc-stages), image import (image-stages),
 * key pair validation (keypair-stages), IPPool status (ippool-controller), LoadBalancer IPAM
 * (lb-controller), VM network labels/route and ClusterNetwork readiness (network-controller). Webhooks
 * (emulator/webhooks): VirtualMachine, VirtualMachineInstanceMigration, VirtualMachineImage, KeyPair,
 * LoadBalancer, IPPool, NetworkAttachmentDefinition, ClusterNetwork, VlanConfig.
 */
import { Clock } from './clock';
import { AdmissionHook, KubeObject, Store } from './api/types';
import { createIpPoolController } from './controllers/ippool-controller';
import { harvesterKinds, HarvesterKinds } from './controllers/kinds';
import { createLbController } from './controllers/lb-controller';
import { createNetworkControllers } from './controllers/network-controller';
import { imageStages } from './controllers/image-stages';
import { keyPairStages } from './controllers/keypair-stages';
import { migrationStages, migrationsOfVmi } from './controllers/migration-stages';
import { field } from './util/objects';
import { HarvesterDelays, HarvesterOptions, resolveHarvesterOptions, ResolvedHarvesterOptions } from './controllers/options';
import { pvcStages } from './controllers/pvc-stages';
import { Controller, ControllerError, ErrorLog, objectKey } from './controllers/runtime';
import { StageRunner } from './controllers/stages';
import { createVmController } from './controllers/vm-controller';
import { createVmiHostLabelsController } from './controllers/vmi-host-labels';
import { vmiStages } from './controllers/vmi-stages';
import { harvesterWebhooks } from './webhooks';
import { EventRecorder } from './controllers/events';
import { createPodScheduler, podStages } from './controllers/pod-scheduler';
import { createQuotaHaltController } from './controllers/quota-halt';
import { createResourceQuotaController, resourceQuotaAdmission } from './controllers/resource-quota';
import { handOverAfterMigration } from './controllers/vmi-launch';

export { seedHarvester, seedHosts } from './seed';
export type { SeedOptions, SeedNode, SeedImage, SeedNetwork, SeedKeyPair, HostSizing } from './seed';
export { DEFAULT_DELAYS, DEFAULT_DHCP_RANGE } from './controllers/options';
export type { HarvesterDelays, HarvesterOptions, DhcpRange } from './controllers/options';
export type { ControllerError } from './controllers/runtime';
export { IMAGE_FAIL_ANNOTATION } from './controllers/image-stages';
export { DELAY_ANNOTATION_SUFFIX } from './controllers/stages';

/** Admin knobs and lifecycle of an installed simulated Harvester. */
export interface HarvesterHandle {
  /** The registry entries the simulation uses. */
  readonly kinds: HarvesterKinds;
  /** The live options (delays are read on every transition). */
  readonly options: ResolvedHarvesterOptions;
  /** Change transition delays from now on (already-armed transitions keep their time). */
  setDelays(delays: Partial<HarvesterDelays>): void;
  /** Unexpected controller failures so far (oldest first); tests assert this stays empty. */
  errors(): ControllerError[];
  /** Stop every controller and disable the webhooks. Idempotent. */
  stop(): void;
}

function guarded(hook: AdmissionHook, enabled: () => boolean): AdmissionHook {
  return {
    name: hook.name,
    resources: hook.resources,
    mutate: hook.mutate ? (req) => (enabled() ? hook.mutate!(req) : undefined) : undefined,
    validate: hook.validate ? (req) => (enabled() ? hook.validate!(req) : undefined) : undefined,
  };
}

/**
 * Registers Harvester's webhooks on `store` and starts its controllers. The store's registry must serve the
 * Harvester kinds (createHarvesterRegistry()). Seed data is separate: see seedHarvester.
 */
export function installHarvester(store: Store, clock: Clock, options: HarvesterOptions = {}): HarvesterHandle {
  const kinds = harvesterKinds(store.registry);
  const resolved = resolveHarvesterOptions(options);
  const errorLog = new ErrorLog();
  let running = true;

  for (const hook of harvesterWebhooks(kinds, resolved)) store.addAdmissionHook(guarded(hook, () => running));
  // kube-apiserver's own ResourceQuota admission plugin (installed with the simulation that creates the pods).
  store.addAdmissionHook(guarded(resourceQuotaAdmission(kinds), () => running));

  const events = new EventRecorder(store, kinds.event, clock);
  const ctx = { store, kinds, clock, options: resolved, errors: errorLog, events };
  const vmiKeysInPhase = (phase: string, namespace?: string): string[] =>
    store
      .listShared(kinds.vmi, namespace ? { namespace } : {})
      .items.filter((vmi) => field(vmi, 'status', 'phase') === phase)
      .map(objectKey);
  const vmiKeysInScheduling = (namespace?: string): string[] => vmiKeysInPhase('Scheduling', namespace);
  const migrationKeysInScheduling = (): string[] =>
    store
      .listShared(kinds.vmim)
      .items.filter((m) => field(m, 'status', 'phase') === 'Scheduling')
      .map(objectKey);
  const vmiRunner = new StageRunner({ name: 'kubevirt-vmi-lifecycle', store, clock, kind: kinds.vmi, stages: vmiStages(ctx), manager: 'virt-handler', errors: errorLog })
    // Unschedulable VMIs get another chance when hosts or volumes change.
    .alsoWatch(store, kinds.node, () => vmiKeysInScheduling())
    .alsoWatch(store, kinds.pvc, (pvc) => vmiKeysInScheduling(pvc.metadata.namespace))
    // A cloud-init Secret created after its VM (the node driver's order) decides the guest agent.
    .alsoWatch(store, kinds.secret, (secret: KubeObject) =>
      (secret.metadata.ownerReferences ?? []).filter((r) => r.kind === 'VirtualMachine').map((r) => `${secret.metadata.namespace}/${r.name}`),
    )
    // A migration reaching Running (or going away) moves its VMI.
    .alsoWatch(store, kinds.vmim, (m) => [`${m.metadata.namespace}/${field(m, 'spec', 'vmiName')}`])
    // Its launcher pod's scheduling and start move the VMI; a pod going away or a quota change may let a
    // refused pod create through.
    .alsoWatch(store, kinds.pod, (pod, type) => [
      ...(pod.metadata.ownerReferences ?? []).filter((r) => r.kind === 'VirtualMachineInstance').map((r) => `${pod.metadata.namespace}/${r.name}`),
      ...(type === 'DELETED' || field(pod, 'status', 'phase') === 'Succeeded' ? vmiKeysInPhase('Pending', pod.metadata.namespace) : []),
    ])
    .alsoWatch(store, kinds.resourceQuota, (q) => vmiKeysInPhase('Pending', q.metadata.namespace));
  const migrationRunner = new StageRunner({ name: 'kubevirt-migration-controller', store, clock, kind: kinds.vmim, stages: migrationStages(ctx), manager: 'virt-controller', errors: errorLog })
    .alsoWatch(store, kinds.vmi, (vmi) => migrationsOfVmi(ctx, vmi).map(objectKey))
    // A host appearing or changing, or a pod going away, may give a waiting migration its target.
    .alsoWatch(store, kinds.node, () => migrationKeysInScheduling())
    .alsoWatch(store, kinds.pod, (pod, type) => (type === 'DELETED' || field(pod, 'status', 'phase') === 'Succeeded' ? migrationKeysInScheduling() : []));

  const runners: StageRunner[] = [
    vmiRunner,
    migrationRunner,
    new StageRunner({ name: 'kubelet', store, clock, kind: kinds.pod, stages: podStages(resolved, store, kinds, clock), manager: 'kubelet', errors: errorLog }),
    new StageRunner({ name: 'longhorn-pvc', store, clock, kind: kinds.pvc, stages: pvcStages(resolved), manager: 'longhorn-csi', errors: errorLog }),
    new StageRunner({ name: 'harvester-image-controller', store, clock, kind: kinds.image, stages: imageStages(ctx), manager: 'harvester-image-controller', errors: errorLog }),
    new StageRunner({ name: 'harvester-keypair-controller', store, clock, kind: kinds.keyPair, stages: keyPairStages(ctx), manager: 'harvester-keypair-controller', errors: errorLog }),
  ];
  const handOver = new Controller({
    name: 'kubevirt-launcher-handover',
    clock,
    errors: errorLog,
    reconcile: (key) => {
      const [namespace, name] = key.split('/');
      const vmi = store.get(kinds.vmi, namespace, name);
      if (vmi) handOverAfterMigration(ctx, vmi);
    },
  }).watch(store, kinds.vmi);
  const controllers: Controller[] = [
    createPodScheduler(ctx),
    createResourceQuotaController(ctx),
    createQuotaHaltController(ctx),
    handOver,
    createVmController(ctx),
    createVmiHostLabelsController(ctx),
    createIpPoolController(ctx),
    createLbController(ctx),
    ...createNetworkControllers(ctx),
  ];

  return {
    kinds,
    options: resolved,
    setDelays(delays) {
      Object.assign(resolved.delays, delays);
    },
    errors: () => errorLog.list(),
    stop() {
      if (!running) return;
      running = false;
      for (const r of runners) r.stop();
      for (const c of controllers) c.stop();
    },
  };
}

export { installGuestCluster, loadBalancerName } from './guest';
export type { GuestHandle, GuestOptions, GuestDelays, GuestEvent } from './guest';
