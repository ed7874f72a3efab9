/** All admission webhooks of the simulated Harvester, in registration order (mutators before validators). */
import { AdmissionHook } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import { clusterNetworkWebhooks } from './cluster-network';
import { ipPoolWebhooks } from './ip-pool';
import { networkAttachmentDefinitionWebhooks } from './network-attachment-definition';
import { keyPairWebhooks } from './key-pair';
import { loadBalancerWebhooks } from './load-balancer';
import { virtualMachineImageWebhooks } from './virtual-machine-image';
import { virtualMachineWebhooks } from './virtual-machine';
import { kubevirtVirtualMachineWebhooks } from './kubevirt-virtual-machine';
import { migrationWebhooks } from './virtual-machine-instance-migration';
import { settingWebhooks } from './setting';

/** Builds the webhooks; register each with `store.addAdmissionHook`. */
export function harvesterWebhooks(kinds: HarvesterKinds, options: { volumeResizeRequiresStop: boolean }): AdmissionHook[] {
  return [
    ...virtualMachineWebhooks(kinds, options),
    ...kubevirtVirtualMachineWebhooks(),
    ...migrationWebhooks(kinds),
    ...settingWebhooks(),
    ...virtualMachineImageWebhooks(kinds),
    ...keyPairWebhooks(),
    ...loadBalancerWebhooks(kinds),
    ...ipPoolWebhooks(kinds),
    ...networkAttachmentDefinitionWebhooks(kinds),
    ...clusterNetworkWebhooks(kinds),
  ];
}
