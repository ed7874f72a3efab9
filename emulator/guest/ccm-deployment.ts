/**
 * The cloud provider's own Deployment in the guest, as RKE2's bundled chart installs it
 * (harvester/charts charts/harvester-cloud-provider: Deployment `harvester-cloud-provider` in kube-system, one
 * container of that name, image `rancher/harvester-cloud-provider:<version>`, `--cluster-name` from Rancher).
 * Clients read the cloud provider's version from its image tag; no pods are simulated.
 */
import { StatusError } from '../api/errors';
import { Store } from '../api/types';
import { ResolvedGuestOptions } from './options';

/** Name and namespace of the Deployment. */
export const CCM_DEPLOYMENT = { namespace: 'kube-system', name: 'harvester-cloud-provider' } as const;

/** Creates the Deployment when the guest registry serves apps/v1 Deployment and it does not exist yet. */
export function installCcmDeployment(guest: Store, options: ResolvedGuestOptions): void {
  const kind = guest.registry.byKind('apps/v1', 'Deployment');
  if (!kind || guest.get(kind, CCM_DEPLOYMENT.namespace, CCM_DEPLOYMENT.name)) return;
  const labels = { 'app.kubernetes.io/name': CCM_DEPLOYMENT.name, 'app.kubernetes.io/instance': CCM_DEPLOYMENT.name };
  try {
    guest.create(kind, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: CCM_DEPLOYMENT.name, namespace: CCM_DEPLOYMENT.namespace, labels: { ...labels, 'app.kubernetes.io/version': options.ccmVersion } },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: CCM_DEPLOYMENT.name,
            hostNetwork: true,
            containers: [{
              name: CCM_DEPLOYMENT.name,
              image: `rancher/harvester-cloud-provider:${options.ccmVersion}`,
              command: ['harvester-cloud-provider'],
              args: ['--cloud-config=/etc/kubernetes/cloud-config', `--cluster-name=${options.clusterName}`],
            }],
          },
        },
      },
    });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}
