/**
 * The ClusterNetwork validator and the VlanConfig mutator of the network webhook, called directly: exact
 * outcomes and messages (harvester/network-controller-harvester pkg/webhook/clusternetwork/validator.go,
 * pkg/webhook/vlanconfig/mutator.go; docs/design/harvester-networks.md §"ClusterNetwork rules", §"VlanConfig rules").
 */
import { strict as assert } from 'node:assert';
import {
  CN_LABEL, CONTROLLER, cn, deleting, denial, MATCHED, mutateVc, nad, node, UPLINK_MTU, validateCn, vc, vmi,
} from './cluster-network-webhook-support';

describe('network webhook: ClusterNetwork validator (C1-C8), called directly', () => {
  describe('create (C1, C2)', () => {
    it('admits a name of exactly 12 characters', () => validateCn({ operation: 'CREATE', object: cn('abcdefghijkl') }));
    it('refuses a name of 13 characters, naming it and the limit', () =>
      assert.equal(
        denial(() => validateCn({ operation: 'CREATE', object: cn('abcdefghijklm') })),
        "can't create cluster network abcdefghijklm because the length of the clusterNetwork name abcdefghijklm is more than 12",
      ));
    it('refuses the uplink-mtu annotation on a new cluster network', () =>
      assert.equal(denial(() => validateCn({ operation: 'CREATE', object: cn('cn1', '1500') })), `can't create cluster network cn1 because annotation ${UPLINK_MTU} can't be added`));
  });

  describe('update of a cluster network other than mgmt (C3, C5)', () => {
    const stored = { vcs: [vc('vc1', 'cn1', { mtu: 1500 })] };
    it("refuses an MTU annotation different from a VlanConfig's MTU, naming both", () =>
      assert.equal(
        denial(() => validateCn({ operation: 'UPDATE', object: cn('cn1', '9000'), oldObject: cn('cn1') }, stored)),
        "can't update cluster network cn1 because clusternetwork has MTU 9000, but the vlanconfigs vc1 has another MTU 1500",
      ));
    it('admits an MTU annotation equal to the VlanConfigs\' MTU (0 counts as 1500)', () =>
      validateCn({ operation: 'UPDATE', object: cn('cn1', '0'), oldObject: cn('cn1') }, stored));
    it('does not apply the mgmt rules: an MTU change with a VMI on its NAD is admitted when the VlanConfigs agree', () =>
      validateCn({ operation: 'UPDATE', object: cn('cn1', '1500'), oldObject: cn('cn1', '9000') }, { ...stored, nads: [nad('test', 'n1', 'cn1')], vmis: [vmi('test', 'a', 'test/n1', 'node0')] }));
    it('lets an update of a cluster network being deleted through (C5)', () =>
      validateCn({ operation: 'UPDATE', object: deleting(cn('cn1', '9000')), oldObject: deleting(cn('cn1')) }, stored));
  });

  describe('update of mgmt (C4)', () => {
    const storage = nad('harvester-system', 'storagenetwork-vlan100', 'mgmt');
    it('admits an unchanged MTU (no annotation = 1500) while a storage network NAD is attached', () =>
      validateCn({ operation: 'UPDATE', object: cn('mgmt', '1500'), oldObject: cn('mgmt') }, { nads: [storage] }));
    it('refuses an MTU change while a storage network NAD is attached, naming the NAD by name only (as upstream)', () =>
      assert.equal(
        denial(() => validateCn({ operation: 'UPDATE', object: cn('mgmt', '9000'), oldObject: cn('mgmt') }, { nads: [storage] })),
        "can't update cluster network mgmt because the MTU can't be changed from 1500 to 9000 as nad storagenetwork-vlan100 is still attached",
      ));
    it('refuses an MTU change while VMIs use its NADs, listing exactly those VMIs', () => {
      const stored = {
        nads: [nad('test', 'n1', 'mgmt'), nad('test', 'other', 'cn1')],
        vmis: [vmi('test', 'a', 'test/n1', 'node0'), vmi('test', 'b', 'n1', 'node1'), vmi('test', 'c', 'test/other', 'node0')],
      };
      assert.equal(
        denial(() => validateCn({ operation: 'UPDATE', object: cn('mgmt', '9000'), oldObject: cn('mgmt', '2000') }, stored)),
        "can't update cluster network mgmt because the MTU can't be changed from 2000 to 9000 as following VMs must be stopped at first: test/a, test/b",
      );
    });
    it('admits an MTU change when the only VMI uses another network', () =>
      validateCn({ operation: 'UPDATE', object: cn('mgmt', '9000'), oldObject: cn('mgmt') }, { nads: [nad('test', 'n1', 'mgmt'), nad('test', 'other', 'cn1')], vmis: [vmi('test', 'c', 'test/other', 'node0')] }));
  });

  describe('delete (C6-C8)', () => {
    it('refuses deleting mgmt', () => assert.equal(denial(() => validateCn({ operation: 'DELETE', oldObject: cn('mgmt') })), "can't delete cluster network mgmt because it is not allowed"));
    it('refuses while VlanConfigs are labelled with it, listing them Go-style ([a b])', () =>
      assert.equal(
        denial(() => validateCn({ operation: 'DELETE', oldObject: cn('cn1') }, { vcs: [vc('vc1', 'cn1'), vc('vc2', 'cn1'), vc('vc3', 'cn2')] })),
        "can't delete cluster network cn1 because vlanconfig(s) [vc1 vc2] under this clusternetwork are still existing",
      ));
    it('still refuses a repeated delete of a cluster network already being deleted (no C5 on delete)', () =>
      assert.equal(
        denial(() => validateCn({ operation: 'DELETE', oldObject: deleting(cn('cn1')) }, { vcs: [vc('vc1', 'cn1')] })),
        "can't delete cluster network cn1 because vlanconfig(s) [vc1] under this clusternetwork are still existing",
      ));
    it('refuses while NADs are labelled with it, listing them as ns/name joined by ", "', () =>
      assert.equal(
        denial(() => validateCn({ operation: 'DELETE', oldObject: cn('cn1') }, { nads: [nad('test', 'a', 'cn1'), nad('default', 'b', 'cn1'), nad('test', 'c', 'cn2')] })),
        "can't delete cluster network cn1 because nads(s) test/a, default/b under this clusternetwork are still existing",
      ));
    it('admits deleting a cluster network nothing refers to', () => validateCn({ operation: 'DELETE', oldObject: cn('cn1') }, { vcs: [vc('vc3', 'cn2')], nads: [nad('test', 'c', 'cn2')] }));
  });
});

describe('network webhook: VlanConfig mutator, called directly', () => {
  const nodes = [node('node0', { rack: 'a' }), node('node1', { rack: 'a' }), node('witness', { rack: 'a', 'node-role.harvesterhci.io/witness': 'true' })];
  it('labels a new VlanConfig with its cluster network and records the matched hosts (witness excluded)', () => {
    const out = mutateVc({ operation: 'CREATE', object: vc('v', 'cn1', { label: null, nodeSelector: { rack: 'a' } }) }, { nodes });
    assert.deepEqual(out.metadata.labels, { [CN_LABEL]: 'cn1' });
    assert.deepEqual(out.metadata.annotations, { [MATCHED]: '["node0","node1"]' });
  });
  it('relabels a VlanConfig moved to another cluster network', () => {
    const out = mutateVc({ operation: 'UPDATE', object: vc('v', 'cn2', { label: 'cn1' }), oldObject: vc('v', 'cn1') });
    assert.deepEqual(out.metadata.labels, { [CN_LABEL]: 'cn2' });
  });
  it('leaves the label alone when the cluster network does not change', () => {
    const out = mutateVc({ operation: 'UPDATE', object: vc('v', 'cn1', { label: 'other' }), oldObject: vc('v', 'cn1') });
    assert.deepEqual(out.metadata.labels, { [CN_LABEL]: 'other' });
  });
  it('touches neither label nor annotation of a mgmt VlanConfig', () => {
    const out = mutateVc({ operation: 'CREATE', object: vc('m', 'mgmt', { label: null, nodeSelector: { rack: 'a' } }), user: CONTROLLER }, { nodes });
    assert.equal(out.metadata.labels, undefined);
    assert.equal(out.metadata.annotations, undefined);
  });
});
