/**
 * Who uses a VM network, through the provider object users' programs reach (`harvester-iac/provider`'s `network`):
 * a VM or running VMI attaching it by its bare name from the network's own namespace is its user exactly as one
 * naming it `namespace/name` (KubeVirt's multus networkName takes either; Harvester's NAD webhook counts both:
 * harvester-network-controller pkg/utils/vmi.go WhoUseNad), so a VLAN change while one runs is refused at check
 * and delete names it. A bare name in another namespace means a network of that namespace: not a user.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { network } from '../../provider';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('HarvesterNetwork users: a bare network name from its own namespace counts as namespace/name', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const NS = 'team-a';
  const fast = { create: '5s', update: '5s', delete: '5s' };
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, namespace: NS, timeouts: fast, ...extra });
  const spec = (networkName: string) => ({ domain: { devices: { interfaces: [{ name: 'nic-1', bridge: {} }] } }, networks: [{ name: 'nic-1', multus: { networkName } }] });
  const runningVm = (name: string, namespace: string, networkName: string) =>
    client.virtualMachineInstances.create({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name, namespace }, spec: spec(networkName) } as never);
  const stoppedVm = (name: string, namespace: string, networkName: string) =>
    client.virtualMachines.create({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace }, spec: { runStrategy: 'Halted', template: { spec: spec(networkName) } } } as never);

  async function created(name: string, vlan: number): Promise<{ id: string; outs: Raw }> {
    const checked = await network.check({}, args(name, { vlan }));
    assert.deepEqual(checked.failures ?? [], []);
    const made = await network.create(checked.inputs!);
    return { id: made.id, outs: made.outs as Raw };
  }

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    for (const ns of [NS, 'team-b']) await client.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } as never);
  });
  afterEach(async () => {
    for (const vmi of (await client.virtualMachineInstances.list({})).items) await client.virtualMachineInstances.delete(vmi.metadata.name!, { namespace: vmi.metadata.namespace });
    for (const vm of (await client.virtualMachines.list({})).items) await client.virtualMachines.delete(vm.metadata.name!, { namespace: vm.metadata.namespace });
  });
  after(async () => t?.stop());

  for (const [how, ref] of [['its bare name', (name: string) => name], ['namespace/name', (name: string) => `${NS}/${name}`]] as const) {
    it(`a running VM naming it by ${how}: a VLAN change is refused at check (vlan), and delete names the VM`, async () => {
      const name = how === 'namespace/name' ? 'qualified' : 'bare';
      const { id, outs } = await created(name, 50);
      await runningVm('web-0', NS, ref(name));
      const r = await network.check(outs, args(name, { vlan: 51 }));
      assert.deepEqual(r.failures?.map((f) => [f.property, f.reason]), [
        ['vlan', `VM network ${NS}/${name} is used by running VM(s) ${NS}/web-0; Harvester refuses changing its VLAN while they run: stop them first`],
      ]);
      await assert.rejects(network.delete(id, outs), /cannot be deleted: it is still used by running VM\(s\) team-a\/web-0 /);
      assert.ok(await client.networks.get(name, NS), 'the network stays');
      await client.virtualMachineInstances.delete('web-0', { namespace: NS });
      await network.delete(id, outs);
      assert.equal(await client.networks.get(name, NS), undefined);
    });

    it(`a stopped VM whose template names it by ${how}: delete names the VM`, async () => {
      const name = how === 'namespace/name' ? 'qualified-stopped' : 'bare-stopped';
      const { id, outs } = await created(name, 52);
      await stoppedVm('db-0', NS, ref(name));
      await assert.rejects(network.delete(id, outs), /cannot be deleted: it is still used by VM\(s\) team-a\/db-0 whose spec attaches it/);
      await client.virtualMachines.delete('db-0', { namespace: NS });
      await network.delete(id, outs);
    });
  }

  it('a bare name from another namespace means that namespace\'s network: no user, the VLAN change passes and delete goes ahead', async () => {
    const { id, outs } = await created('elsewhere', 53);
    // team-b's own network of that name: Harvester's VM mutator refuses a VM whose NAD does not exist.
    await network.create((await network.check({}, { ...args('elsewhere', { vlan: 55 }), namespace: 'team-b' })).inputs!);
    await runningVm('web-1', 'team-b', 'elsewhere');
    await stoppedVm('db-1', 'team-b', 'elsewhere');
    const r = await network.check(outs, args('elsewhere', { vlan: 54 }));
    assert.deepEqual(r.failures ?? [], []);
    await network.delete(id, outs);
    assert.equal(await client.networks.get('elsewhere', NS), undefined);
  });
});
