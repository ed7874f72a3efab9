/**
 * When two values of the same input mean the same thing: quantities by value ("4Gi" = "4096Mi"),
 * references qualified ("vm-net" = "default/vm-net" in namespace default), defaults filled in, maps and
 * lists by content. Used by `diff` (recorded outputs vs new inputs) and by read-back (live vs recorded),
 * so a respelling is never a change and never drift.
 */
import { stableStringify } from '../../core/hash';
import { sameQuantity } from '../../core/quantity';
import { machinePoolSchema, type DiskInputs, type NetworkInputs } from './model';
import { qualify, sameRef } from '../../core/object-ref';

function sameDisks(a: DiskInputs[] | undefined, b: DiskInputs[] | undefined, ns: string): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((d, i) => {
    const e = y[i];
    const images = d.image === undefined || e.image === undefined ? d.image === e.image : sameRef(d.image, e.image, ns);
    const classes = d.image !== undefined || (d.storageClass ?? undefined) === (e.storageClass ?? undefined);
    return images && classes && sameQuantity(d.size, e.size) && (d.bus ?? 'virtio') === (e.bus ?? 'virtio');
  });
}

function sameNetworks(a: NetworkInputs[] | undefined, b: NetworkInputs[] | undefined, ns: string): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((n, i) => sameRef(n.network, y[i].network, ns) && (n.model ?? 'virtio') === (y[i].model ?? 'virtio') && (n.type ?? 'bridge') === (y[i].type ?? 'bridge'));
}

const sameJson = (a: unknown, b: unknown) => stableStringify(a ?? {}) === stableStringify(b ?? {});

/**
 * DEFAULTS of inputs whose absence means the default (for comparing values recorded before defaults), read
 * from the model: what each input parses to when left out.
 */
const DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.entries(machinePoolSchema.shape).flatMap(([key, field]) => {
    const parsed = field.safeParse(undefined);
    return parsed.success && parsed.data !== undefined ? [[key, parsed.data]] : [];
  }),
);

/** sameInput says whether two values of input `key` are equivalent, in pool namespace `ns`. */
export function sameInput(key: string, a: unknown, b: unknown, ns: string): boolean {
  const x = a ?? DEFAULTS[key];
  const y = b ?? DEFAULTS[key];
  switch (key) {
    case 'memory':
      return sameQuantity(x as string, y as string);
    case 'disks':
      return sameDisks(x as DiskInputs[], y as DiskInputs[], ns);
    case 'networks':
      return sameNetworks(x as NetworkInputs[], y as NetworkInputs[], ns);
    case 'sshKeys':
      return sameJson(((x as string[]) ?? []).map((k) => qualify(k, ns)), ((y as string[]) ?? []).map((k) => qualify(k, ns)));
    case 'affinity':
    case 'labels':
    case 'annotations':
    case 'rollingUpdate':
    case 'timeouts':
    case 'zones':
      return sameJson(x, y);
    default:
      return x === y;
  }
}
