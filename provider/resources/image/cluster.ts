/**
 * What an image's inputs and its delete depend on besides themselves, read from the cluster (GETs and LISTs only):
 * - the rules Harvester's image webhooks enforce against other objects (docs/design/harvester-images.md
 *   §"Admission rules"): V3 a display name another image of the namespace carries (409), M3/M4 a base StorageClass
 *   that does not exist, is another image's, or no default StorageClass at all (500 from the mutator; the
 *   base-class rule is docs/design/harvester-images.md §"The rule"); plus the namespace;
 * - V38, the delete rule: a volume (PVC, any namespace) of the image's StorageClass blocks the delete; the VMs
 *   whose volumes those are, so a refusal names them.
 */
import { isHarvesterError } from '../../client/errors';
import type { HarvesterClient } from '../../client/harvester-client';
import type { KindSpec } from '../../client/kinds';
import type { KubeObject, VirtualMachineImage } from '../../client/objects';
import type { CheckFailure } from '../../core/types';
import type { ImageInputs } from './model';
import { displayNameOf } from './plan';
import { failure as fail } from '../../core/input-errors';

/** storage.k8s.io/v1 StorageClass (read only: the client has no typed accessor for it). */
const STORAGE_CLASS: KindSpec = { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, statusSubresource: false };
const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const DISPLAY_NAME_LABEL = 'harvesterhci.io/imageDisplayName';

interface StorageClass extends KubeObject {
  provisioner?: string;
  parameters?: Record<string, string>;
}


/**
 * The cluster's StorageClasses and the default one's name; undefined when the credentials may not list them
 * (a namespaced user): the rules that need them are then left to Harvester's webhook at apply.
 */
export async function storageClasses(client: HarvesterClient): Promise<{ all: StorageClass[]; defaultName?: string } | undefined> {
  try {
    const all = (await client.resource<StorageClass>(STORAGE_CLASS).list()).items;
    return { all, defaultName: all.find((sc) => sc.metadata.annotations?.[DEFAULT_CLASS] === 'true')?.metadata.name };
  } catch (err) {
    if (isHarvesterError(err, 'Forbidden')) return undefined;
    throw err;
  }
}

/** What Harvester would refuse about these inputs because of other objects; every failure at once. */
export async function clusterFailures(client: HarvesterClient, inputs: ImageInputs): Promise<CheckFailure[]> {
  const out: CheckFailure[] = [];
  const [namespace, classes, named] = await Promise.all([
    client.namespaces.get(inputs.namespace),
    storageClasses(client),
    client.images.list({ namespace: inputs.namespace, labelSelector: `${DISPLAY_NAME_LABEL}=${displayNameOf(inputs)}` }),
  ]);
  if (!namespace) out.push(fail('namespace', `namespace ${inputs.namespace} does not exist: create it, or choose an existing one`));
  const holder = named.items.find((i) => i.metadata.name !== inputs.name);
  if (holder) {
    out.push(fail('displayName', `${JSON.stringify(displayNameOf(inputs))} is already the display name of VirtualMachineImage ${inputs.namespace}/${holder.metadata.name} ` +
      '(Harvester refuses a second image of that display name in a namespace: "A resource with the same name exists"): set another displayName'));
  }
  if (!classes) return out;
  if (inputs.storageClass) {
    const sc = classes.all.find((c) => c.metadata.name === inputs.storageClass);
    if (!sc) out.push(fail('storageClass', `StorageClass ${inputs.storageClass} does not exist (Harvester refuses the image): create it, or leave storageClass out to use the default`));
    else if (sc.provisioner === 'driver.longhorn.io' && sc.parameters?.backingImage) {
      out.push(fail('storageClass', `StorageClass ${inputs.storageClass} is the storage class of an image (parameter backingImage ${sc.parameters.backingImage}); Harvester refuses it as a template ("can not use a backing image storageClass as the base storageClass template"): name a StorageClass of your own`));
    }
  } else if (!classes.defaultName) {
    out.push(fail('storageClass', 'the cluster has no default StorageClass (Harvester refuses the image: "no default storageClass found for backingImage"): name a Longhorn StorageClass here'));
  }
  return out;
}

/** The PVCs of a StorageClass, every namespace (what the delete rule V38 looks at). */
export const volumesOf = (pvcs: KubeObject[], storageClass: string): KubeObject[] =>
  pvcs.filter((p) => (p.spec as { storageClassName?: string } | undefined)?.storageClassName === storageClass);

/**
 * The volumes made from the image (its StorageClass's PVCs, the delete rule V38) and the VMs that use them, as
 * "namespace/name"; volumes already being deleted are apart (`going`): the delete waits for them instead.
 */
export async function imageUsers(client: HarvesterClient, image: VirtualMachineImage): Promise<{ volumes: string[]; vms: string[]; going: number }> {
  const sc = image.status?.storageClassName;
  if (!sc) return { volumes: [], vms: [], going: 0 }; // never initialized: Harvester lets it go (V36)
  const pvcs = volumesOf((await client.persistentVolumeClaims.list()).items, sc);
  const staying = pvcs.filter((p) => !p.metadata.deletionTimestamp);
  if (!staying.length) return { volumes: [], vms: [], going: pvcs.length };
  const volumes = staying.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
  const vms = (await client.virtualMachines.list()).items
    .filter((vm) => claimsOf(vm).some((claim) => volumes.includes(`${vm.metadata.namespace}/${claim}`)))
    .map((vm) => `${vm.metadata.namespace}/${vm.metadata.name}`);
  return { volumes: volumes.sort(), vms: vms.sort(), going: pvcs.length - staying.length };
}

/** The PVC names a VM mounts: its volumes' claims and Harvester's volumeClaimTemplates annotation. */
function claimsOf(vm: KubeObject): string[] {
  const volumes = ((vm.spec as { template?: { spec?: { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] } } } | undefined)?.template?.spec?.volumes) ?? [];
  const claims = volumes.map((v) => v.persistentVolumeClaim?.claimName).filter((c): c is string => Boolean(c));
  try {
    const templates = JSON.parse(vm.metadata.annotations?.['harvesterhci.io/volumeClaimTemplates'] ?? '[]') as { metadata?: { name?: string } }[];
    for (const t of templates) if (t.metadata?.name) claims.push(t.metadata.name);
  } catch {
    // not JSON: Harvester's webhook would have refused it; the volumes above still count
  }
  return claims;
}
