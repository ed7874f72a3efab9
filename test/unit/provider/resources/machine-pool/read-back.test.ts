import assert from 'node:assert/strict';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import { diffInputs } from '../../../../../provider/resources/machine-pool/diff';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import { readBackMachine } from '../../../../../provider/resources/machine-pool/read-back';
import { reconstructInputs } from '../../../../../provider/resources/machine-pool/reconstruct';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { asHarvesterServes, context, inputs } from './fixtures';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

function recorded(args: Partial<MachinePoolArgs>) {
  const i = inputs(args);
  const pool = desiredVirtualMachines(i, context());
  const machines = pool.machines.map((m) => ({ name: m.name, index: m.index, zone: m.zone, phase: 'Running', ready: true, ip: '10.0.0.1' }));
  return { inputs: i, outputs: toOutputs(i, machines, [], pool.cloudInitHash), vms: pool.machines.map((m) => asHarvesterServes(m.vm, { hotplug: true })) };
}

describe('machine-pool read-back', () => {
  it('reads a live VM back into the inputs it was built from', () => {
    const args = {
      cpu: 4, memory: '8Gi', zones: ['us-east-1b'], count: 1, sshKeys: ['ops-key'], labels: { team: 'a' },
      disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }, { size: '10Gi', bus: 'scsi' as const, storageClass: 'fast' }],
      networks: [{ network: 'vm-net', model: 'e1000' as const }],
    };
    const { vms } = recorded(args);
    const r = readBackMachine(vms[0]);
    assert.equal(r.cpu, 4);
    assert.equal(r.memory, '8Gi');
    assert.equal(r.zone, 'us-east-1b');
    assert.equal(r.affinity, undefined, 'the driver default and our zone term are not user affinity');
    assert.deepEqual(r.disks, [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '40Gi', bus: 'virtio' }, { size: '10Gi', bus: 'scsi', storageClass: 'fast' }]);
    assert.deepEqual(r.networks, [{ network: 'default/vm-net', model: 'e1000', type: 'bridge' }]);
    assert.deepEqual(r.sshKeys, ['default/ops-key']);
    assert.deepEqual(r.labels, { team: 'a' });
    assert.deepEqual(r.annotations, {}, 'Harvester\'s annotations are not user annotations');
  });

  it('reconstructs the recorded inputs unchanged (with the user\'s spelling) when nothing drifted', () => {
    const { outputs, vms } = recorded({ zones: ZONES, memory: '4096Mi' });
    const { inputs: back, drift } = reconstructInputs(outputs, vms);
    assert.deepEqual(drift, []);
    assert.deepEqual(back, { count: 3 });
  });

  it('finds no drift on VMs whose network lives on a cluster network other than mgmt', () => {
    const i = inputs({ zones: ZONES });
    const pool = desiredVirtualMachines(i, context());
    const vms = pool.machines.map((m) => asHarvesterServes(m.vm, { clusterNetworks: ['data'] }));
    const { inputs: back, drift } = reconstructInputs(toOutputs(i, [], [], pool.cloudInitHash), vms);
    assert.deepEqual(drift, []);
    assert.deepEqual(back, { count: 3 });
  });

  it('shows a CPU edit made out of band as drift of cpu', () => {
    const { outputs, vms } = recorded({ zones: ZONES });
    (vms[1].spec!.template!.spec as any).domain.cpu.cores = 4;
    const { inputs: back, drift } = reconstructInputs(outputs, vms);
    assert.equal(back.cpu, 4);
    assert.deepEqual(drift, ['VirtualMachine default/pool-a-1: cpu is 4, recorded 2']);
    const d = diffInputs({ ...outputs, ...back, drift }, inputs({ zones: ZONES }));
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, []);
  });

  it('shows a lost VM as a smaller count', () => {
    const { outputs, vms } = recorded({});
    const { inputs: back, drift } = reconstructInputs(outputs, vms.slice(0, 2));
    assert.equal(back.count, 2);
    assert.match(drift[0], /2 VMs exist, 3 recorded/);
  });

  it('reports a zone moved out of band and a replaced user-data Secret without content', () => {
    const { outputs, vms } = recorded({ zones: ZONES });
    const terms = (vms[0].spec!.template!.spec as any).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
    terms[0].matchExpressions[0].values = ['us-west-2a'];
    vms[2].metadata.annotations!['harvester-iac.io/user-data-hash'] = 'sha256:0000';
    const { inputs: back, drift } = reconstructInputs(outputs, vms);
    assert.deepEqual(back.zones, ['us-east-1b', 'us-east-1c', 'us-west-2a']);
    assert.ok(drift.some((l) => /pool-a-0: pinned to zone "us-west-2a"/.test(l)));
    assert.ok(drift.some((l) => /pool-a-2: cloud-init user data differs/.test(l)));
  });
});

describe('machine-pool diffInputs', () => {
  const { outputs } = recorded({ userData: '#cloud-config\npassword: hunter2\n' });

  it('finds nothing when the inputs are the same or only respelled', () => {
    const d = diffInputs(outputs, inputs({ userData: '#cloud-config\npassword: hunter2\n', memory: '4096Mi', networks: [{ network: 'default/vm-net' }] }));
    assert.deepEqual(d, { changes: false, replaces: [], reasons: [] });
  });

  it('replaces the pool on a name or namespace change, updates on anything else', () => {
    assert.deepEqual(diffInputs(outputs, inputs({ name: 'pool-b', userData: '#cloud-config\npassword: hunter2\n' })).replaces, ['name']);
    assert.deepEqual(diffInputs(outputs, inputs({ namespace: 'other', userData: '#cloud-config\npassword: hunter2\n' })).replaces, ['namespace']);
    const scale = diffInputs(outputs, inputs({ count: 5, userData: '#cloud-config\npassword: hunter2\n' }));
    assert.deepEqual(scale.replaces, []);
    assert.deepEqual(scale.reasons, ['count: 3 → 5']);
  });

  it('detects a user-data change by hash, never showing it', () => {
    const d = diffInputs(outputs, inputs({ userData: '#cloud-config\npassword: changed\n' }));
    assert.equal(d.changes, true);
    assert.ok(!JSON.stringify(d).includes('hunter2') && !JSON.stringify(d).includes('changed\\n'));
    assert.ok(!JSON.stringify(outputs).includes('hunter2'), 'outputs keep only the hash');
  });

  it('treats unknown values as changes, and an unknown name as a replace', () => {
    const d = diffInputs(outputs, { ...inputs({ userData: '#cloud-config\npassword: hunter2\n' }), name: UNKNOWN, cpu: UNKNOWN });
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, ['name']);
    assert.deepEqual(d.reasons, ['name is not known until apply', 'cpu is not known until apply']);
  });

  it('state recorded without a drift list adds no drift line', () => {
    const { drift: _drift, ...older } = outputs;
    assert.deepEqual(diffInputs(older, inputs({ userData: '#cloud-config\npassword: hunter2\n' })).reasons, []);
  });

  it('asks for an update when the recorded pool is not healthy (partial create)', () => {
    const partial = { ...outputs, machines: outputs.machines.slice(0, 1) };
    assert.equal(diffInputs(partial, inputs({ userData: '#cloud-config\npassword: hunter2\n' })).changes, true);
    const unready = { ...outputs, machines: outputs.machines.map((m, i) => ({ ...m, ready: i !== 0 })) };
    assert.match(diffInputs(unready, inputs({ userData: '#cloud-config\npassword: hunter2\n' })).reasons.join(), /not ready on record: pool-a-0/);
  });
});
