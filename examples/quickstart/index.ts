/**
 * The quickstart: a Pulumi program (TypeScript, the typed SDK) declaring Harvester infrastructure.
 *
 *   npm start                       runs it against the embedded Harvester emulator (scripts/quickstart.ts tells the story)
 *   pulumi up                       from the repository root (Pulumi.yaml names this program), with
 *                                   `pulumi config set --secret harvester:kubeconfig "$(cat kubeconfig)"`
 *
 * From an empty Harvester: the program declares its own cloud image, VM network and SSH key pair before the pool,
 * and destroy removes them too. On a real Harvester that already has them, set the quickstart:image / network /
 * sshKey config keys ("namespace/name") to use those instead, and quickstart:hosts and the address range to yours
 * (README "Quickstart").
 */
import * as pulumi from '@pulumi/pulumi';
import * as harvester from 'harvester-iac';

const config = new pulumi.Config('quickstart');
const hostNames = config.getObject<string[]>('hosts') ?? ['harvester-node-0', 'harvester-node-1', 'harvester-node-2'];
const region = config.get('region') ?? 'eu-west';
const subnet = config.get('subnet') ?? '172.16.100.0/24';

// The cloud image the VMs boot from: Harvester downloads it (create waits, printing the download's progress).
const image =
  config.get('image') ??
  new harvester.HarvesterImage('ubuntu-noble', {
    displayName: 'ubuntu-24.04-server-cloudimg',
    url: 'https://cloud-images.ubuntu.com/releases/24.04/release/ubuntu-24.04-server-cloudimg-amd64.img',
    osType: 'ubuntu',
    description: 'Ubuntu 24.04 LTS cloud image for the quickstart pool',
  }).id;

// A VM network: VLAN 100 on the management cluster network, with its subnet and gateway given.
const network =
  config.get('network') ??
  new harvester.HarvesterNetwork('quickstart-net', {
    vlan: 100,
    route: { mode: 'manual', cidr: subnet, gateway: config.get('gateway') ?? '172.16.100.1' },
    description: 'VM network of the quickstart pool',
  }).id;

// The SSH key the VMs accept (a public key only; quickstart:publicKey to use yours).
const sshKey =
  config.get('sshKey') ??
  new harvester.HarvesterKeyPair('quickstart-key', {
    publicKey: config.get('publicKey') ?? 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO+RWp2+pdRm0dxSIEdI4DNmBxqPF7rBRC+oKsnpXnMZ quickstart-demo',
    labels: { team: 'platform' },
  }).id;

// Region and zone labels on the Harvester hosts: one zone per host. Deleting this resource restores the
// hosts' previous labels.
const site = new harvester.TopologyLabels('site', {
  hosts: Object.fromEntries(hostNames.map((host, i) => [host, { region, zone: `${region}-${String.fromCharCode(97 + i)}` }])),
});

// Three guest-cluster node VMs from a cloud image, spread evenly over the zones the labels above define
// (using the output makes the pool wait for the labels).
const workers = new harvester.HarvesterMachinePool('workers', {
  count: 3,
  cpu: 2,
  memory: '4Gi',
  disks: [{ image, size: '20Gi' }],
  networks: [{ network }],
  sshKeys: [sshKey],
  zones: site.zones,
  guestCluster: 'quickstart',
  // qemu-guest-agent is merged into this cloud-config (guestAgent "install", the default); user data is a
  // secret in state and outputs keep only a keyed digest of it.
  userData: '#cloud-config\npackage_update: true\nruncmd:\n  - echo "hello from harvester-iac"\n',
});

// An IP pool on the VM network, and Harvester's load balancer in front of the pool's VMs (the guest cluster's
// API server port), with a TCP health check.
const addresses = new harvester.HarvesterIPPool('quickstart-pool', {
  ranges: [{ subnet, rangeStart: config.get('rangeStart') ?? '172.16.100.200', rangeEnd: config.get('rangeEnd') ?? '172.16.100.220' }],
  selector: { network, scope: [{ namespace: 'default' }] },
});

const apiServer = new harvester.HarvesterLoadBalancer('workers-api', {
  network,
  ipPool: addresses.name,
  listeners: [{ name: 'kube-api', port: 6443, backendPort: 6443 }],
  backendServerSelector: workers.backendSelector,
  healthCheck: { port: 6443 },
});

export const zones = site.zones;
export const apiServerAddress = apiServer.address;
export const workerAddresses = workers.machines.apply((machines) => machines.map((m) => `${m.name} ${m.zone ?? '-'} ${m.ip ?? 'no address'}`));
export const readyWorkers = workers.readyCount;
