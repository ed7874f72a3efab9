/**
 * HarvesterNetwork's cluster rules and in-use refusals on the emulator, in the words users read: the storage
 * network's exclusive VLAN refuses only that VLAN (never an untagged network: Harvester's check skips VLAN 0); a
 * running VM blocks a VLAN change but not a metadata edit; every user is named, sorted, once (a VM and its own
 * running VMI named as running only), whichever of its NICs attaches the network, and a VM on another network of
 * the namespace is no user; delete's refusal carries its code, object and fix; a network of that name we do not own
 * is refused on name only, its VMs never read as ours.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { ProviderError } from '../../provider/core/errors';
import { createNetworkProvider } from '../../provider/resources/network/handlers';
import { validateInputs } from '../../provider/resources/network/validate';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('HarvesterNetwork in use: cluster rules and refusals in full', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const networks = createNetworkProvider({ connect: fastConnect() });
  const fast = { create: '5s', update: '5s', delete: '5s' };
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, timeouts: fast, ...extra });
  const inputsOf = (raw: Raw) => validateInputs(raw).inputs!;
  const nic = (name: string, networkName?: string) => ({ name, ...(networkName ? { multus: { networkName } } : { pod: {} }) });
  const podSpec = (networks: Raw[]) => ({ domain: { devices: { interfaces: networks.map((n) => ({ name: n.name, bridge: {} })) } }, networks });
  const runningVm = (name: string, ...networks: Raw[]) =>
    client.virtualMachineInstances.create({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name, namespace: 'default' }, spec: podSpec(networks) } as never);
  const stoppedVm = (name: string, ...networks: Raw[]) =>
    client.virtualMachines.create({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace: 'default' }, spec: { runStrategy: 'Halted', template: { spec: podSpec(networks) } } } as never);
  const storageNetwork = (vlan?: number) =>
    client.networks.create({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: 'storagenetwork-x', namespace: 'harvester-system', annotations: { 'storage-network.settings.harvesterhci.io': 'true' }, labels: { 'storage-network.settings.harvesterhci.io/exclusivevlan': 'true' } },
      spec: { config: JSON.stringify({ cniVersion: '0.3.1', type: 'bridge', bridge: 'mgmt-br', ...(vlan ? { vlan } : {}), ipam: {} }) },
    });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    await client.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'harvester-system' } } as never).catch(() => undefined);
  });
  afterEach(async () => {
    for (const vmi of (await client.virtualMachineInstances.list({})).items) await client.virtualMachineInstances.delete(vmi.metadata.name!, { namespace: vmi.metadata.namespace });
    for (const vm of (await client.virtualMachines.list({})).items) await client.virtualMachines.delete(vm.metadata.name!, { namespace: vm.metadata.namespace });
    for (const n of (await client.networks.list({})).items) await client.networks.delete(n.metadata.name!, { namespace: n.metadata.namespace });
  });
  after(async () => t?.stop());

  it("the storage network's exclusive VLAN refuses that VLAN only: another VLAN passes", async () => {
    await storageNetwork(2011);
    assert.deepEqual((await networks.check({}, args('n', { vlan: 20 }))).failures ?? [], []);
  });

  it('an untagged network passes beside an untagged exclusive storage network (Harvester checks VLANs only)', async () => {
    await storageNetwork();
    assert.deepEqual((await networks.check({}, args('n'))).failures ?? [], []);
  });

  it('running VMs: a description change passes; a VLAN change is refused naming each VM, sorted, whichever NIC attaches it', async () => {
    const { outs } = await networks.create(inputsOf(args('busy', { vlan: 43 })));
    await networks.create(inputsOf(args('other', { vlan: 44 })));
    await runningVm('web-1', nic('nic-0'), nic('nic-1', 'default/busy'));
    await runningVm('web-0', nic('nic-0', 'busy'));
    await runningVm('web-2', nic('nic-0', 'other'));
    assert.deepEqual((await networks.check(outs as unknown as Raw, args('busy', { vlan: 43, description: 'now described' }))).failures ?? [], []);
    const r = await networks.check(outs as unknown as Raw, args('busy', { vlan: 45 }));
    assert.deepEqual(r.failures?.map((f) => [f.property, f.reason]), [
      ['vlan', 'VM network default/busy is used by running VM(s) default/web-0, default/web-1; Harvester refuses changing its VLAN while they run: stop them first'],
    ]);
  });

  it('delete names the running VMs, then the other VMs attaching it (a running VM once), with its code, object and fix', async () => {
    const { id, outs } = await networks.create(inputsOf(args('busy', { vlan: 46 })));
    await stoppedVm('web-0', nic('nic-0', 'default/busy'));
    await runningVm('web-0', nic('nic-0', 'default/busy'));
    await runningVm('web-1', nic('nic-0', 'default/busy'));
    await stoppedVm('db-1', nic('nic-0'), nic('nic-1', 'busy'));
    await stoppedVm('db-0', nic('nic-0', 'default/busy'));
    await networks.create(inputsOf(args('other', { vlan: 47 }))); // Harvester's VM mutator refuses a VM on a missing NAD
    await stoppedVm('cache-0', nic('nic-0', 'other'));
    const err = (await networks.delete(id, outs as unknown as Raw).catch((e: unknown) => e)) as ProviderError;
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.code, 'NetworkInUse');
    assert.equal(err.object, 'NetworkAttachmentDefinition default/busy');
    assert.equal(err.fix, 'Remove the network from those VMs (or delete them, e.g. their machine pool) first, then run again.');
    assert.equal(
      err.message,
      'VM network default/busy cannot be deleted: it is still used by running VM(s) default/web-0, default/web-1 (Harvester: "which must be stopped at first") ' +
        'and VM(s) default/db-0, default/db-1 whose spec attaches it (Harvester: "which must remove the related networks and interfaces"). ' +
        'Remove the network from those VMs (or delete them, e.g. their machine pool) first, then run again.',
    );
    assert.ok(await client.networks.get('busy', 'default'), 'the network stays');
  });

  it('a network of that name we do not own is refused on name only: its running VMs are not read as ours', async () => {
    await client.networks.create({ apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name: 'taken', namespace: 'default' }, spec: { config: '{"cniVersion":"0.3.1","type":"bridge","bridge":"mgmt-br","vlan":30,"ipam":{}}' } });
    await runningVm('web-0', nic('nic-0', 'default/taken'));
    const r = await networks.check({}, args('taken', { vlan: 31 }));
    assert.deepEqual(r.failures?.map((f) => f.property), ['name']);
  });
});
