/**
 * A guest Kubernetes cluster (RKE2) on Harvester from zero: three servers behind a control-plane load balancer, a
 * pool of two agents, the Harvester cloud provider wired in, and the admin kubeconfig as a secret output — in one
 * `up`, without Rancher. test/examples/guest-cluster.test.ts runs it through the local runner against the embedded
 * emulator (which simulates RKE2 from the VMs' user data) and drives `kubectl --kubeconfig <output>`.
 *
 *   npx harvester-iac-run up --program dist/examples/guest-cluster/index.js --config harvester:kubeconfig=…
 *   pulumi up            (with `main: dist/examples/guest-cluster/index.js` in a Pulumi.yaml)
 *
 * Config (`guest-cluster:<key>`): version (the RKE2 release), servers, agents, subnet/rangeStart/rangeEnd (the
 * control plane's addresses: a range of your network on a real Harvester), image and network ("namespace/name" of
 * existing ones; by default the program makes its own), name, namespace, serviceSubnet/serviceRangeStart/serviceRangeEnd (the
 * addresses of the guest's LoadBalancer Services), clusterCidr, readyTimeout.
 */
import * as pulumi from '@pulumi/pulumi';
import * as harvester from 'harvester-iac';

const config = new pulumi.Config('guest-cluster');
const subnet = config.get('subnet') ?? '172.16.100.0/24';

// The cloud image every node boots (Harvester downloads it) and the VM network they sit on.
const image =
  config.get('image') ??
  new harvester.HarvesterImage('guest-image', {
    displayName: 'ubuntu-24.04-server-cloudimg',
    url: 'https://cloud-images.ubuntu.com/releases/24.04/release/ubuntu-24.04-server-cloudimg-amd64.img',
    osType: 'ubuntu',
  }).id;
const network = config.get('network') ?? new harvester.HarvesterNetwork('guest-net', { vlan: 120, description: 'VM network of the guest cluster' }).id;

const cluster = new harvester.GuestCluster(config.get('name') ?? 'demo', {
  namespace: config.get('namespace'),
  kubernetesVersion: config.get('version') ?? 'v1.32.5+rke2r1',
  image,
  network,
  controlPlane: {
    servers: config.getNumber('servers') ?? 3,
    cpu: 2,
    memory: '4Gi',
    diskSize: '30Gi',
    // The load balancer's address comes from a pool of its own; it is in the servers' certificates and the kubeconfig.
    addresses: { subnet, rangeStart: config.get('rangeStart') ?? '172.16.100.240', rangeEnd: config.get('rangeEnd') ?? '172.16.100.249' },
  },
  // Addresses of the guest's Services of type LoadBalancer (Harvester's load balancers, made by its cloud provider).
  serviceAddresses: { subnet: config.get('serviceSubnet') ?? subnet, rangeStart: config.get('serviceRangeStart') ?? '172.16.100.230', rangeEnd: config.get('serviceRangeEnd') ?? '172.16.100.239' },
  agentPools: [{ name: 'workers', count: config.getNumber('agents') ?? 2, cpu: 2, memory: '4Gi', diskSize: '30Gi', nodeLabels: { 'example.com/pool': 'workers' } }],
  // What every server shares and RKE2 cannot change on a running cluster: a change replaces the whole cluster.
  networking: { clusterCidr: config.get('clusterCidr') ?? '10.42.0.0/16' },
  readyTimeout: config.get('readyTimeout') ?? '20m',
});

export const kubeconfig = cluster.kubeconfig;
export const endpoint = cluster.endpoint;
export const caCertificate = cluster.caCertificate;
export const nodes = cluster.nodes;
