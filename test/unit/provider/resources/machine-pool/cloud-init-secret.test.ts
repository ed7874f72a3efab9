import assert from 'node:assert/strict';
import type { Secret } from '../../../../../provider/client/objects';
import { cloudInitDataDiffers, importCloudInit, readCloudInit, withoutCloudInitData } from '../../../../../provider/resources/machine-pool/cloud-init-secret';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import { diffInputs } from '../../../../../provider/resources/machine-pool/diff';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { reconstructInputs } from '../../../../../provider/resources/machine-pool/reconstruct';
import { context, inputs } from './fixtures';

const USER_DATA = '#cloud-config\npassword: hunter2\n';
const NETWORK_DATA = 'version: 2\n';
const pool = { namespace: 'default', name: 'pool-a' };

/** A pool as the inputs build it: its recorded outputs and each VM with its Secret. */
function built(args: Partial<MachinePoolArgs> = {}) {
  const i = inputs({ count: 2, userData: USER_DATA, networkData: NETWORK_DATA, ...args });
  const desired = desiredVirtualMachines(i, context());
  const statuses = desired.machines.map((m) => ({ name: m.name, index: m.index, phase: 'Running', ready: true }));
  return { recorded: toOutputs(i, statuses, [], desired.cloudInitHash), machines: desired.machines.map((m) => ({ name: m.name, vm: m.vm, secret: m.secret })) };
}
const withData = (secret: Secret, data: Record<string, string>): Secret => ({ ...secret, data: { ...secret.data, ...data } });
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('machine-pool cloud-init Secrets read back', () => {
  it('gives back userData and networkData as written when every Secret holds what the recorded inputs render to', () => {
    const { recorded, machines } = built();
    assert.deepEqual(readCloudInit(pool, recorded, machines), { inputs: { userData: USER_DATA, networkData: NETWORK_DATA }, drift: [] });
    const none = built({ userData: undefined, networkData: undefined });
    assert.deepEqual(readCloudInit(pool, none.recorded, none.machines), { inputs: {}, drift: [] }, 'inputs left unset stay unset');
    assert.deepEqual(readCloudInit(pool, recorded, []), { inputs: {}, drift: [] }, 'no VM confirms anything');
  });

  it('reports an edited or missing Secret as drift naming it, never its content, and leaves out only what it cannot confirm', () => {
    const { recorded, machines } = built();
    machines[1].secret = withData(machines[1].secret, { userdata: b64('#cloud-config\nhostname: tampered\n') });
    const edited = readCloudInit(pool, recorded, machines);
    assert.deepEqual(edited.inputs, { networkData: NETWORK_DATA });
    assert.deepEqual(edited.drift, ['Secret default/pool-a-1-cloudinit: cloud-init user data differs from the recorded userData']);
    machines[0].secret = withData(machines[0].secret, { networkdata: b64('version: 1\n') });
    assert.deepEqual(readCloudInit(pool, recorded, machines).inputs, {});
    const lost = built();
    delete (lost.machines[0] as { secret?: Secret }).secret;
    const missing = readCloudInit(pool, lost.recorded, lost.machines);
    assert.deepEqual(missing.inputs, {});
    assert.match(missing.drift[0], /^Secret default\/pool-a-0-cloudinit: missing \(deleted outside Pulumi\)/);
    assert.ok(!JSON.stringify([edited, missing]).includes('hunter2') && !JSON.stringify(edited).includes('tampered'));
  });

  it('withholds userData and networkData from a VM booted from other cloud-init data (its annotations), which read-back names on the VM', () => {
    const { recorded, machines } = built();
    machines[0].vm = { ...machines[0].vm, metadata: { ...machines[0].vm.metadata, annotations: { ...machines[0].vm.metadata.annotations, 'harvester-iac.io/user-data-hash': 'hmac-sha256:0', 'harvester-iac.io/network-data-hash': 'hmac-sha256:0' } } };
    const read = readCloudInit(pool, recorded, machines);
    assert.deepEqual(read, { inputs: {}, drift: [] }, 'the Secrets hold what the record renders to: no line of their own');
    assert.deepEqual(reconstructInputs(recorded, machines.map((m) => m.vm)).drift, [
      'VirtualMachine default/pool-a-0: cloud-init user data differs from the recorded userData',
      'VirtualMachine default/pool-a-0: booted from other cloud-init network data than the recorded networkData',
    ]);
  });

  it('imports the inputs and digests from a Secret, and guestAgent from what was merged in', () => {
    const { recorded, machines } = built();
    const imported = importCloudInit(pool, machines[0].secret);
    assert.deepEqual(imported, { userData: USER_DATA, networkData: NETWORK_DATA, guestAgent: 'install', userDataHash: recorded.userDataHash, networkDataHash: recorded.networkDataHash, cloudInitHash: recorded.cloudInitHash });
    assert.equal(importCloudInit(pool, built({ guestAgent: 'none' }).machines[0].secret).guestAgent, 'none');
    const starts = '#cloud-config\npackages: [qemu-guest-agent]\nruncmd:\n  - systemctl enable --now qemu-guest-agent.service\n';
    assert.equal(importCloudInit(pool, built({ userData: starts }).machines[0].secret).guestAgent, undefined, 'both values render the same: unknowable');
    const rendered = machines[0].secret;
    const older = { ...rendered, data: { userdata: rendered.data!.userdata } };
    assert.equal(importCloudInit(pool, older).userData, undefined, 'no userData input recorded: no guess');
    assert.deepEqual(importCloudInit(pool, undefined), {});
  });

  it('compares and replaces only the keys we write', () => {
    const secret = built().machines[0].secret;
    assert.equal(cloudInitDataDiffers(withData(secret, { other: 'eA==' }), secret), false);
    assert.equal(cloudInitDataDiffers({ ...secret, data: { userdata: secret.data!.userdata } }, secret), true);
    assert.deepEqual(withoutCloudInitData(withData(secret, { other: 'eA==' }).data), { other: 'eA==' });
  });

  it('diff after an import takes the program\'s value for what the cluster does not record, and zones covering the VMs\'', () => {
    const { recorded } = built({ zones: ['us-east-1a', 'us-east-1b'] });
    const imported = { ...recorded, timeouts: undefined, rollingUpdate: undefined, volumeDeletion: undefined, importGaps: ['rollingUpdate', 'timeouts', 'volumeDeletion', 'zones'] };
    const program = { ...inputs({ count: 2, userData: USER_DATA, networkData: NETWORK_DATA, zones: ['us-east-1b', 'us-east-1a', 'us-east-1c'] }), timeouts: { create: '1h', update: '1h', delete: '1h' }, volumeDeletion: 'retain' };
    assert.deepEqual(diffInputs(imported as never, program).reasons, []);
    assert.deepEqual(diffInputs(imported as never, { ...program, zones: ['us-east-1a'] }).reasons, ['zones: VMs sit in "us-east-1a, us-east-1b", not covered by "us-east-1a"']);
    assert.equal(diffInputs(imported as never, { ...program, zones: [] }).changes, true);
    assert.equal(diffInputs(recorded, program).changes, true, 'a recorded pool compares them all');
  });
});
