import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { desiredVirtualMachines, resolveRolling, suffixFrom } from '../../../../../provider/resources/machine-pool/desired';
import { context, inputs } from './fixtures';

const get = (o: unknown, ...path: (string | number)[]): any => path.reduce((c: any, k) => (c == null ? c : c[k]), o);

describe('machine-pool desiredVirtualMachines', () => {
  it('names VMs <name>-<index> and carries the driver-compatible and ownership labels on VM and template', () => {
    const pool = desiredVirtualMachines(inputs({ guestCluster: 'gc31', poolName: 'pool1' }), context());
    assert.deepEqual(pool.machines.map((m) => m.name), ['pool-a-0', 'pool-a-1', 'pool-a-2']);
    const vm = pool.machines[1].vm;
    const want = {
      'harvesterhci.io/creator': 'docker-machine-driver-harvester',
      'harvesterhci.io/vmName': 'pool-a-1',
      'harvesterhci.io/machineSetName': 'default-gc31-pool1',
      'guestcluster.harvesterhci.io/name': 'gc31',
      'nodepool.harvesterhci.io/name': 'pool1',
      'app.kubernetes.io/managed-by': 'harvester-iac',
      'harvester-iac.io/resource-type': 'machine-pool',
      'harvester-iac.io/resource-name': 'pool-a',
      'harvester-iac.io/pool-index': '1',
    };
    assert.deepEqual(vm.metadata.labels, want);
    assert.deepEqual(vm.spec?.template?.metadata?.labels, want);
    assert.equal(pool.selector, 'app.kubernetes.io/managed-by=harvester-iac,harvester-iac.io/resource-type=machine-pool,harvester-iac.io/resource-name=pool-a');
  });

  it('without a volume suffix source, claim names take a stable suffix from the namespace and VM name', () => {
    const { volumeSuffix: _random, ...fixed } = context();
    const pool = desiredVirtualMachines(inputs({ count: 2 }), fixed);
    assert.deepEqual(pool.machines.map((m) => m.claimNames[0]), [`pool-a-0-disk-0-${suffixFrom('default/pool-a-0')}`, `pool-a-1-disk-0-${suffixFrom('default/pool-a-1')}`]);
    assert.notEqual(suffixFrom('default/pool-a-0'), suffixFrom('default/pool-a-1'));
  });

  it('an image or key pair the context did not resolve is a bug in the caller, named as such', () => {
    assert.throws(() => desiredVirtualMachines(inputs(), context({ imageStorageClasses: {} })), {
      message: 'desired: no storage class resolved for image default/ubuntu-22.04-server-cloudimg (disks[0].image)',
    });
    assert.throws(() => desiredVirtualMachines(inputs({ sshKeys: ['ops-key'] }), context({ keyPairPublicKeys: {} })), {
      message: 'desired: no public key resolved for key pair default/ops-key (sshKeys)',
    });
  });

  it('builds disks through volumeClaimTemplates with the image\'s storage class, Block and RWX', () => {
    const pool = desiredVirtualMachines(inputs({ disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }, { size: '100Gi', bus: 'scsi', storageClass: 'fast' }] }), context());
    const m = pool.machines[0];
    const templates = JSON.parse(m.vm.metadata.annotations!['harvesterhci.io/volumeClaimTemplates']);
    assert.deepEqual(m.claimNames, ['pool-a-0-disk-0-x7k2q', 'pool-a-0-disk-1-x7k2q']);
    assert.equal(templates[0].metadata.annotations['harvesterhci.io/imageId'], 'default/ubuntu-22.04-server-cloudimg');
    assert.equal(templates[0].spec.storageClassName, 'longhorn-ubuntu-22.04-server-cloudimg');
    assert.deepEqual(templates[0].spec.accessModes, ['ReadWriteMany']);
    assert.equal(templates[0].spec.volumeMode, 'Block');
    assert.equal(templates[1].spec.storageClassName, 'fast');
    assert.equal(templates[1].spec.resources.requests.storage, '100Gi');
    const spec = m.vm.spec!.template!.spec as any;
    assert.deepEqual(spec.domain.devices.disks, [
      { name: 'cloudinitdisk', disk: { bus: 'virtio' } },
      { name: 'disk-0', disk: { bus: 'virtio' }, bootOrder: 1 },
      { name: 'disk-1', disk: { bus: 'scsi' } },
    ]);
    assert.deepEqual(spec.volumes[1], { name: 'disk-0', persistentVolumeClaim: { claimName: 'pool-a-0-disk-0-x7k2q' } });
  });

  it('puts cloud-init in a Secret <vm>-cloudinit with the agent and key pairs merged in', () => {
    const pool = desiredVirtualMachines(inputs({ sshKeys: ['ops-key'], userData: '#cloud-config\nhostname: x\n', networkData: 'version: 2\n' }), context());
    const m = pool.machines[0];
    assert.equal(m.secret.metadata.name, 'pool-a-0-cloudinit');
    const userdata = Buffer.from(m.secret.data!.userdata, 'base64').toString();
    const doc = parse(userdata);
    assert.deepEqual(doc.packages, ['qemu-guest-agent']);
    assert.deepEqual(doc.ssh_authorized_keys, ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOps ops@example']);
    assert.equal(Buffer.from(m.secret.data!.networkdata, 'base64').toString(), 'version: 2\n');
    const volume = (m.vm.spec!.template!.spec as any).volumes[0];
    assert.deepEqual(volume, { name: 'cloudinitdisk', cloudInitNoCloud: { secretRef: { name: 'pool-a-0-cloudinit' }, networkDataSecretRef: { name: 'pool-a-0-cloudinit' } } });
    assert.equal(m.vm.spec!.template!.metadata!.annotations!['harvesterhci.io/sshNames'], '["default/ops-key"]');
    assert.match(m.vm.metadata.annotations!['harvester-iac.io/user-data-hash'], /^hmac-sha256:[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(m.vm).includes('hostname: x'), 'the VM object never holds user data');
  });

  it('pins each VM to one zone with required node affinity, spread round-robin, keeping the default anti-affinity', () => {
    const pool = desiredVirtualMachines(inputs({ zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'] }), context());
    const zones = pool.machines.map((m) => get(m.vm, 'spec', 'template', 'spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms', 0, 'matchExpressions', 0));
    assert.deepEqual(zones.map((e) => e.values[0]), ['us-east-1a', 'us-east-1b', 'us-east-1c']);
    assert.equal(zones[0].key, 'topology.kubernetes.io/zone');
    assert.equal(zones[0].operator, 'In');
    assert.equal(get(pool.machines[0].vm, 'spec', 'template', 'spec', 'affinity', 'podAntiAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', 0, 'weight'), 100);
  });

  it('ANDs the zone into every term of a raw affinity and appends the driver\'s machine-set term', () => {
    const raw = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'Exists' as const }] }] } },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } }] },
    };
    const vm = desiredVirtualMachines(inputs({ count: 1, zones: ['us-east-1b'], affinity: raw }), context()).machines[0].vm;
    const affinity = get(vm, 'spec', 'template', 'spec', 'affinity');
    assert.deepEqual(affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions.map((e: any) => e.key), ['gpu', 'topology.kubernetes.io/zone']);
    assert.equal(affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight, 1);
    assert.equal(raw.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions.length, 1, 'the input is not mutated');
  });

  it('maps cpu, memory and networks as the node driver does', () => {
    const vm = desiredVirtualMachines(inputs({ cpu: 4, memory: '8Gi', networks: [{ network: 'vm-net' }, { network: 'other/mgmt', model: 'e1000', type: 'masquerade' }] }), context()).machines[0].vm;
    const spec = vm.spec!.template!.spec as any;
    assert.deepEqual(spec.domain.cpu, { cores: 4, sockets: 1, threads: 1 });
    assert.deepEqual(spec.domain.resources, { limits: { cpu: '4', memory: '8Gi' } });
    assert.deepEqual(spec.domain.devices.interfaces, [{ name: 'nic-0', model: 'virtio', bridge: {} }, { name: 'nic-1', model: 'e1000', masquerade: {} }]);
    assert.deepEqual(spec.networks, [{ name: 'nic-0', multus: { networkName: 'default/vm-net' } }, { name: 'nic-1', multus: { networkName: 'other/mgmt' } }]);
    assert.equal(vm.spec!.runStrategy, 'RerunOnFailure');
    assert.equal(spec.hostname, undefined, 'the guest hostname stays the VM name (cloud provider requirement)');
  });

  it('resolves rolling limits from numbers and percentages', () => {
    assert.deepEqual(resolveRolling({ maxSurge: '25%', maxUnavailable: '25%' }, 10), { maxSurge: 3, maxUnavailable: 2 });
    assert.deepEqual(resolveRolling({ maxSurge: '10%', maxUnavailable: 0 }, 3), { maxSurge: 1, maxUnavailable: 0 });
    assert.deepEqual(resolveRolling({ maxSurge: 0, maxUnavailable: '10%' }, 3), { maxSurge: 1, maxUnavailable: 0 }, 'both zero after rounding → surge 1');
  });
});
