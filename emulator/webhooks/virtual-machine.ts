/**
 * Harvester's VirtualMachine webhooks.
 *
 * Mutator (harvester pkg/webhook/resources/virtualmachine/mutator.go), on create/update of the main resource:
 * - `resources.requests`, `domain.memory.guest` and `domain.cpu.maxSockets` from the limits and the live
 *   `overcommit-config` (vm-resources.ts: 2 CPUs / 4Gi at 1600/150 → 125m / 2730Mi), on update only when the
 *   limits change; `architecture: amd64` (KubeVirt's defaulter);
 * - `terminationGracePeriodSeconds` from Setting `default-vm-termination-grace-period-seconds` (120);
 * - required node affinity from the Multus networks and dedicated CPUs, rebuilt on every write (vm-affinity.ts;
 *   a Multus network whose NAD does not exist refuses the VM);
 * - on update, interface `macAddress` from the persisted annotation `harvesterhci.io/mac-address`.
 * Validator (…/virtualmachine/validator.go): volumeClaimTemplates annotation parses and names each PVC; a PVC
 * is used by one VM only; terminationGracePeriodSeconds ≥ 0; reservedMemory < limits.memory and, with guest memory,
 * guest + reservedMemory ≤ limits.memory (checkReservedMemoryAnnotation, v1.6.1 to master); on update no
 * shrinking (checkResizeVolumes), no storage-class change, and no growing while the VM runs.
 */
import { AdmissionHook, AdmissionRequest, KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import { ANN_RESERVED_MEMORY, ANN_VOLUME_CLAIM_TEMPLATES } from '../util/names';
import { field, isDeleting } from '../util/objects';
import { parseQuantity } from '../util/quantity';
import { settingText } from '../controllers/overcommit';
import { isDedicatedCpu, needsResourceUpdate, patchVmResources } from './vm-resources';
import { ClaimTemplate, claimTemplatesOf, requestedStorage } from '../controllers/vm-volumes';
import { persistedMacs } from '../controllers/vm-network';
import { wantsRunning, runStrategyOf } from '../controllers/vm-status';
import { HARVESTER_MUTATOR, HARVESTER_VALIDATOR, denyInvalid } from './admission';
import { patchAffinity } from './vm-affinity';

const ANNOTATION_FIELD = `metadata.annotations.${ANN_VOLUME_CLAIM_TEMPLATES}`;

function patchMacs(podSpec: Record<string, unknown>, vm: KubeObject): void {
  const macs = persistedMacs(vm);
  for (const iface of field<Record<string, unknown>[]>(podSpec, 'domain', 'devices', 'interfaces') ?? []) {
    const mac = macs[String(iface.name)];
    if (mac && !iface.macAddress) iface.macAddress = mac;
  }
}

function mutate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const vm = req.object;
  if (!vm || req.subresource || isDeleting(vm)) return;
  const template = field<Record<string, unknown>>(vm, 'spec', 'template');
  const podSpec = template?.spec as Record<string, unknown> | undefined;
  if (!podSpec) return;
  if (req.operation === 'CREATE' || (req.oldObject && needsResourceUpdate(req.oldObject, vm))) patchVmResources(podSpec, vm, req.store, kinds);
  if (podSpec.terminationGracePeriodSeconds === undefined) {
    podSpec.terminationGracePeriodSeconds = Number(settingText(req.store, kinds, 'default-vm-termination-grace-period-seconds') ?? 120);
  }
  if (podSpec.architecture === undefined) podSpec.architecture = 'amd64';
  patchAffinity(podSpec, String(vm.metadata.namespace), isDedicatedCpu(vm), req.store, kinds);
  if (req.operation === 'UPDATE') patchMacs(podSpec, vm);
}

function templatesOrDeny(vm: KubeObject): ClaimTemplate[] {
  let templates: ClaimTemplate[];
  try {
    templates = claimTemplatesOf(vm);
  } catch (err) {
    throw denyInvalid(HARVESTER_VALIDATOR, `the volumeClaimTemplates annotaion is invalid: ${(err as Error).message}`, 'metadata.annotations');
  }
  if (templates.some((t) => !t?.metadata?.name)) {
    throw denyInvalid(HARVESTER_VALIDATOR, 'the volumeClaimTemplates annotaion is invalid: PVC name is required', 'metadata.annotations');
  }
  return templates;
}

function checkSpec(vm: KubeObject, store: StoreReader, kinds: HarvesterKinds): void {
  templatesOrDeny(vm);
  const podSpec = (field<Record<string, unknown>>(vm, 'spec', 'template', 'spec') ?? {}) as Record<string, unknown>;
  const claims = ((podSpec.volumes as Record<string, unknown>[] | undefined) ?? [])
    .map((v) => field<string>(v, 'persistentVolumeClaim', 'claimName'))
    .filter((c): c is string => Boolean(c));
  if (claims.length > 0) {
    for (const other of store.list(kinds.vm, { namespace: vm.metadata.namespace }).items) {
      if (other.metadata.name === vm.metadata.name) continue;
      const used = ((field<Record<string, unknown>[]>(other, 'spec', 'template', 'spec', 'volumes') ?? []) as Record<string, unknown>[]).map(
        (v) => field<string>(v, 'persistentVolumeClaim', 'claimName'),
      );
      const clash = claims.find((c) => used.includes(c));
      if (clash) {
        throw denyInvalid(HARVESTER_VALIDATOR, `the volume ${clash} is already used by VM ${other.metadata.namespace}/${other.metadata.name}`, 'spec.templates.spec.volumes');
      }
    }
  }
  const grace = podSpec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0) {
    throw denyInvalid(HARVESTER_VALIDATOR, "Termination grace period can't be negative", 'spec.Template.Spec.TerminationGracePeriodSeconds');
  }
  const reservedText = vm.metadata.annotations?.[ANN_RESERVED_MEMORY];
  const limit = parseQuantity(field(podSpec, 'domain', 'resources', 'limits', 'memory'));
  if (reservedText && limit) {
    const reservedField = `metadata.annotations[${ANN_RESERVED_MEMORY}]`;
    const reserved = parseQuantity(reservedText);
    if (reserved === undefined) throw denyInvalid(HARVESTER_VALIDATOR, `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, reservedField);
    if (reserved >= limit) throw denyInvalid(HARVESTER_VALIDATOR, 'reservedMemory cannot be equal or greater than limits.memory', reservedField);
    const guest = parseQuantity(field(podSpec, 'domain', 'memory', 'guest'));
    if (guest !== undefined && guest + reserved > limit) {
      // Quantity.Value(): whole bytes, rounded up.
      const bytes = (q: number) => Math.ceil(q);
      throw denyInvalid(
        HARVESTER_VALIDATOR,
        `guest memory ${bytes(guest)} plus reservedMemory ${bytes(reserved)} cannot be greater than limits.memory ${bytes(limit)}`,
        reservedField,
      );
    }
    if (reserved < 0) throw denyInvalid(HARVESTER_VALIDATOR, 'reservedMemory cannot be less than 0', reservedField);
  }
}

function isStopped(vm: KubeObject, store: StoreReader, kinds: HarvesterKinds): boolean {
  return wantsRunning(runStrategyOf(vm)) !== true && !store.get(kinds.vmi, vm.metadata.namespace, String(vm.metadata.name));
}

function checkResize(oldVm: KubeObject, vm: KubeObject, store: StoreReader, kinds: HarvesterKinds, requireStop: boolean): void {
  let before: ClaimTemplate[];
  try {
    before = claimTemplatesOf(oldVm);
  } catch {
    return;
  }
  const after = templatesOrDeny(vm);
  const previous = new Map(before.filter((t) => t?.metadata?.name).map((t) => [t.metadata!.name!, t]));
  let grows = false;
  for (const next of after) {
    const old = previous.get(next.metadata!.name!);
    if (!old) continue;
    const oldSc = field(old, 'spec', 'storageClassName');
    const newSc = field(next, 'spec', 'storageClassName');
    if (oldSc !== newSc) {
      throw denyInvalid(
        HARVESTER_VALIDATOR,
        `storage class names for the volumes in the ${ANN_VOLUME_CLAIM_TEMPLATES} annotation cannot be changed`,
        ANNOTATION_FIELD,
      );
    }
    const was = requestedStorage(old);
    const is = requestedStorage(next);
    if (was !== undefined && is !== undefined && is < was) {
      throw denyInvalid(HARVESTER_VALIDATOR, `${next.metadata!.name} PVC requests storage can't be less than previous value`, ANNOTATION_FIELD);
    }
    if (was !== undefined && is !== undefined && is > was) grows = true;
  }
  if (grows && requireStop && !isStopped(vm, store, kinds)) {
    throw denyInvalid(HARVESTER_VALIDATOR, 'please stop the VM before resizing volumes', ANNOTATION_FIELD);
  }
}

/** The VM mutating + validating webhooks. */
export function virtualMachineWebhooks(kinds: HarvesterKinds, options: { volumeResizeRequiresStop: boolean }): AdmissionHook[] {
  const resources = ['virtualmachines.kubevirt.io'];
  return [
    { name: HARVESTER_MUTATOR, resources, mutate: (req) => mutate(req, kinds) },
    {
      name: HARVESTER_VALIDATOR,
      resources,
      validate: (req) => {
        const vm = req.object;
        if (!vm || req.operation === 'DELETE' || req.subresource || isDeleting(vm)) return;
        checkSpec(vm, req.store, kinds);
        if (req.operation === 'UPDATE' && req.oldObject) {
          checkResize(req.oldObject, vm, req.store, kinds, options.volumeResizeRequiresStop);
        }
      },
    },
  ];
}
