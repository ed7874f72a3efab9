/**
 * A guest Kubernetes cluster's nodes on Harvester with its ingress exposed by Harvester's load balancer:
 * a machine pool of worker VMs (labelled for the guest cluster, as Rancher's node driver labels them), an IP pool
 * reserved for that guest cluster, and a load balancer sending HTTP and HTTPS to the ingress controller on every
 * worker, health-checked on its HTTPS port.
 *
 *   pulumi config set --secret harvester:kubeconfig "$(cat harvester.yaml)"
 *   pulumi config set guest-cluster-lb:image default/ubuntu-22.04-server-cloudimg   (and network, subnet, range)
 *   pulumi up
 *
 * Compiled to dist/examples/guest-cluster-lb/index.js; test/examples/guest-cluster-lb.test.ts runs it under
 * pulumi.runtime.setMocks.
 */
import * as pulumi from '@pulumi/pulumi';
import * as harvester from 'harvester-iac';

const config = new pulumi.Config('guest-cluster-lb');
const guestCluster = config.get('guestCluster') ?? 'prod-apps';
const network = config.get('network') ?? 'default/vm-net';

const workers = new harvester.HarvesterMachinePool(`${guestCluster}-workers`, {
  count: config.getNumber('workers') ?? 3,
  cpu: 4,
  memory: '16Gi',
  disks: [{ image: config.get('image') ?? 'default/ubuntu-22.04-server-cloudimg', size: '80Gi' }],
  networks: [{ network }],
  zones: config.getObject<string[]>('zones'),
  guestCluster,
  // The RKE2 agent would be installed by Rancher; qemu-guest-agent is merged in by the provider.
  userData: config.getSecret('userData') ?? '#cloud-config\npackage_update: true\n',
  rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
});

// Addresses only this guest cluster's load balancers may take.
const ingressAddresses = new harvester.HarvesterIPPool(`${guestCluster}-ingress`, {
  description: `ingress addresses of guest cluster ${guestCluster}`,
  ranges: [{ subnet: config.get('subnet') ?? '172.16.100.0/24', rangeStart: config.get('rangeStart') ?? '172.16.100.230', rangeEnd: config.get('rangeEnd') ?? '172.16.100.239', gateway: config.get('gateway') ?? '172.16.100.1' }],
  selector: { network, priority: 10, scope: [{ namespace: 'default' }] },
});

const ingress = new harvester.HarvesterLoadBalancer(`${guestCluster}-ingress`, {
  description: `ingress of guest cluster ${guestCluster}`,
  network,
  ipPool: ingressAddresses.name,
  listeners: [
    { name: 'http', port: 80, backendPort: 80 },
    { name: 'https', port: 443, backendPort: 443 },
  ],
  backendServerSelector: workers.backendSelector,
  healthCheck: { port: 443, failureThreshold: 3, periodSeconds: 5, timeoutSeconds: 3 },
});

export const ingressAddress = ingress.address;
export const backends = ingress.backendServers;
export const workerNames = workers.machines.apply((ms) => ms.map((m) => m.name));
