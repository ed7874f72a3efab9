/**
 * HarvesterNetwork's handlers on the emulator: check refusing each rule of the shared table (test/support/
 * network-rules.ts, the emulator's webhooks give the same outcome) with the property and no write, a name we do
 * not own, and a VLAN change under a running VM; create waiting for Harvester's labels and learnt route; exact
 * refresh, drift per property after an edit behind our back, heal by update; import by "namespace/name"; delete
 * refused while VMs use the network (naming them) and never touching a network we do not own.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { NetworkAttachmentDefinition } from '../../provider/client/objects';
import { createNetworkProvider } from '../../provider/resources/network/handlers';
import { OUTPUT_ONLY, type NetworkOutputs } from '../../provider/resources/network/model';
import { validateInputs } from '../../provider/resources/network/validate';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { NETWORK_RULE_CASES, type Existing } from '../support/network-rules';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('HarvesterNetwork handlers: check, lifecycle, drift, import and delete', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const networks = createNetworkProvider({ connect: fastConnect() });
  const fast = { create: '5s', update: '5s', delete: '5s' };
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, timeouts: fast, ...extra });
  const inputsOf = (raw: Raw) => validateInputs(raw).inputs!;
  const create = (e: Existing) =>
    e.kind === 'clusterNetwork' ? client.clusterNetworks.create(e.object as never) : e.kind === 'vlanConfig' ? client.vlanConfigs.create(e.object as never) : client.networks.create(e.object as never);
  const runningVm = (name: string, network: string) =>
    client.virtualMachineInstances.create({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name, namespace: 'default' },
      spec: { domain: { devices: { interfaces: [{ name: 'nic-1', bridge: {} }] } }, networks: [{ name: 'nic-1', multus: { networkName: network } }] },
    } as never);

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    await client.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'harvester-system' } } as never).catch(() => undefined);
  });
  afterEach(async () => {
    for (const vmi of (await client.virtualMachineInstances.list({})).items) await client.virtualMachineInstances.delete(vmi.metadata.name!, { namespace: vmi.metadata.namespace });
    for (const n of (await client.networks.list({})).items.filter((n) => n.metadata.name !== 'vm-net')) await client.networks.delete(n.metadata.name!, { namespace: n.metadata.namespace });
    for (const vc of (await client.vlanConfigs.list({})).items) await client.vlanConfigs.delete(vc.metadata.name!);
    for (const cn of (await client.clusterNetworks.list({})).items.filter((c) => c.metadata.name !== 'mgmt')) await client.clusterNetworks.delete(cn.metadata.name!);
  });
  after(async () => t?.stop());

  describe('check follows the rules the webhooks apply (shared table)', () => {
    for (const c of NETWORK_RULE_CASES) {
      it(`${c.refused ? `refuses on ${c.refused.property}` : 'accepts'}: ${c.label}`, async () => {
        for (const e of c.existing ?? []) await create(e);
        const before = (await client.networks.list({})).items.length;
        const r = await networks.check({}, args('n', c.args));
        const properties = (r.failures ?? []).map((f) => f.property);
        assert.deepEqual(properties, c.refused ? [c.refused.property] : [], JSON.stringify(r.failures));
        for (const f of r.failures ?? []) {
          assert.ok(!f.reason.startsWith(`${f.property}:`), `the reason repeats its property: ${f.reason}`);
          assert.match(f.reason, c.refused!.check);
        }
        assert.equal((await client.networks.list({})).items.length, before, 'check wrote nothing');
      });
    }
  });

  it('check refuses a name taken by a network harvester-iac does not own', async () => {
    await client.networks.create({ apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name: 'taken', namespace: 'default' }, spec: { config: '{"type":"bridge","bridge":"mgmt-br","vlan":30}' } });
    const r = await networks.check({}, args('taken', { vlan: 30 }));
    assert.deepEqual(r.failures?.map((f) => f.property), ['name']);
    assert.match(r.failures![0].reason, /^Refusing to manage NetworkAttachmentDefinition default\/taken: it is not managed by harvester-iac.*import it \(id "default\/taken"\), or delete it .* if nothing uses it\.$/s);
  });

  it('create waits for the labels and the learnt route; outputs; read is exact; an edit shows as drift per property; update heals', async () => {
    const inputs = inputsOf(args('vlan40', { vlan: 40, description: 'app tier', labels: { tier: 'app' } }));
    const { id, outs } = await networks.create(inputs);
    assert.equal(id, 'default/vlan40');
    assert.equal(outs!.networkType, 'L2VlanNetwork');
    assert.equal(outs!.ready, true);
    assert.deepEqual(outs!.routeStatus, { mode: 'auto', cidr: '10.10.0.0/16', gateway: '10.10.0.1', connectivity: 'true', outdated: false });
    assert.deepEqual(JSON.parse(outs!.config), { cniVersion: '0.3.1', name: 'vlan40', type: 'bridge', bridge: 'mgmt-br', promiscMode: true, vlan: 40, ipam: {} });
    const read = await networks.read(id, outs as unknown as Raw);
    assert.deepEqual(JSON.parse(JSON.stringify(read.props)), JSON.parse(JSON.stringify(outs)));

    await client.networks.mergePatch('vlan40', { metadata: { labels: { tier: 'db' }, annotations: { 'field.cattle.io/description': 'by hand' } }, spec: { config: JSON.stringify({ ...JSON.parse(outs!.config), vlan: 41 }) } }, { namespace: 'default' });
    const drifted = (await networks.read(id, outs as unknown as Raw)).props!;
    assert.deepEqual(drifted.drift, [
      'VM network default/vlan40: vlan is 41, this resource set 40',
      'VM network default/vlan40: description is "by hand", this resource set "app tier"',
      'VM network default/vlan40: labels is {"tier":"db"}, this resource set {"tier":"app"}',
    ]);
    assert.equal((await networks.diff(id, drifted as unknown as Raw, inputs as unknown as Raw)).changes, true);
    const healed = (await networks.update(id, drifted as unknown as Raw, inputs as unknown as Raw)).outs!;
    assert.deepEqual(healed.drift, []);
    assert.equal(healed.routeStatus.outdated, false);
    const live = (await client.networks.get('vlan40', 'default')) as NetworkAttachmentDefinition;
    assert.equal(JSON.parse(live.spec!.config!).vlan, 40);
    assert.equal(live.metadata.labels!.tier, 'app');
    assert.deepEqual((await networks.read(id, healed as unknown as Raw)).props!.drift, []);
  });

  it('import by "namespace/name" rebuilds the inputs from the cluster (no drift, nothing the cluster does not record)', async () => {
    const inputs = inputsOf(args('imp', { vlan: 42, route: { mode: 'manual', cidr: '10.42.0.0/24', gateway: '10.42.0.1' } }));
    await networks.create(inputs);
    const imported = await networks.read('default/imp', { kubeconfig: t.emulator.kubeconfig });
    assert.equal(imported.id, 'default/imp');
    assert.deepEqual(imported.props!.drift, []);
    assert.equal(imported.props!.timeouts, undefined);
    const { timeouts: _t, kubeconfig: _k, ...expected } = inputs;
    assert.deepEqual(JSON.parse(JSON.stringify(imported.inputs)), JSON.parse(JSON.stringify({ ...expected, kubeconfig: t.emulator.kubeconfig })));
    for (const k of OUTPUT_ONLY) assert.ok(!(k in (imported.inputs ?? {})), k);
    assert.deepEqual((await networks.diff('default/imp', imported.props as Raw, inputs as unknown as Raw)).changes, false);
  });

  it('a VLAN change under a running VM is refused by check (vlan) as Harvester refuses it; delete names the VMs', async () => {
    const { id, outs } = await networks.create(inputsOf(args('busy', { vlan: 43 })));
    await runningVm('web-0', 'default/busy');
    const r = await networks.check(outs as unknown as Raw, args('busy', { vlan: 44 }));
    assert.deepEqual(r.failures?.map((f) => [f.property, f.reason]), [['vlan', 'VM network default/busy is used by running VM(s) default/web-0; Harvester refuses changing its VLAN while they run: stop them first']]);
    await assert.rejects(networks.delete(id, outs as unknown as Raw), (err: Error) => {
      assert.match(err.message, /^VM network default\/busy cannot be deleted: it is still used by running VM\(s\) default\/web-0 \(Harvester: "which must be stopped at first"\)\./);
      return true;
    });
    assert.ok(await client.networks.get('busy', 'default'));
    await client.virtualMachineInstances.delete('web-0', { namespace: 'default' });
    await networks.delete(id, outs as unknown as Raw);
    assert.equal(await client.networks.get('busy', 'default'), undefined);
  });

  it('delete leaves a network of that name it does not own', async () => {
    const { id, outs } = await networks.create(inputsOf(args('gone', { vlan: 45 })));
    await client.networks.delete('gone', { namespace: 'default' });
    await client.networks.create({ apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name: 'gone', namespace: 'default' }, spec: { config: '{"type":"bridge","bridge":"mgmt-br","vlan":46}' } });
    await networks.delete(id, outs as unknown as Raw as NetworkOutputs as unknown as Raw);
    assert.ok(await client.networks.get('gone', 'default'));
  });
});
