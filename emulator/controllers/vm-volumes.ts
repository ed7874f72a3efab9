/**
 * Harvester's VM volume handling (harvester pkg/controller/master/virtualmachine/vm_controller.go):
 * - `createPVCsFromAnnotation`: every entry of the VM annotation `harvesterhci.io/volumeClaimTemplates` becomes
 *   a PVC in the VM's namespace when missing (owned by nobody, as in Harvester), and an existing PVC is
 *   expanded when the entry asks for more storage (never shrunk);
 * - `removePVCInRemovedPVCsAnnotation` (finalizer CleanupPVCAndSnapshot): on VM deletion, only the PVCs named
 *   in the comma-separated `harvesterhci.io/removedPersistentVolumeClaims` are deleted; every other claim of
 *   the VM stays. `harvesterhci.io/removeAllPersistentVolumeClaims` (set by Rancher's harvestercleanup
 *   controller) does not widen this in Harvester's VM controller; only the load-balancer controller reads it.
 */
import { KubeObject, Store } from '../api/types';
import { HarvesterKinds } from './kinds';
import { ANN_REMOVED_PVCS, ANN_VOLUME_CLAIM_TEMPLATES } from '../util/names';
import { clone, deleteIfPresent, field, specOf, writeChanges } from '../util/objects';
import { parseQuantity } from '../util/quantity';

/** One entry of the volumeClaimTemplates annotation (a PersistentVolumeClaim, loosely typed). */
export interface ClaimTemplate {
  metadata?: { name?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** Parses the annotation; throws a SyntaxError on malformed JSON, returns [] when absent. */
export function claimTemplatesOf(vm: KubeObject): ClaimTemplate[] {
  const raw = vm.metadata.annotations?.[ANN_VOLUME_CLAIM_TEMPLATES];
  if (!raw) return [];
  const parsed = JSON.parse(raw) as unknown;
  if (!Array.isArray(parsed)) throw new SyntaxError('expected a JSON array of PersistentVolumeClaims');
  return parsed as ClaimTemplate[];
}

/** The requested storage of a claim template or PVC (bytes), or undefined. */
export function requestedStorage(claim: unknown): number | undefined {
  return parseQuantity(field(claim, 'spec', 'resources', 'requests', 'storage'));
}

/** Creates missing PVCs and grows smaller ones. Malformed annotations are left to the webhook. */
export function ensureClaims(store: Store, kinds: HarvesterKinds, vm: KubeObject, manager: string): void {
  let templates: ClaimTemplate[];
  try {
    templates = claimTemplatesOf(vm);
  } catch {
    return;
  }
  const namespace = String(vm.metadata.namespace);
  for (const template of templates) {
    const name = template.metadata?.name;
    if (!name) continue;
    const existing = store.get(kinds.pvc, namespace, name);
    if (!existing) {
      const metadata: KubeObject['metadata'] = { name, namespace };
      if (template.metadata?.annotations) metadata.annotations = { ...template.metadata.annotations };
      if (template.metadata?.labels) metadata.labels = { ...template.metadata.labels };
      store.create(kinds.pvc, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec: clone(template.spec ?? {}) }, { fieldManager: manager });
      continue;
    }
    const wanted = requestedStorage(template);
    const have = requestedStorage(existing);
    if (wanted !== undefined && have !== undefined && wanted > have) {
      const desired = clone(existing);
      const spec = specOf(desired, true);
      const resources = (spec.resources ?? {}) as Record<string, unknown>;
      resources.requests = { ...((resources.requests ?? {}) as Record<string, unknown>), storage: field(template, 'spec', 'resources', 'requests', 'storage') };
      spec.resources = resources;
      writeChanges(store, kinds.pvc, existing, desired, { fieldManager: manager });
    }
  }
}

/** Deletes the PVCs a deleted VM asked to remove. */
export function removeClaimsOfDeletedVm(store: Store, kinds: HarvesterKinds, vm: KubeObject): void {
  const namespace = String(vm.metadata.namespace);
  const annotations = vm.metadata.annotations ?? {};
  const names = new Set(
    (annotations[ANN_REMOVED_PVCS] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  for (const name of names) deleteIfPresent(store, kinds.pvc, namespace, name);
}
