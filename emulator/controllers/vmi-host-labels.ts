/**
 * Harvester's `ReconcileFromHostLabels` (harvester pkg/controller/master/virtualmachine/vmi_controller.go):
 * for VMIs labelled `harvesterhci.io/creator: docker-machine-driver-harvester` that run on a host, copy the
 * host Node's `topology.kubernetes.io/region`, `topology.kubernetes.io/zone` and `kubernetes.io/hostname`
 * labels into VMI annotations, and remove an annotation when the host lacks the label. The trigger is a VMI
 * change only — changing a host's labels alone does not touch running VMIs (as in Harvester).
 */
import { Clock } from '../clock';
import { Store } from '../api/types';
import { HarvesterKinds } from './kinds';
import { CREATOR_NODE_DRIVER, LABEL_CREATOR, LABEL_HOSTNAME, LABEL_REGION, LABEL_ZONE } from '../util/names';
import { annotationsOf, clone, field, isDeleting, writeChanges } from '../util/objects';
import { Controller, ErrorSink, splitKey } from './runtime';

/** The host labels mirrored onto node-driver VMIs. */
export const MIRRORED_HOST_LABELS = [LABEL_REGION, LABEL_ZONE, LABEL_HOSTNAME];

/** Builds the host-label mirroring controller. */
export function createVmiHostLabelsController(ctx: {
  store: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  errors?: ErrorSink;
}): Controller {
  const { store, kinds } = ctx;
  const controller = new Controller({
    name: 'harvester-vmi-host-labels',
    clock: ctx.clock,
    errors: ctx.errors,
    reconcile: (key) => {
      const { namespace, name } = splitKey(key);
      const vmi = store.get(kinds.vmi, namespace, name);
      if (!vmi || isDeleting(vmi) || vmi.metadata.labels?.[LABEL_CREATOR] !== CREATOR_NODE_DRIVER) return;
      const nodeName = field<string>(vmi, 'status', 'nodeName');
      if (!nodeName) return;
      const node = store.get(kinds.node, undefined, nodeName);
      if (!node) return;
      const desired = clone(vmi);
      const annotations = annotationsOf(desired, true);
      const hostLabels = node.metadata.labels ?? {};
      for (const key of MIRRORED_HOST_LABELS) {
        if (hostLabels[key] !== undefined) annotations[key] = hostLabels[key];
        else delete annotations[key];
      }
      writeChanges(store, kinds.vmi, vmi, desired, { fieldManager: 'harvester-vmi-controller' });
    },
  });
  controller.watch(store, kinds.vmi);
  return controller;
}
