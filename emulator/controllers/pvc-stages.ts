/**
 * The storage side of PVCs (Longhorn CSI + the PV binder), one row per transition:
 * 1. `pvc-bound`   not Bound → spec.volumeName `pvc-<uid>`, status Bound with capacity = request (delays.pvcBind)
 * 2. `pvc-resized` Bound, capacity < request → capacity = request (online expansion done)   (delays.pvcBind)
 */
import { KubeObject } from '../api/types';
import { ResolvedHarvesterOptions } from './options';
import { field, isDeleting, specOf, statusOf } from '../util/objects';
import { parseQuantity } from '../util/quantity';
import { Stage } from './stages';

function requested(pvc: KubeObject): unknown {
  return field(pvc, 'spec', 'resources', 'requests', 'storage');
}

/** The PVC stage table. */
export function pvcStages(options: ResolvedHarvesterOptions): Stage[] {
  return [
    {
      name: 'pvc-bound',
      when: (pvc) => !isDeleting(pvc) && field(pvc, 'status', 'phase') !== 'Bound',
      delayMs: () => options.delays.pvcBind,
      next: (pvc) => {
        const spec = specOf(pvc, true);
        if (!spec.volumeName) spec.volumeName = `pvc-${pvc.metadata.uid}`;
        const status = statusOf(pvc);
        status.phase = 'Bound';
        status.accessModes = spec.accessModes ?? ['ReadWriteOnce'];
        const storage = requested(pvc);
        if (storage !== undefined) status.capacity = { storage };
        return pvc;
      },
    },
    {
      name: 'pvc-resized',
      when: (pvc) => {
        if (isDeleting(pvc) || field(pvc, 'status', 'phase') !== 'Bound') return false;
        const want = parseQuantity(requested(pvc));
        const have = parseQuantity(field(pvc, 'status', 'capacity', 'storage'));
        return want !== undefined && (have === undefined || want > have);
      },
      delayMs: () => options.delays.pvcBind,
      next: (pvc) => {
        statusOf(pvc).capacity = { storage: requested(pvc) };
        return pvc;
      },
    },
  ];
}
