import assert from 'node:assert/strict';
import type { VirtualMachine } from '../../../../../provider/client/objects';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import { readBackMachine } from '../../../../../provider/resources/machine-pool/read-back';
import { reconstructInputs } from '../../../../../provider/resources/machine-pool/reconstruct';
import { asHarvesterServes, context, inputs } from './fixtures';

type Obj = Record<string, any>;

/** Recorded outputs of a one-VM pool and what Harvester serves for it. */
function recorded(args: Partial<MachinePoolArgs> = {}) {
  const i = inputs({ count: 1, ...args });
  const pool = desiredVirtualMachines(i, context());
  return { outputs: toOutputs(i, [], undefined, pool.cloudInitHash), vms: pool.machines.map((m) => asHarvesterServes(m.vm)) as any[] }; // any: tests edit served VMs freely
}
const vmLine = (text: string) => `VirtualMachine default/pool-a-0: ${text}`;

describe('machine-pool read-back of unusual VMs', () => {
  it('records no drift by default', () => {
    assert.deepEqual(recorded().outputs.drift, []);
  });

  it('reads a VM with nothing set as empty inputs, not invented ones', () => {
    const vm = { metadata: {}, spec: { template: { spec: {
      domain: { devices: { disks: [{ name: 'd0' }] } },
      volumes: [{ name: 'd0', persistentVolumeClaim: { claimName: 'c0' } }],
      networks: [{ name: 'default', pod: {} }],
    } } } } as unknown as VirtualMachine;
    const r = readBackMachine(vm);
    assert.deepEqual([r.name, r.cpu, r.disks, r.networks, r.zone, r.affinity], ['', undefined, [{ size: '', bus: 'virtio' }], [{ network: '', model: 'virtio', type: 'bridge' }], undefined, undefined]);
  });

  it('reads the cpu input from the cores only (as desired.ts writes it): with them gone it is drift, whatever the limit says', () => {
    const { outputs, vms } = recorded();
    delete vms[0].spec.template.spec.domain.cpu;
    vms[0].spec.template.spec.domain.resources.limits.cpu = '2';
    assert.equal(readBackMachine(vms[0]).cpu, undefined);
    assert.deepEqual(reconstructInputs(outputs, vms).drift, [vmLine('cpu is nothing, recorded 2')]);
  });

  it('reads a blank disk without a storage class as having none', () => {
    const { vms } = recorded({ disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }, { size: '10Gi' }] });
    const claims = JSON.parse(vms[0].metadata.annotations['harvesterhci.io/volumeClaimTemplates']) as Obj[];
    delete claims[1].spec.storageClassName;
    vms[0].metadata.annotations['harvesterhci.io/volumeClaimTemplates'] = JSON.stringify(claims);
    assert.deepEqual(readBackMachine(vms[0]).disks[1], { size: '10Gi', bus: 'virtio' });
  });
});

describe('machine-pool drift lines', () => {
  // [name, recorded outputs changed, live VM changed, expected drift lines]; records written before the
  // defaults were filled in lack bus, model, type or sshKeys.
  const cases: [string, (o: Obj) => void, (vm: Obj) => void, string[]][] = [
    ['an image disk recorded as blank, bus defaulted', (o) => { o.disks = [{ size: '40Gi' }]; }, () => {},
      ['disks is default/ubuntu-22.04-server-cloudimg 40Gi virtio, recorded blank 40Gi virtio']],
    ['a NIC model changed, defaults left out on record', (o) => { o.networks = [{ network: 'vm-net' }]; }, (vm) => { vm.spec.template.spec.domain.devices.interfaces[0].model = 'e1000'; },
      ['networks is default/vm-net (e1000, bridge), recorded vm-net (virtio, bridge)']],
    ['a key pair added, none on record', (o) => { delete o.sshKeys; }, (vm) => { vm.spec.template.metadata.annotations['harvesterhci.io/sshNames'] = '["default/k"]'; },
      ['sshKeys is default/k, recorded none']],
    ['a second key pair added', (o) => { o.sshKeys = ['default/k']; }, (vm) => { vm.spec.template.metadata.annotations['harvesterhci.io/sshNames'] = '["default/k","default/l"]'; },
      ['sshKeys is default/k, default/l, recorded default/k']],
    ['pinned to a zone, none recorded', () => {}, (vm) => { vm.spec.template.spec.affinity.nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['z9'] }] }] } }; },
      ['pinned to zone "z9", recorded zones "none"']],
    ['unpinned, zones recorded', (o) => { o.zones = ['z1', 'z2']; }, () => {},
      ['pinned to zone "none", recorded zones "z1, z2"']],
  ];
  for (const [name, editRecord, editVm, lines] of cases) {
    it(name, () => {
      const { outputs, vms } = recorded();
      editRecord(outputs as unknown as Obj);
      editVm(vms[0]);
      assert.deepEqual(reconstructInputs(outputs, vms).drift, lines.map(vmLine));
    });
  }

  const poolCases: [string, string | undefined, string | undefined, string][] = [
    ['changed', 'other', 'other', 'node pool label is "other", recorded "pool-a"'],
    ['removed', undefined, undefined, 'node pool label is "missing", recorded "pool-a"'],
  ];
  for (const [name, label, poolName, line] of poolCases) {
    it(`reads a node pool label ${name} out of band back into poolName`, () => {
      const { outputs, vms } = recorded({ guestCluster: 'gc' });
      const labels = vms[0].metadata.labels;
      if (label === undefined) delete labels['nodepool.harvesterhci.io/name'];
      else labels['nodepool.harvesterhci.io/name'] = label;
      const { inputs: back, drift } = reconstructInputs(outputs, vms);
      assert.deepEqual([back.poolName, drift], [poolName, [vmLine(line)]]);
    });
  }

  it('reads a guest cluster set out of band, with its pool label, as drift of both', () => {
    const { outputs, vms } = recorded();
    Object.assign(vms[0].metadata.labels, { 'guestcluster.harvesterhci.io/name': 'gc', 'nodepool.harvesterhci.io/name': 'np' });
    const { inputs: back, drift } = reconstructInputs(outputs, vms);
    assert.deepEqual([back.guestCluster, back.poolName], ['gc', 'np']);
    assert.deepEqual(drift, [vmLine('guestCluster is "gc", recorded nothing'), vmLine('node pool label is "np", recorded "none"')]);
  });
});
