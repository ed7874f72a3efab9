/**
 * KubeVirt's VirtualMachine validator (virt-api `virtualmachine-validator.kubevirt.io`), the part that reviews the
 * template's interfaces against its networks (pkg/network/admitter: validateMasqueradeBinding):
 * - a `masquerade` interface is only allowed on the pod network; on a Multus (VM) network it is refused with
 *   "Masquerade interface only implemented with pod network", field `…interfaces[i].name` (422 Invalid);
 * - every interface needs a network of the same name ("… not found" otherwise).
 */
import { AdmissionHook, AdmissionRequest } from '../api/types';
import { field } from '../util/objects';
import { webhookDenial } from './admission';

const VALIDATOR = 'virtualmachine-validator.kubevirt.io';
const INTERFACES = 'spec.template.spec.domain.devices.interfaces';

type Named = { name?: string } & Record<string, unknown>;

function validate(req: AdmissionRequest): void {
  const vm = req.object;
  if (!vm || (req.operation !== 'CREATE' && req.operation !== 'UPDATE') || req.subresource === 'status') return;
  const interfaces = field<Named[]>(vm, 'spec', 'template', 'spec', 'domain', 'devices', 'interfaces') ?? [];
  const networks = new Map((field<Named[]>(vm, 'spec', 'template', 'spec', 'networks') ?? []).map((n) => [n.name, n]));
  const causes: { reason: string; message: string; field: string }[] = [];
  interfaces.forEach((iface, i) => {
    const network = networks.get(iface.name);
    const at = `${INTERFACES}[${i}].name`;
    if (!network) {
      causes.push({ reason: 'FieldValueInvalid', message: `${at} '${iface.name}' not found.`, field: at });
    } else if (iface.masquerade !== undefined && network.pod === undefined) {
      causes.push({ reason: 'FieldValueInvalid', message: 'Masquerade interface only implemented with pod network', field: at });
    }
  });
  if (causes.length > 0) {
    throw webhookDenial(VALIDATOR, 422, 'Invalid', causes.map((c) => c.message).join(', '), { causes });
  }
}

/** The KubeVirt VirtualMachine validator. */
export function kubevirtVirtualMachineWebhooks(): AdmissionHook[] {
  return [{ name: VALIDATOR, resources: ['virtualmachines.kubevirt.io'], validate }];
}
