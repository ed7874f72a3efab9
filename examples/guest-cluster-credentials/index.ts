/**
 * A guest cluster's Harvester credentials without Rancher: the ServiceAccount, token and role bindings Harvester's
 * own generator would make, with the kubeconfig written by cloud-init into every node of the guest cluster's
 * machine pool (at both paths the Harvester cloud provider and CSI driver read), wired without templating.
 *
 *   pulumi config set --secret harvester:kubeconfig "$(cat harvester.yaml)"
 *   pulumi config set guest-cluster-credentials:serverUrl https://<harvester-vip>:6443
 *   pulumi up
 *
 * Rotating the token: `pulumi config set guest-cluster-credentials:rotation 2 && pulumi up` (the pool rolls onto it).
 * Compiled to dist/examples/guest-cluster-credentials/index.js; test/examples/guest-cluster-credentials.test.ts runs it
 * under pulumi.runtime.setMocks.
 */
import * as pulumi from '@pulumi/pulumi';
import * as harvester from 'harvester-iac';

const config = new pulumi.Config('guest-cluster-credentials');
const guestCluster = config.get('guestCluster') ?? 'prod-apps';
const namespace = config.get('namespace') ?? 'default';

const credentials = new harvester.GuestClusterCredentials(guestCluster, {
  namespace,
  // Harvester's own generator writes https://<VIP>:6443; the default is the server of the stack's connection.
  serverUrl: config.get('serverUrl'),
  rotationTrigger: config.get('rotation') ?? '1',
});

const nodes = new harvester.HarvesterMachinePool(`${guestCluster}-nodes`, {
  namespace,
  count: config.getNumber('nodes') ?? 3,
  cpu: 4,
  memory: '8Gi',
  disks: [{ image: config.get('image') ?? 'default/ubuntu-22.04-server-cloudimg', size: '60Gi' }],
  networks: [{ network: config.get('network') ?? 'default/vm-net' }],
  guestCluster,
  userData: config.getSecret('userData') ?? '#cloud-config\npackage_update: true\n',
  // The credentials' cloudInit output (secret): its write_files are merged into the cloud-config above.
  guestCredentials: credentials.cloudInit,
});

export const serviceAccount = credentials.serviceAccountName;
export const cloudConfig = credentials.cloudConfig;
export const nodeNames = nodes.machines.apply((ms) => ms.map((m) => m.name));
