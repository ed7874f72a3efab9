/**
 * apps/v1 Deployment, served by the guest cluster only: RKE2 runs the Harvester cloud provider as Deployment
 * kube-system/harvester-cloud-provider (harvester/charts charts/harvester-cloud-provider/templates/deployment.yaml),
 * whose image tag is the cloud provider's version. The pod template is kept as given (no pods are simulated).
 */
import { KindInfo } from '../../api/types';
import { arr, int32, kubeObject, obj, opaque, openObj, str, stringMap } from '../schema/builders';

/** Registry entry for `deployments.apps` (v1). */
export const deploymentKind: KindInfo = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  listKind: 'DeploymentList',
  plural: 'deployments',
  singular: 'deployment',
  shortNames: ['deploy'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: true,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj(
      {
        replicas: int32(),
        selector: opaque(),
        strategy: opaque(),
        minReadySeconds: int32(),
        revisionHistoryLimit: int32(),
        template: openObj({
          metadata: openObj({ labels: stringMap(), annotations: stringMap() }),
          spec: openObj({ containers: arr(openObj({ name: str(), image: str() }, ['name'])) }),
        }),
      },
      ['selector', 'template'],
    ),
    status: opaque(),
  }),
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.readyReplicas' },
    { name: 'Up-to-date', type: 'integer', jsonPath: '.status.updatedReplicas' },
    { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  smpMergeKeys: { 'metadata.ownerReferences': 'uid', 'spec.template.spec.containers': 'name' },
};
