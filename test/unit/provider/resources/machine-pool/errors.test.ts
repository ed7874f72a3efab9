import assert from 'node:assert/strict';
import {
  imageNotReady, keyPairMissing, keyPairNotValidated, nameTaken, namespaceMissing, networkMissing, readyTimeout, zoneMissing, type NotReadyMachine,
} from '../../../../../provider/resources/machine-pool/errors';
import { holderOf } from '../../../../../provider/resources/machine-pool/name-conflicts';
import { formatFailure } from '../../../../../provider/core/input-errors';

// The full texts are pinned: they are the user's only guide from a failed check or a timeout.
describe('machine-pool errors', () => {
  it('names the object, the observed state and the fix in each check failure', () => {
    const table: [ReturnType<typeof namespaceMissing>, string, string][] = [
      [namespaceMissing('team'), 'namespace', 'Namespace team does not exist on the Harvester cluster. Create it first, or set namespace to an existing one.'],
      [imageNotReady('disks[0].image', 'default/img', 'import at 40%'), 'disks[0].image',
        'Image default/img is not ready (import at 40%). Wait for the import to finish in Harvester (Images), or fix the image, then run again.'],
      [keyPairMissing('sshKeys[1]', 'default/k'), 'sshKeys[1]', 'KeyPair default/k does not exist. Create it in Harvester (Advanced → SSH Keys), or fix the name.'],
      [keyPairNotValidated('sshKeys[0]', 'default/k'), 'sshKeys[0]',
        'KeyPair default/k is not validated by Harvester (condition validated is not True), so its public key cannot be trusted. Fix its spec.publicKey (an OpenSSH public key).'],
      [zoneMissing('zones[0]', 'z9', ['za', 'zb']), 'zones[0]',
        'no Harvester host is in zone "z9" (zones on hosts: za, zb), so a VM pinned there could never be scheduled. Use one of the hosts\' zones, or label hosts with topology.kubernetes.io/zone.'],
      [zoneMissing('zones[1]', 'z9', []), 'zones[1]',
        'no Harvester host is in zone "z9" (no host has a topology.kubernetes.io/zone label), so a VM pinned there could never be scheduled. Use one of the hosts\' zones, or label hosts with topology.kubernetes.io/zone.'],
      [networkMissing('networks[0].network', 'default/vm-net'), 'networks[0].network',
        'VM network (NetworkAttachmentDefinition) default/vm-net does not exist. Create it in Harvester (Networks → VM Networks), or fix the name.'],
    ];
    for (const [failure, property, reason] of table) {
      assert.deepEqual(failure, { property, reason });
      assert.equal(formatFailure(failure), `${property}: ${reason}`, 'the user reads the property once');
    }
  });

  it('says who holds a taken name (labels with values, annotation keys only) and how to delete or import it', () => {
    const holder = holderOf('Secret', 'ns', { metadata: {
      name: 'pool-0-cloudinit', labels: { app: 'x', tier: 'db' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"secret":1}', 'team.example/owner': 'hunter2', 'team.example/ticket': 'T-1' },
    } });
    const f = nameTaken(holder, 'ns/pool', { 'a/managed-by': 'me', 'a/name': 'pool' });
    assert.equal(f.property, 'name');
    assert.equal(f.reason, 'Secret ns/pool-0-cloudinit already exists and is not managed by machine pool ns/pool (labels app=x, tier=db; annotations team.example/owner, team.example/ticket; ' +
      'it lacks the pool\'s ownership labels), so the pool cannot create the cloud-init Secret of that name, which its VM would boot from; nothing was created. ' +
      'Either delete it if nothing needs it (kubectl delete secret -n ns pool-0-cloudinit), or import it into the pool by giving it the pool\'s ownership labels ' +
      '(kubectl label secret -n ns pool-0-cloudinit a/managed-by=me a/name=pool), after which the pool manages it.');
    const bare = nameTaken(holderOf('VirtualMachine', 'ns', { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } }), 'ns/pool', {});
    assert.equal(bare.property, 'name');
    assert.match(bare.reason, /^VirtualMachine ns\/ already exists and is not managed by machine pool ns\/pool \(no labels; no annotations; it lacks/);
  });

  describe('readyTimeout', () => {
    const waiting: NotReadyMachine = { name: 'p-0', phase: 'Scheduling', waitingFor: 'not scheduled', runningWithoutIp: false };
    const noIp: NotReadyMachine = { name: 'p-1', phase: 'Running', host: 'h1', waitingFor: 'no IPv4 address', runningWithoutIp: true };
    const AGENT_FIX = 'These VMs run but report no IP address: Harvester learns a bridged VM\'s address only from qemu-guest-agent, and guestAgent is "none" while the user data does not install and start qemu-guest-agent. ' +
      'Set guestAgent to "install" (the default), or add qemu-guest-agent to packages and `systemctl enable --now qemu-guest-agent.service` to runcmd.';
    const NETWORK_FIX = 'These VMs run but report no IP address: Harvester learns it only from qemu-guest-agent. Check that the image can install qemu-guest-agent (package mirror reachable, ' +
      'or pre-baked in the image) and that the VM network gives the VM an address (DHCP on the VLAN, or networkData).';
    const EVENTS_FIX = 'Check the VMs\' events in Harvester (scheduling, image, storage), or raise timeouts.create.';

    it('lists each VM and gives the events fix when none lacks only an address', () => {
      const e = readyTimeout('ns/p', '10m', 'create', [waiting], 'install', 'yes');
      assert.equal(e.code, 'WaitTimeout');
      assert.equal(e.object, 'MachinePool ns/p');
      assert.equal(e.fix, `${EVENTS_FIX} The wait can be raised with timeouts.create.`);
      assert.equal(e.message, `Machine pool ns/p was not ready within 10m:\n  - VirtualMachine p-0: not scheduled (phase Scheduling)\n${e.fix}`);
    });

    it('blames the missing agent only when guestAgent is "none" and the user data may not start it', () => {
      const cases: [NotReadyMachine[], 'install' | 'none', 'yes' | 'no' | 'unknown', RegExp | string][] = [
        [[waiting, noIp], 'none', 'no', AGENT_FIX],
        [[noIp], 'none', 'unknown', AGENT_FIX],
        [[noIp], 'none', 'yes', NETWORK_FIX],
        [[noIp], 'install', 'no', NETWORK_FIX],
        [[waiting], 'none', 'no', EVENTS_FIX],
      ];
      for (const [machines, guestAgent, inUserData, fix] of cases) {
        const e = readyTimeout('ns/p', '10m', 'create', machines, guestAgent, inUserData);
        const got = (e.fix as string).replace(/ The wait can be raised with timeouts\.create\.$/, '');
        if (typeof fix === 'string') assert.equal(got, fix, `${guestAgent} ${inUserData}`);
        else assert.match(got, fix, `${guestAgent} ${inUserData}`);
      }
      const both = readyTimeout('ns/p', '5m', 'update', [waiting, noIp], 'install', 'no');
      assert.match(both.message, /^Machine pool ns\/p was not ready within 5m:\n {2}- VirtualMachine p-0: not scheduled \(phase Scheduling\)\n {2}- VirtualMachine p-1: no IPv4 address \(phase Running on h1\)\n/);
    });
  });
});
