/**
 * The emulator's network webhooks against upstream's Go test tables (harvester-network-controller
 * pkg/webhook/nad/validator_test.go, mutator_test.go, pkg/utils/nad_test.go, pkg/webhook/clusternetwork/
 * validator_test.go, pkg/webhook/vlanconfig/validator_test.go; docs/design/harvester-networks.md
 * §"Upstream's tests"), case names kept. Upstream asserts "error or not" and a substring; we assert the 500 prefix
 * of the network webhook too. Cases for kube-ovn Subnets and HostNetworkConfigs are out: the emulator serves
 * neither kind.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { clusterNetworkMtu, isSystemNetworkNad, matchedNodesOf } from '../../emulator/controllers/netconf';
import { desiredNetwork } from '../../provider/resources/network/plan';
import { NETWORK_RULE_CASES, unchecked } from '../support/network-rules';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const NET_DENIED = 'admission webhook "validator.harvester-system.harvester-network-webhook" denied the request: Internal error occurred: ';
const MUT_DENIED = 'admission webhook "mutator.harvester-system.harvester-network-webhook" denied the request: Internal error occurred: ';
const VLAN_CONFIG = '{"cniVersion":"0.3.1","name":"net1-vlan","type":"bridge","bridge":"test-cn-br","promiscMode":true,"vlan":300,"ipam":{}}';
const CN_LABEL = 'network.harvesterhci.io/clusternetwork';

type Obj = Record<string, any>;
const cn = (name: string, annotations?: Record<string, string>): KubeObject => ({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name, annotations } });

function nad(ns: string, name: string, config: string | Obj, meta: { labels?: Record<string, string>; annotations?: Record<string, string> } = { labels: { [CN_LABEL]: 'test-cn' } }): KubeObject {
  return { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace: ns, ...meta }, spec: { config: typeof config === 'string' ? config : JSON.stringify(config) } };
}
const bridgeConf = (extra: Obj = {}): Obj => ({ ...JSON.parse(VLAN_CONFIG), ...extra });

function vc(name: string, clusterNetwork: string, extra: { mtu?: number; labels?: Record<string, string>; matched?: string[] } = {}): KubeObject {
  const annotations = extra.matched ? { 'network.harvesterhci.io/matched-nodes': JSON.stringify(extra.matched) } : undefined;
  return {
    apiVersion: 'network.harvesterhci.io/v1beta1',
    kind: 'VlanConfig',
    metadata: { name, labels: extra.labels ?? { [CN_LABEL]: clusterNetwork }, annotations },
    spec: { clusterNetwork, nodeSelector: { 'kubernetes.io/hostname': 'no-such-host' }, uplink: { nics: ['eth1'], linkAttributes: { mtu: extra.mtu ?? 1500 } } },
  };
}

function vmi(ns: string, name: string, network: string, nodeName = 'harvester-node-0'): KubeObject {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: ns },
    spec: { domain: { devices: { interfaces: [{ name: 'nic-1', bridge: {} }] } }, networks: [{ name: 'nic-1', multus: { networkName: network } }] },
    status: { nodeName },
  };
}

describe('simulated Harvester: network webhooks as upstream tests them', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({}, { namespaces: ['default', 'test', 'testdefault', 'harvester-system'] });
    sim.store.create(sim.kinds.clusterNetwork, cn('test-cn'));
  });
  afterEach(() => sim.close());

  const k = () => sim.kinds;
  const create = (kind: 'nad' | 'clusterNetwork' | 'vlanConfig' | 'vmi' | 'vm', o: KubeObject, user?: string) => sim.store.create(k()[kind], o, { user });
  /** Refused with the network webhook's 500 and a message containing `key`. */
  function refused(fn: () => unknown, key: string, prefix = NET_DENIED): string {
    const err = expectStatusError(fn);
    const message = err.status.message ?? '';
    assert.equal(err.status.code, 500, message);
    assert.ok(message.startsWith(prefix), message);
    assert.ok(message.includes(key), `${message} should contain ${key}`);
    return message;
  }
  function updateNad(ns: string, name: string, change: (o: KubeObject) => void): KubeObject {
    const current = sim.store.get(k().nad, ns, name)!;
    change(current);
    return sim.store.update(k().nad, current);
  }

  describe('TestCreateNAD', () => {
    it('valid NAD can be created', () => create('nad', nad('test', 'net1-vlan', VLAN_CONFIG)));
    it('valid NAD can be created when it does not have label', () => create('nad', nad('test', 'net1-vlan', VLAN_CONFIG, {})));
    it("NAD can't be created as it's config is an invalid JSON string", () =>
      refused(() => create('nad', nad('test', 'n', '{"cniVersion":"0.3.1","type":"bridge","bridgebridge","vlan":300}')), 'failed to unmarshal', MUT_DENIED));
    it("NAD can't be created as it's label does not match bridge name", () =>
      refused(() => create('nad', nad('test', 'n', VLAN_CONFIG, { labels: { [CN_LABEL]: 'test-cn-mismatch' } })), 'does not match'));
    it("NAD can't be created as it's config refers to a none-existing cluster network", () =>
      refused(() => create('nad', nad('test', 'n', bridgeConf({ bridge: 'none-br' }), {})), 'none-existing', MUT_DENIED));
    it("NAD can't be created as it has invalid config string", () => refused(() => create('nad', nad('test', 'n', '{"cniVersion","name":"x"}')), 'unmarshal', MUT_DENIED));
    for (const vlan of [-1, 4095]) {
      it(`NAD can't be created as it has invalid VLAN id which is ${vlan}`, () => {
        const message = refused(() => create('nad', nad('test', 'n', bridgeConf({ vlan }))), 'out of range');
        assert.equal(message, `${NET_DENIED}can't create nad test/n because vlan ${vlan} is out of range [0 .. 4094]`);
      });
    }
    it("NAD can't be created as it has too long bridge name", () => refused(() => create('nad', nad('test', 'n', bridgeConf({ bridge: 'harvester-br-too-long' }), {})), 'more than', MUT_DENIED));
    it("NAD can't be created as it has too short bridge name", () => refused(() => create('nad', nad('test', 'n', bridgeConf({ bridge: 'a' }), {})), 'less than', MUT_DENIED));
    it("NAD can't be created as it has empty bridge name", () => {
      const { bridge: _b, ...conf } = bridgeConf();
      refused(() => create('nad', nad('test', 'n', conf, {})), 'less than', MUT_DENIED);
    });
    it("NAD can't be created as has invalid bridge suffix", () => refused(() => create('nad', nad('test', 'n', bridgeConf({ bridge: 'suffix-br-' }), {})), 'does not include suffix', MUT_DENIED));
    const trunkCases: [string, Obj, string][] = [
      ['has vlan and trunk set in parallel', { vlan: 300, vlanTrunk: [{ minID: 3100, maxID: 3104 }] }, 'vlan can only be 0'],
      ['trunk vid error incorrect trunk minID', { vlan: 0, vlanTrunk: [{ minID: -1, maxID: 3104 }] }, 'incorrect trunk minID'],
      ['trunk vid error incorrect trunk maxID', { vlan: 0, vlanTrunk: [{ minID: 3104, maxID: 4095 }] }, 'incorrect trunk maxID'],
      ['trunk vid error minID is missing', { vlan: 0, vlanTrunk: [{ maxID: 3104 }] }, 'minID is missing'],
      ['trunk vid error maxID is missing', { vlan: 0, vlanTrunk: [{ minID: 3100 }] }, 'maxID is missing'],
      ['trunk vid error incorrect trunk id parameter 4096', { vlan: 0, vlanTrunk: [{ minID: 3100, maxID: 3104, ID: 4096 }] }, 'incorrect trunk id parameter'],
      ['trunk vid error incorrect trunk id parameter 0', { vlan: 0, vlanTrunk: [{ minID: 3100, maxID: 3104, ID: 0 }] }, 'incorrect trunk id parameter'],
    ];
    for (const [label, extra, key] of trunkCases) it(`NAD can't be created as ${label}`, () => refused(() => create('nad', nad('test', 'n', bridgeConf(extra))), key));
    it("NAD can't be created as the host cluster network has invalid mtu annotation", () => {
      // The webhook refuses such an annotation on every write (C2, C3), so the rule is checked on the object directly.
      assert.throws(() => clusterNetworkMtu(sim.store, k(), cn('test-cn', { 'network.harvesterhci.io/uplink-mtu': '15000' }), 'test-cn'), /has invalid MTU annotation network.harvesterhci.io\/uplink-mtu\/15000 value 15000 is not in range \[0, 576\.\.9000\]/);
    });
    it('refuses a kube-ovn NAD: kube-ovn is not enabled (TestCreateOverlayNADWithNoSubnetCRD)', () =>
      refused(() => create('nad', nad('default', 'vswitch1', { cniVersion: '0.3.1', name: 'vswitch1', type: 'kube-ovn', provider: 'vswitch1.default.ovn' }, {})), 'kubeovn is not yet enabled'));
    const exclusive = () => create('nad', nad('harvester-system', 'net1-vlan', bridgeConf({ vlan: 100 }), { annotations: { 'storage-network.settings.harvesterhci.io': 'true' }, labels: { 'storage-network.settings.harvesterhci.io/exclusivevlan': 'true' } }));
    it("NAD can't be created as VLAN overlaps with exclusive storage network NAD", () => {
      exclusive();
      refused(() => create('nad', nad('test', 'net2-vlan', bridgeConf({ vlan: 100 }))), 'vlan 100 is exclusively reserved for storage network');
    });
    it('NAD can be created as VLAN does not overlap with exclusive storage network NAD', () => {
      create('nad', nad('harvester-system', 'storagenetwork-vlan100', bridgeConf({ vlan: 100 })));
      create('nad', nad('test', 'net2-vlan', bridgeConf({ vlan: 200 })));
    });
    it('NAD can be created as VLAN  overlap with exclusive storage network NAD but exclusive vlan is not enabled', () => {
      create('nad', nad('harvester-system', 'sn', bridgeConf({ vlan: 100 }), { annotations: { 'storage-network.settings.harvesterhci.io': 'true' } }));
      create('nad', nad('test', 'net2-vlan', bridgeConf({ vlan: 100 })));
    });
    it('NAD can be created when no exclusive storage network NAD exists', () => create('nad', nad('test', 'net3-vlan', bridgeConf({ vlan: 300 }))));
    it('NAD can be created with valid trunk VLAN config', () =>
      create('nad', nad('test', 'trunk', bridgeConf({ vlan: 0, vlanTrunk: [{ minID: 5, maxID: 10 }, { minID: 300, maxID: 320 }, { minID: 25, maxID: 25 }] }))));
    it("NAD can't be created as trunk VLAN range overlaps with exclusive storage network NAD", () => {
      exclusive();
      refused(() => create('nad', nad('test', 'trunk', bridgeConf({ vlan: 0, vlanTrunk: [{ minID: 100, maxID: 105 }] }))), 'vlan 100 is exclusively reserved for storage network');
    });
    it('refuses a route annotation with an unknown mode, a bad CIDR or gateway (N19, typo kept)', () => {
      const withRoute = (route: string) => nad('test', 'r', VLAN_CONFIG, { labels: { [CN_LABEL]: 'test-cn' }, annotations: { 'network.harvesterhci.io/route': route } });
      refused(() => create('nad', withRoute('{"mode":"auto", "unknow"}')), 'faield, error');
      refused(() => create('nad', withRoute('{"mode":"dhcp"}')), 'unknown mode dhcp');
      refused(() => create('nad', withRoute('{"mode":"manual","cidr":"10.0.0.0/0","gateway":"10.0.0.1"}')), 'the CIDR 10.0.0.0/0 is invalid');
      refused(() => create('nad', withRoute('{"mode":"manual","cidr":"10.0.0.0/24","gateway":"10.0.0"}')), 'the gateway 10.0.0 is invalid');
      create('nad', withRoute('{"mode":"manual","cidr":"10.0.0.0/24","gateway":"10.0.0.1"}'));
    });
    it('sets the cluster network MTU into the config when it differs (patchMTU) and refuses a different one (N18)', async () => {
      create('vlanConfig', vc('vc1', 'test-cn', { mtu: 9000 }));
      create('nad', nad('test', 'jumbo', VLAN_CONFIG));
      assert.equal(JSON.parse((sim.store.get(k().nad, "test", "jumbo")!.spec as Obj).config).mtu, 9000);
      await sim.run(0);
      refused(() => updateNad('test', 'jumbo', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 301, mtu: 1400 })))), 'nad MTU 1400 does not match cluster network MTU 9000');
    });
  });

  describe('TestUpdateNAD', () => {
    it("storage network NAD can't be updated", () => {
      create('nad', nad('harvester-system', 'storagenetwork-vlan100', bridgeConf({ vlan: 100 })));
      refused(() => updateNad('harvester-system', 'storagenetwork-vlan100', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 200 })))), "system network nad's params can't be changed");
    });
    it("rwx network NAD can't be updated", () => {
      create('nad', nad('harvester-system', 'rwx-network-abc123', bridgeConf({ vlan: 100 })));
      refused(() => updateNad('harvester-system', 'rwx-network-abc123', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 200 })))), "system network nad's params can't be changed");
    });
    it('change the cluster network on nad throws error', () => {
      create('clusterNetwork', cn('test-cn1'));
      create('nad', nad('test', 'net1-vlan', bridgeConf({ bridge: 'test-cn1-br' }), { labels: { [CN_LABEL]: 'test-cn1' } }));
      refused(() => updateNad('test', 'net1-vlan', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf()))), "nad bridge name can't be changed");
    });
    it('change the nad type (bridge/kube-ovn) throws error', () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG));
      refused(() => updateNad('test', 'net1-vlan', (o) => ((o.spec as Obj).config = JSON.stringify({ type: 'kube-ovn', provider: 'net1-vlan.test.ovn' }))), 'nad cannot be updated');
    });
    it("NAD can't be created as VLAN overlaps with exclusive storage network NAD", () => {
      create('nad', nad('harvester-system', 'sn-vlan', bridgeConf({ vlan: 100 }), { labels: { 'storage-network.settings.harvesterhci.io/exclusivevlan': 'true' } }));
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG));
      refused(() => updateNad('test', 'net1-vlan', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 100 })))), 'vlan 100 is exclusively reserved for storage network');
    });
    it('refuses a config change while a VMI uses the network, allows a metadata-only edit', () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG));
      create('vmi', vmi('test', 'vm1', 'test/net1-vlan'));
      updateNad('test', 'net1-vlan', (o) => (o.metadata.annotations = { note: 'x' }));
      const message = refused(() => updateNad('test', 'net1-vlan', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 301 })))), 'still used');
      assert.equal(message, `${NET_DENIED}can't update nad test/net1-vlan because it's still used by VM(s) test/vm1 which must be stopped at first`);
    });
  });

  describe('TestDeleteNAD', () => {
    beforeEach(() => create('nad', nad('test', 'net1-vlan', VLAN_CONFIG)));
    it("NAD can't be deleted as it has used VMIs", () => {
      create('vmi', vmi('test', 'vm1', 'test/net1-vlan'));
      const message = refused(() => sim.store.delete(k().nad, 'test', 'net1-vlan'), 'vm1');
      assert.equal(message, `${NET_DENIED}can't delete nad test/net1-vlan because it's still used by VM(s) test/vm1 which must be stopped at first`);
    });
    it("NAD can't be deleted as it has used VMs", () => {
      const vm = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'vm1', namespace: 'test' }, spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: { interfaces: [{ name: 'nic-1', bridge: {} }] } }, networks: [{ name: 'nic-1', multus: { networkName: 'net1-vlan' } }] } } } };
      create('vm', vm as KubeObject);
      const message = refused(() => sim.store.delete(k().nad, 'test', 'net1-vlan'), 'vm1');
      assert.equal(message, `${NET_DENIED}can't delete nad test/net1-vlan because it's still used by VM(s) test/vm1 which must remove the related networks and interfaces`);
    });
    it('NAD can be deleted as it has no used VMs', () => sim.store.delete(k().nad, 'test', 'net1-vlan'));
  });

  describe("Harvester's NAD delete check (TestDeleteBlocksWhenUsed, TestDeleteAllowsWhenNotUsed)", () => {
    it('refuses (400) deleting the NAD the storage-network setting names, allows others', () => {
      create('nad', nad('harvester-system', 'storagenetwork-bbbbb', bridgeConf({ vlan: 100 })));
      create('nad', nad('harvester-system', 'storagenetwork-aaaaa', bridgeConf({ vlan: 101 })));
      sim.store.create(k().setting, { apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name: 'storage-network', annotations: { 'storage-network.settings.harvesterhci.io/net-attach-def': 'harvester-system/storagenetwork-bbbbb' } } });
      const err = expectStatusError(() => sim.store.delete(k().nad, 'harvester-system', 'storagenetwork-bbbbb'));
      assert.equal(err.status.code, 400);
      assert.match(err.status.message ?? '', /validator\.harvesterhci\.io.*cannot delete NetworkAttachmentDefinition harvester-system\/storagenetwork-bbbbb which is used by Harvester setting 'storage-network'/);
      sim.store.delete(k().nad, 'harvester-system', 'storagenetwork-aaaaa');
    });
  });

  describe('TestMutatorUpdateNAD and the NAD controller', () => {
    const A = '{"mode":"auto"}';
    const route = () => sim.store.get(k().nad, 'test', 'net1-vlan')!.metadata.annotations?.['network.harvesterhci.io/route'];
    const labels = () => sim.store.get(k().nad, 'test', 'net1-vlan')!.metadata.labels ?? {};
    it('labels a new NAD (clusternetwork, type, vlan-id, ready) and learns an auto route: cidr, gateway, connectivity', async () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG, { annotations: { 'network.harvesterhci.io/route': A } }));
      await sim.run(0);
      assert.deepEqual(labels(), { [CN_LABEL]: 'test-cn', 'network.harvesterhci.io/type': 'L2VlanNetwork', 'network.harvesterhci.io/vlan-id': '300', 'network.harvesterhci.io/ready': 'false' });
      assert.deepEqual(JSON.parse(route()!), { mode: 'auto', cidr: '10.10.0.0/16', gateway: '10.10.0.1', outdated: false, connectivity: 'true' });
    });
    it('route annotations outdated when vid changes from 300 to 350 (auto), then learnt again', async () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG, { annotations: { 'network.harvesterhci.io/route': A } }));
      await sim.run(0);
      const stored = updateNad('test', 'net1-vlan', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 350 }))));
      assert.equal(JSON.parse(stored.metadata.annotations!['network.harvesterhci.io/route']).outdated, true);
      assert.equal(stored.metadata.labels!['network.harvesterhci.io/vlan-id'], '350');
      await sim.run(0);
      assert.equal(JSON.parse(route()!).outdated, false);
    });
    it('route annotation removed when vid changes from 300 to untag', () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG, { annotations: { 'network.harvesterhci.io/route': A } }));
      const stored = updateNad('test', 'net1-vlan', (o) => ((o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 0 }))));
      assert.equal(stored.metadata.annotations?.['network.harvesterhci.io/route'], undefined);
      assert.equal(stored.metadata.labels!['network.harvesterhci.io/type'], 'UntaggedNetwork');
      assert.equal(stored.metadata.labels!['network.harvesterhci.io/vlan-id'], undefined);
    });
    it('outdated when mode changes from auto to manual (false) and stays put when the mode does not change', () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG, { annotations: { 'network.harvesterhci.io/route': A } }));
      const manual = '{"mode":"manual","cidr":"10.0.0.0/24","gateway":"10.0.0.1"}';
      let stored = updateNad('test', 'net1-vlan', (o) => (o.metadata.annotations = { 'network.harvesterhci.io/route': manual }));
      assert.equal(JSON.parse(stored.metadata.annotations!['network.harvesterhci.io/route']).outdated, false);
      stored = updateNad('test', 'net1-vlan', (o) => (o.metadata.annotations = { 'network.harvesterhci.io/route': manual }));
      assert.equal(stored.metadata.annotations!['network.harvesterhci.io/route'], manual);
    });
    it('… from 300 to 350, but route annotation is invalid', () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG, { annotations: { 'network.harvesterhci.io/route': A } }));
      refused(() => updateNad('test', 'net1-vlan', (o) => {
        (o.spec as Obj).config = JSON.stringify(bridgeConf({ vlan: 350 }));
        o.metadata.annotations = { 'network.harvesterhci.io/route': '{"mode":"auto", "unknow"}' };
      }), 'failed, error', MUT_DENIED);
    });
  });

  describe('TestIsSystemNetworkNad', () => {
    const cases: [string, KubeObject | undefined, boolean][] = [
      ['nil nad returns false', undefined, false],
      ['nad in wrong namespace returns false', nad('default', 'storagenetwork-vlan100', VLAN_CONFIG), false],
      ['nad with storage network annotation returns true', nad('harvester-system', 'any-name', VLAN_CONFIG, { annotations: { 'storage-network.settings.harvesterhci.io': 'true' } }), true],
      ['nad with storage network name prefix returns true', nad('harvester-system', 'storagenetwork-vlan100', VLAN_CONFIG), true],
      ['nad with rwx network annotation returns true', nad('harvester-system', 'any-name', VLAN_CONFIG, { annotations: { 'rwx-network.settings.harvesterhci.io': 'true' } }), true],
      ['nad with rwx network name prefix returns true', nad('harvester-system', 'rwx-network-abc123', VLAN_CONFIG), true],
      ['nad in correct namespace without annotation or prefix returns false', nad('harvester-system', 'regular-nad', VLAN_CONFIG), false],
    ];
    for (const [label, input, expected] of cases) it(label, () => assert.equal(isSystemNetworkNad(input), expected));
  });

  describe('ClusterNetwork (TestCreate/Update/DeleteClusterNetwork)', () => {
    const setMtu = (name: string, mtu: string | undefined) => {
      const o = sim.store.get(k().clusterNetwork, undefined, name)!;
      o.metadata.annotations = mtu === undefined ? {} : { 'network.harvesterhci.io/uplink-mtu': mtu };
      return sim.store.update(k().clusterNetwork, o);
    };
    it("ClusterNetwork can't be created as the name is too long", () => refused(() => create('clusterNetwork', cn('thisnameistoolongtobeaccept')), 'the length of'));
    it('ClusterNetwork can be created', () => create('clusterNetwork', cn('test-cn2')));
    it("ClusterNetwork can't be created as the MTU annotation is not allowed to be added by user", () =>
      refused(() => create('clusterNetwork', cn('cn3', { 'network.harvesterhci.io/uplink-mtu': '1500' })), "can't be added"));
    it('ClusterNetwork can be changed with valid MTU annotation', () => setMtu('test-cn', '1501'));
    it("ClusterNetwork mgmt can't be changed as new MTU annotation is not in range", () => refused(() => setMtu('mgmt', '20000'), 'not in range'));
    it("ClusterNetwork mgmt can't be changed as new MTU annotation is invalid", () => refused(() => setMtu('mgmt', 'abc'), 'not an integer'));
    it('ClusterNetwork mgmt can be changed with new valid MTU annotation', () => setMtu('mgmt', '2000'));
    it("ClusterNetwork mgmt can't be changed as some VMs are still attached", () => {
      create('nad', nad('test', 'nad1', bridgeConf({ bridge: 'mgmt-br' }), { labels: { [CN_LABEL]: 'mgmt' } }));
      create('vmi', vmi('test', 'test', 'test/nad1'));
      refused(() => setMtu('mgmt', '2000'), 'following VMs');
    });
    it("ClusterNetwork mgmt can't be deleted", () => refused(() => sim.store.delete(k().clusterNetwork, undefined, 'mgmt'), 'not allowed'));
    it("ClusterNetwork can't be deleted as it has VlanConfig", () => {
      create('vlanConfig', vc('VC1'.toLowerCase(), 'test-cn'));
      refused(() => sim.store.delete(k().clusterNetwork, undefined, 'test-cn'), 'still exist');
    });
    it("ClusterNetwork can't be deleted as it has nad", () => {
      create('nad', nad('test', 'nad1', VLAN_CONFIG));
      const message = refused(() => sim.store.delete(k().clusterNetwork, undefined, 'test-cn'), 'nads');
      assert.ok(message.endsWith("can't delete cluster network test-cn because nads(s) test/nad1 under this clusternetwork are still existing"), message);
    });
    it('ClusterNetwork can be deleted as it has no referred VlanConfig or nad', () => sim.store.delete(k().clusterNetwork, undefined, 'test-cn'));
  });

  describe('VlanConfig (TestCreate/Update/DeleteVlanConfig, TestGetMatchNodes)', () => {
    it("VlanConfig can't be created on mgmt network by user request", () => refused(() => create('vlanConfig', vc('test-on-mgmt', 'mgmt'), 'system:admin'), 'mgmt'));
    it('VlanConfig can be created on mgmt network by controller request', () =>
      create('vlanConfig', vc('test-on-mgmt', 'mgmt'), 'system:serviceaccount:harvester-system:harvester-network-controller'));
    for (const mtu of [575, 9001]) it(`VlanConfig can't be created as MTU is too ${mtu < 576 ? 'small' : 'big'}`, () => refused(() => create('vlanConfig', vc('v', 'test-cn', { mtu })), 'out of range'));
    it('VlanConfig can be created with MTU 1500 / 0', () => {
      create('vlanConfig', vc('v1', 'test-cn', { mtu: 1500 }));
      create('vlanConfig', vc('v0', 'test-cn', { mtu: 0 }));
    });
    it("VlanConfig can't be created as VlanConfigs under one ClusterNetwork have different MTUs", () => {
      create('vlanConfig', vc('current', 'test-cn', { mtu: 1500 }));
      refused(() => create('vlanConfig', vc('new', 'test-cn', { mtu: 1501 })), 'MTU');
    });
    it("VlanConfig can't be created as VlanConfigs have overlaps", async () => {
      const all = { ...vc('old', 'test-cn'), spec: { clusterNetwork: 'test-cn', uplink: { nics: ['eth1'] } } };
      create('vlanConfig', all);
      await sim.run(0);
      refused(() => create('vlanConfig', { ...all, metadata: { name: 'new' } }), 'overlaps');
    });
    it('refuses a VlanConfig on a cluster network that does not exist', () => refused(() => create('vlanConfig', vc('v', 'nope')), 'none-existing cluster network nope'));
    it("VlanConfig can't be updated when label is empty / different from the spec", () => {
      create('vlanConfig', vc('v', 'test-cn'));
      const o = sim.store.get(k().vlanConfig, undefined, 'v')!;
      o.metadata.labels = { [CN_LABEL]: 'different-cn-name' };
      refused(() => sim.store.update(k().vlanConfig, o), 'is invalid');
    });
    it('attaches the matched hosts: annotation, node labels, ClusterNetwork ready and NAD ready label; refuses deleting it under a running VM', async () => {
      create('nad', nad('test', 'net1-vlan', VLAN_CONFIG));
      await sim.run(0);
      assert.equal(sim.store.get(k().nad, 'test', 'net1-vlan')!.metadata.labels!['network.harvesterhci.io/ready'], 'false');
      create('vlanConfig', { ...vc('v', 'test-cn'), spec: { clusterNetwork: 'test-cn', nodeSelector: { 'kubernetes.io/hostname': 'harvester-node-0' }, uplink: { nics: ['eth1'] } } });
      await sim.run(0);
      assert.deepEqual(matchedNodesOf(sim.store.get(k().vlanConfig, undefined, 'v')), ['harvester-node-0']);
      assert.equal(sim.store.get(k().node, undefined, 'harvester-node-0')!.metadata.labels!['network.harvesterhci.io/test-cn'], 'true');
      assert.equal(sim.store.get(k().nad, 'test', 'net1-vlan')!.metadata.labels!['network.harvesterhci.io/ready'], 'true');
      const running = create('vmi', vmi('test', 'vm1', 'test/net1-vlan'));
      sim.store.update(k().vmi, { ...running, status: { nodeName: 'harvester-node-0' } }, { subresource: 'status' });
      refused(() => sim.store.delete(k().vlanConfig, undefined, 'v'), 'it is blocked by VM(s) test/vm1 which must be stopped at first');
    });
    it("VlanConfig can't be deleted as storage network nad is still attached", () => {
      create('vlanConfig', vc('v', 'test-cn', { matched: ['node1'] }));
      create('nad', nad('harvester-system', 'storagenetwork-vlan100', bridgeConf({ vlan: 100 })));
      refused(() => sim.store.delete(k().vlanConfig, undefined, 'v'), 'system network nad');
    });
    it('VlanConfig can be deleted as it has no matched nodes', () => {
      create('vlanConfig', vc('v', 'test-cn'));
      sim.store.delete(k().vlanConfig, undefined, 'v');
    });
    const matchCases: [string, KubeObject | undefined, string[] | 'error'][] = [
      ['nil vlanconfig returns empty set', undefined, []],
      ['missing matched-nodes annotation returns empty set', vc('v', 'test-cn'), []],
      ['empty matched-nodes annotation returns empty set', { ...vc('v', 'test-cn'), metadata: { name: 'v', annotations: { 'network.harvesterhci.io/matched-nodes': '' } } }, []],
      ['valid matched-nodes annotation returns nodes', vc('v', 'test-cn', { matched: ['node1', 'node2'] }), ['node1', 'node2']],
      ['invalid matched-nodes annotation returns error and empty set', { ...vc('v', 'test-cn'), metadata: { name: 'v', annotations: { 'network.harvesterhci.io/matched-nodes': 'not-json' } } }, 'error'],
    ];
    for (const [label, input, expected] of matchCases) {
      it(label, () => (expected === 'error' ? assert.throws(() => matchedNodesOf(input)) : assert.deepEqual(matchedNodesOf(input), expected)));
    }
  });
});

describe('simulated Harvester: the rules a HarvesterNetwork input can break (shared with the provider check)', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({}, { namespaces: ['default', 'harvester-system'] });
  });
  afterEach(() => sim.close());

  for (const c of NETWORK_RULE_CASES) {
    const verdict = c.refused?.webhook ? `refuses (${c.refused.webhook.hook})` : 'admits';
    it(`${verdict} ${c.label}`, async () => {
      for (const e of c.existing ?? []) sim.store.create(sim.kinds[e.kind], structuredClone(e.object) as unknown as KubeObject);
      await sim.run(0);
      const written = desiredNetwork(unchecked(c.args)) as unknown as KubeObject;
      if (c.refused?.webhook) {
        const err = expectStatusError(() => sim.store.create(sim.kinds.nad, written));
        const prefix = (c.refused.webhook.hook === 'mutator' ? MUT_DENIED : NET_DENIED) + "can't create nad default/n because ";
        const message = err.status.message ?? '';
        assert.equal(err.status.code, 500);
        assert.ok(message.startsWith(prefix), message);
        const reason = message.slice(prefix.length);
        if (typeof c.refused.webhook.reason === 'string') assert.equal(reason, c.refused.webhook.reason);
        else assert.match(reason, c.refused.webhook.reason);
        return;
      }
      sim.store.create(sim.kinds.nad, written);
      await sim.run(0);
      assert.equal(sim.store.get(sim.kinds.nad, 'default', 'n')!.metadata.labels!['network.harvesterhci.io/ready'], c.readyLabel);
    });
  }
});
