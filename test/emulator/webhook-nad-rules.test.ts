/**
 * The NetworkAttachmentDefinition webhooks (harvester-network-controller pkg/webhook/nad/validator.go, mutator.go;
 * Harvester's pkg/webhook/resources/networkattachmentdefinition/validator.go; docs/design/harvester-networks.md),
 * beyond upstream's own test table (harvester-network-rules.test.ts): exact messages with the old and new values,
 * every user listed, what is left alone (system NADs and the exclusive VLAN, an empty cluster-network label, a config
 * whose MTU already matches, a NAD being deleted), and the rwx-network setting's delete check.
 * States the API cannot produce (a stored kube-ovn NAD or one whose config no longer decodes: the webhooks refuse
 * both on create) are reviewed by calling the validator directly, as upstream's webhook would see them.
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject, StoreReader } from '../../emulator/api/types';
import { networkAttachmentDefinitionWebhooks } from '../../emulator/webhooks/network-attachment-definition';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const NET_DENIED = 'admission webhook "validator.harvester-system.harvester-network-webhook" denied the request: Internal error occurred: ';
const CN_LABEL = 'network.harvesterhci.io/clusternetwork';
const EXCLUSIVE = 'storage-network.settings.harvesterhci.io/exclusivevlan';
const ROUTE = 'network.harvesterhci.io/route';
const VLAN_CONFIG = '{"cniVersion":"0.3.1","name":"net1-vlan","type":"bridge","bridge":"test-cn-br","promiscMode":true,"vlan":300,"ipam":{}}';

type Obj = Record<string, any>;
type Meta = { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
const bridgeConf = (extra: Obj = {}): Obj => ({ ...JSON.parse(VLAN_CONFIG), ...extra });

function nad(ns: string, name: string, config: string | Obj, meta: Meta = { labels: { [CN_LABEL]: 'test-cn' } }): KubeObject {
  return { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace: ns, ...meta }, spec: { config: typeof config === 'string' ? config : JSON.stringify(config) } };
}

function vmi(ns: string, name: string, network: string): KubeObject {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: ns },
    spec: { domain: { devices: { interfaces: [{ name: 'nic-1', bridge: {} }] } }, networks: [{ name: 'nic-1', multus: { networkName: network } }] },
    status: { nodeName: 'harvester-node-0' },
  };
}

function haltedVm(ns: string, name: string, network: string): KubeObject {
  const spec = { domain: { devices: { interfaces: [{ name: 'nic-1', bridge: {} }] } }, networks: [{ name: 'nic-1', multus: { networkName: network } }] };
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace: ns }, spec: { runStrategy: 'Halted', template: { spec } } } as KubeObject;
}

describe('NAD webhooks: exact messages, what they leave alone, the setting delete check', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({}, { namespaces: ['default', 'test', 'harvester-system'] });
    sim.store.create(sim.kinds.clusterNetwork, { apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name: 'test-cn' } });
  });
  afterEach(() => sim.close());

  const create = (o: KubeObject) => sim.store.create(sim.kinds.nad, o);
  const stored = (ns: string, name: string) => sim.store.get(sim.kinds.nad, ns, name)!;
  function update(ns: string, name: string, change: (o: KubeObject) => void): KubeObject {
    const current = stored(ns, name);
    change(current);
    return sim.store.update(sim.kinds.nad, current);
  }
  const setConfig = (conf: Obj) => (o: KubeObject) => ((o.spec as Obj).config = JSON.stringify(conf));
  function refusedWith(fn: () => unknown): { code?: number; message?: string } {
    const err = expectStatusError(fn);
    return { code: err.status.code, message: err.status.message };
  }
  /** The network webhook's validator, called as the apiserver would call it. */
  function review(req: Omit<AdmissionRequest, 'kind' | 'store' | 'dryRun'>, store: StoreReader = sim.store): void {
    const validator = networkAttachmentDefinitionWebhooks(sim.kinds).find((h) => h.name === 'validator.harvester-system.harvester-network-webhook')!;
    validator.validate!({ ...req, kind: sim.kinds.nad, dryRun: false, store });
  }
  const reviewRefusal = (req: Omit<AdmissionRequest, 'kind' | 'store' | 'dryRun'>) => refusedWith(() => review(req));

  describe('create', () => {
    it('a storage-network NAD may reuse the exclusive VLAN (system NADs skip the check)', () => {
      create(nad('harvester-system', 'sn-old', bridgeConf({ vlan: 100 }), { labels: { [CN_LABEL]: 'test-cn', [EXCLUSIVE]: 'true' } }));
      create(nad('harvester-system', 'storagenetwork-new', bridgeConf({ vlan: 100 })));
      assert.ok(stored('harvester-system', 'storagenetwork-new'));
    });

    it('an untagged exclusive NAD reserves no VLAN: a trunk id 0 is refused by the trunk rule, not as reserved', () => {
      create(nad('harvester-system', 'sn-untagged', bridgeConf({ vlan: 0 }), { labels: { [CN_LABEL]: 'test-cn', [EXCLUSIVE]: 'true' } }));
      const conf = bridgeConf({ vlan: 0, vlanTrunk: [{ minID: 3100, maxID: 3104, ID: 0 }] });
      assert.deepEqual(refusedWith(() => create(nad('test', 'trunk0', conf))), { code: 500, message: `${NET_DENIED}can't create nad test/trunk0 because incorrect trunk id parameter 0` });
    });

    it('a cluster-network label that differs is reported against the bridge name without -br (N15)', () => {
      assert.deepEqual(refusedWith(() => create(nad('test', 'n', VLAN_CONFIG, { labels: { [CN_LABEL]: 'other-cn' } }))), {
        code: 500,
        message: `${NET_DENIED}can't create nad test/n because the nad label other-cn does not match bridge name test-cn`,
      });
    });

    it('an empty cluster-network label is not compared with the bridge', () => {
      create(nad('test', 'empty-label', VLAN_CONFIG, { labels: { [CN_LABEL]: '' } }));
      assert.ok(stored('test', 'empty-label'));
    });

    it('keeps the config text as written when its MTU already matches the cluster network (patchMTU only on a difference)', () => {
      create(nad('test', 'same-mtu', VLAN_CONFIG));
      assert.equal((stored('test', 'same-mtu').spec as Obj).config, VLAN_CONFIG);
    });
  });

  describe('update', () => {
    it('names both network types when the type changes', () => {
      create(nad('test', 'n', VLAN_CONFIG));
      assert.deepEqual(refusedWith(() => update('test', 'n', setConfig({ type: 'kube-ovn', provider: 'n.test.ovn' }))), {
        code: 500,
        message: `${NET_DENIED}can't update nad test/n because nad cannot be updated from network type bridge to network type kube-ovn`,
      });
    });

    it('prints an absent type as empty (stored untyped bridge NAD to kube-ovn)', () => {
      const untyped = { cniVersion: '0.3.1', bridge: 'test-cn-br', vlan: 300 };
      create(nad('test', 'n', untyped));
      assert.deepEqual(refusedWith(() => update('test', 'n', setConfig({ type: 'kube-ovn', provider: 'n.test.ovn' }))).message, `${NET_DENIED}can't update nad test/n because nad cannot be updated from network type  to network type kube-ovn`);
    });

    it('prints an absent new type as empty (a kube-ovn NAD made untyped, reviewed directly)', () => {
      const old = nad('test', 'n', { type: 'kube-ovn', provider: 'n.test.ovn' }, {});
      const next = nad('test', 'n', { bridge: 'test-cn-br' }, {});
      assert.equal(reviewRefusal({ operation: 'UPDATE', object: next, oldObject: old }).message, `${NET_DENIED}can't update nad test/n because nad cannot be updated from network type kube-ovn to network type `);
    });

    it('names both bridges when the bridge changes', () => {
      sim.store.create(sim.kinds.clusterNetwork, { apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name: 'other' } });
      create(nad('test', 'n', bridgeConf({ bridge: 'other-br' }), { labels: { [CN_LABEL]: 'other' } }));
      assert.equal(refusedWith(() => update('test', 'n', setConfig(bridgeConf()))).message, `${NET_DENIED}can't update nad test/n because nad bridge name can't be changed from other-br to test-cn-br`);
    });

    it('prints an absent old or new bridge as empty (reviewed directly: the mutator refuses a bridge-less config first)', () => {
      const withBridge = nad('test', 'n', bridgeConf(), {});
      const { bridge: _b, ...rest } = bridgeConf();
      const without = nad('test', 'n', rest, {});
      assert.equal(reviewRefusal({ operation: 'UPDATE', object: withBridge, oldObject: without }).message, `${NET_DENIED}can't update nad test/n because nad bridge name can't be changed from  to test-cn-br`);
      assert.equal(reviewRefusal({ operation: 'UPDATE', object: without, oldObject: withBridge }).message, `${NET_DENIED}can't update nad test/n because nad bridge name can't be changed from test-cn-br to `);
    });

    it('lists every running VM using the NAD, joined with ", "', () => {
      create(nad('test', 'n', VLAN_CONFIG));
      sim.store.create(sim.kinds.vmi, vmi('test', 'vm1', 'test/n'));
      sim.store.create(sim.kinds.vmi, vmi('test', 'vm2', 'n'));
      assert.equal(
        refusedWith(() => update('test', 'n', setConfig(bridgeConf({ vlan: 301 })))).message,
        `${NET_DENIED}can't update nad test/n because it's still used by VM(s) test/vm1, test/vm2 which must be stopped at first`,
      );
    });

    it('does not review an update of a NAD being deleted', () => {
      create(nad('test', 'n', VLAN_CONFIG, { labels: { [CN_LABEL]: 'test-cn' }, finalizers: ['example.com/hold'] }));
      sim.store.delete(sim.kinds.nad, 'test', 'n');
      const written = update('test', 'n', setConfig(bridgeConf({ vlan: 4095 })));
      assert.equal(JSON.parse((written.spec as Obj).config).vlan, 4095);
    });

    it('adding a route annotation with no VLAN change stores it as written', () => {
      create(nad('test', 'n', VLAN_CONFIG));
      const written = update('test', 'n', (o) => (o.metadata.annotations = { [ROUTE]: '{"mode":"auto"}' }));
      assert.equal(written.metadata.annotations![ROUTE], '{"mode":"auto"}');
    });

    // tagRouteOutdated compares only the `vlan` fields (docs/design/harvester-networks.md §"NAD mutator and labels").
    it('a change of trunk ranges alone leaves an auto route as written (not outdated)', () => {
      const trunk = (maxID: number) => bridgeConf({ vlan: 0, vlanTrunk: [{ minID: 3100, maxID }] });
      create(nad('test', 'n', trunk(3104), { labels: { [CN_LABEL]: 'test-cn' }, annotations: { [ROUTE]: '{"mode":"auto"}' } }));
      const written = update('test', 'n', setConfig(trunk(3110)));
      assert.equal(written.metadata.annotations![ROUTE], '{"mode":"auto"}');
    });

    it('a VLAN changed to a trunk (vlan 0) drops the route, as a change to untagged does', () => {
      create(nad('test', 'n', VLAN_CONFIG, { labels: { [CN_LABEL]: 'test-cn' }, annotations: { [ROUTE]: '{"mode":"auto"}' } }));
      const written = update('test', 'n', setConfig(bridgeConf({ vlan: 0, vlanTrunk: [{ minID: 3100, maxID: 3104 }] })));
      assert.equal(written.metadata.annotations?.[ROUTE], undefined);
    });
  });

  describe('delete', () => {
    it('lists every VM whose template uses the NAD, joined with ", "', () => {
      create(nad('test', 'n', VLAN_CONFIG));
      sim.store.create(sim.kinds.vm, haltedVm('test', 'vm1', 'n'));
      sim.store.create(sim.kinds.vm, haltedVm('test', 'vm2', 'test/n'));
      assert.deepEqual(refusedWith(() => sim.store.delete(sim.kinds.nad, 'test', 'n')), {
        code: 500,
        message: `${NET_DENIED}can't delete nad test/n because it's still used by VM(s) test/vm1, test/vm2 which must remove the related networks and interfaces`,
      });
    });

    it('reviews a repeated delete of a NAD already being deleted', () => {
      create(nad('test', 'n', VLAN_CONFIG, { labels: { [CN_LABEL]: 'test-cn' }, finalizers: ['example.com/hold'] }));
      sim.store.delete(sim.kinds.nad, 'test', 'n');
      sim.store.create(sim.kinds.vmi, vmi('test', 'vm1', 'test/n'));
      assert.equal(refusedWith(() => sim.store.delete(sim.kinds.nad, 'test', 'n')).message, `${NET_DENIED}can't delete nad test/n because it's still used by VM(s) test/vm1 which must be stopped at first`);
    });

    it('a kube-ovn NAD is deleted without looking at its users (reviewed directly)', () => {
      // A VM on a NAD that is not stored cannot be created (Harvester's VM mutator looks the NAD up), so the
      // VM using the kube-ovn NAD is only in the store the validator reads.
      const users = { items: [haltedVm('test', 'vm1', 'test/ovn')], resourceVersion: '1' };
      const withUser: StoreReader = {
        get: (kind, ns, name) => sim.store.get(kind, ns, name),
        list: (kind, options) => (kind === sim.kinds.vm ? users : sim.store.list(kind, options)),
        listShared: (kind, options) => (kind === sim.kinds.vm ? users : sim.store.listShared(kind, options)),
      };
      assert.doesNotThrow(() => review({ operation: 'DELETE', oldObject: nad('test', 'ovn', { type: 'kube-ovn', provider: 'ovn.test.ovn' }, {}) }, withUser));
    });

    it('a config that no longer decodes is refused with the update wording, wrapped once (reviewed directly)', () => {
      const broken = nad('test', 'broken', '{"type":"bridge","vlanTrunk":5}', {});
      assert.deepEqual(reviewRefusal({ operation: 'DELETE', oldObject: broken }), {
        code: 500,
        message: `${NET_DENIED}can't update nad test/broken because failed to unmarshal nad test/broken config {"type":"bridge","vlanTrunk":5} json: cannot unmarshal into Go struct field NetConf.vlanTrunk of type []utils.VlanTrunk`,
      });
    });

    it('subresource writes are not reviewed (the webhook registers the main resource only; reviewed directly)', () => {
      const bad = nad('test', 'n', bridgeConf({ vlan: 4095 }));
      assert.doesNotThrow(() => review({ operation: 'UPDATE', subresource: 'status', object: bad, oldObject: nad('test', 'n', VLAN_CONFIG) }));
    });
  });

  describe("Harvester's setting check", () => {
    const setting = (name: string, annotation: string, value: string) =>
      sim.store.create(sim.kinds.setting, { apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name, annotations: { [annotation]: value } } });

    it('refuses (400 BadRequest) deleting the NAD the rwx-network setting names', () => {
      create(nad('harvester-system', 'rwx-network-abc', bridgeConf({ vlan: 100 })));
      setting('rwx-network', 'rwx-network.settings.harvesterhci.io/net-attach-def', 'harvester-system/rwx-network-abc');
      const err = expectStatusError(() => sim.store.delete(sim.kinds.nad, 'harvester-system', 'rwx-network-abc'));
      assert.deepEqual(
        { code: err.status.code, reason: err.status.reason, message: err.status.message },
        {
          code: 400,
          reason: 'BadRequest',
          message: "admission webhook \"validator.harvesterhci.io\" denied the request: cannot delete NetworkAttachmentDefinition harvester-system/rwx-network-abc which is used by Harvester setting 'rwx-network'",
        },
      );
    });

    it('lets the NAD a setting names be updated (the check is on delete only)', () => {
      create(nad('harvester-system', 'storagenetwork-a', bridgeConf({ vlan: 100 })));
      setting('storage-network', 'storage-network.settings.harvesterhci.io/net-attach-def', 'harvester-system/storagenetwork-a');
      const written = update('harvester-system', 'storagenetwork-a', (o) => (o.metadata.annotations = { note: 'x' }));
      assert.equal(written.metadata.annotations!.note, 'x');
    });
  });
});
