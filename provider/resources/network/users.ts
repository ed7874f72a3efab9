/**
 * Who uses a VM network, as Harvester's NAD webhook finds them (harvester-network-controller pkg/utils/vmi.go):
 * VMIs (running VMs) and VM templates whose multus networks name it as `namespace/name`, or as `name` from its
 * own namespace.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject, NetworkAttachmentDefinition } from '../../client/objects';

type Obj = Record<string, unknown>;

function names(objects: KubeObject[], nad: NetworkAttachmentDefinition, podSpecOf: (o: Obj) => Obj | undefined): string[] {
  const key = `${nad.metadata.namespace}/${nad.metadata.name}`;
  return objects
    .filter((o) =>
      (((podSpecOf(o as unknown as Obj) ?? {}).networks as Obj[] | undefined) ?? []).some((n) => {
        const ref = (n.multus as Obj | undefined)?.networkName;
        return ref === key || (ref === nad.metadata.name && o.metadata.namespace === nad.metadata.namespace);
      }),
    )
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
    .sort();
}

/** `namespace/name` of the running VMs (VMIs) and of the VMs whose template attaches the network. */
export async function networkUsers(client: HarvesterClient, nad: NetworkAttachmentDefinition): Promise<{ running: string[]; templates: string[] }> {
  const [vmis, vms] = await Promise.all([client.virtualMachineInstances.list({}), client.virtualMachines.list({})]);
  return {
    running: names(vmis.items, nad, (o) => o.spec as Obj | undefined),
    templates: names(vms.items, nad, (o) => ((o.spec as Obj | undefined)?.template as Obj | undefined)?.spec as Obj | undefined),
  };
}
