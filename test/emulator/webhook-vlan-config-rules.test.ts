/**
 * The VlanConfig validator of the network webhook, called directly: exact outcomes and messages
 * (harvester/network-controller-harvester pkg/webhook/vlanconfig/validator.go; docs/design/harvester-networks.md
 * §"VlanConfig rules"). Which hosts an update takes away (VC9, VC10) follows upstream's getAffectedNodes.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { CONTROLLER, cn, deleting, denial, nad, validateVc, vc, vmi } from './cluster-network-webhook-support';

const cns = [cn('mgmt'), cn('cn1'), cn('cn2')];

describe('network webhook: VlanConfig validator (VC1-VC8), called directly', () => {
  describe('mgmt (VC1)', () => {
    const m = vc('m', 'mgmt', { label: null });
    it("refuses a user's create, update and delete, each with its own verb", () => {
      assert.equal(denial(() => validateVc({ operation: 'CREATE', object: m, user: 'system:admin' }, { cns })), "can't create vlanConfig m because users can't create vlanConfig for mgmt cluster network");
      assert.equal(denial(() => validateVc({ operation: 'UPDATE', object: m, oldObject: m, user: 'system:admin' }, { cns })), "can't update vlanConfig m because users can't update vlanConfig for mgmt cluster network");
      assert.equal(denial(() => validateVc({ operation: 'DELETE', oldObject: m, user: 'system:admin' }, { cns })), "can't delete vlanConfig m because users can't delete vlanConfig for mgmt cluster network");
    });
    it('admits the network controller, and in-process writes without a user, creating it without the label', () => {
      validateVc({ operation: 'CREATE', object: m, user: CONTROLLER }, { cns });
      validateVc({ operation: 'CREATE', object: m }, { cns });
    });
    it('does not check the MTU of a mgmt VlanConfig (VC5, VC6 are for other networks)', () =>
      validateVc({ operation: 'CREATE', object: vc('m', 'mgmt', { mtu: 100 }), user: CONTROLLER }, { cns, vcs: [vc('m0', 'mgmt', { mtu: 1500 })] }));
    it("admits a user's VlanConfig on another cluster network", () => validateVc({ operation: 'CREATE', object: vc('v', 'cn1'), user: 'system:admin' }, { cns }));
  });

  describe('cluster network name and existence (VC2, VC4)', () => {
    it('refuses creating one on a cluster network name longer than 12 (before looking it up)', () =>
      assert.equal(
        denial(() => validateVc({ operation: 'CREATE', object: vc('v', 'abcdefghijklm') }, { cns })),
        "can't create vlanConfig v because the length of the clusterNetwork name abcdefghijklm is more than 12",
      ));
    it('on update only looks the cluster network up (no name length check)', () =>
      assert.equal(
        denial(() => validateVc({ operation: 'UPDATE', object: vc('v', 'abcdefghijklm'), oldObject: vc('v', 'cn1') }, { cns })),
        'can\'t update vlanConfig v because it refers to a none-existing cluster network abcdefghijklm or error clusternetwork.network.harvesterhci.io "abcdefghijklm" not found',
      ));
    it('does not look the cluster network up on delete', () => validateVc({ operation: 'DELETE', oldObject: vc('v', 'gone', { matched: ['node0'] }) }, { cns }));
  });

  describe('the clusternetwork label (VC3)', () => {
    it('refuses an update whose label differs from the spec, naming the label', () =>
      assert.equal(
        denial(() => validateVc({ operation: 'UPDATE', object: vc('v', 'cn1', { label: 'cn2' }), oldObject: vc('v', 'cn1') }, { cns })),
        "can't update vlanConfig v because cluster network label cn2 is invalid and must not be updated by user",
      ));
    it('refuses an update without the label, naming an empty label', () =>
      assert.equal(
        denial(() => validateVc({ operation: 'UPDATE', object: vc('v', 'cn1', { label: null }), oldObject: vc('v', 'cn1') }, { cns })),
        "can't update vlanConfig v because cluster network label  is invalid and must not be updated by user",
      ));
    it('admits an update whose label matches the spec', () => validateVc({ operation: 'UPDATE', object: vc('v', 'cn1'), oldObject: vc('v', 'cn1') }, { cns, vcs: [vc('v', 'cn1')] }));
    it('lets an update of a VlanConfig being deleted through (VC11)', () =>
      validateVc({ operation: 'UPDATE', object: deleting(vc('v', 'cn1', { label: 'cn2' })), oldObject: deleting(vc('v', 'cn1')) }, { cns }));
  });

  describe('MTU (VC5, VC6)', () => {
    it('admits the lower bound 576', () => validateVc({ operation: 'CREATE', object: vc('v', 'cn1', { mtu: 576 }) }, { cns }));
    it('refuses 575 with the range', () =>
      assert.equal(denial(() => validateVc({ operation: 'CREATE', object: vc('v', 'cn1', { mtu: 575 }) }, { cns })), "can't create vlanConfig v because the MTU 575 is out of range [0, 576..9000]"));
    it('admits changing its own MTU when it is the only VlanConfig of the cluster network', () =>
      validateVc({ operation: 'UPDATE', object: vc('v', 'cn1', { mtu: 9000 }), oldObject: vc('v', 'cn1') }, { cns, vcs: [vc('v', 'cn1')] }));
    it("admits an MTU equal to another VlanConfig's non-default MTU", () =>
      validateVc({ operation: 'CREATE', object: vc('v', 'cn1', { mtu: 9000 }) }, { cns, vcs: [vc('other', 'cn1', { mtu: 9000 })] }));
    it("refuses an MTU different from another VlanConfig's, naming both", () =>
      assert.equal(
        denial(() => validateVc({ operation: 'CREATE', object: vc('v', 'cn1', { mtu: 1500 }) }, { cns, vcs: [vc('other', 'cn1', { mtu: 9000 })] })),
        "can't create vlanConfig v because the vlanconfig v MTU 1500 is different with another vlanconfig other MTU 9000, all vlanconfigs on one clusternetwork need to have same MTU",
      ));
  });

  describe('overlapping hosts (VC8)', () => {
    it('admits an update keeping its own matched hosts', () =>
      validateVc({ operation: 'UPDATE', object: vc('v', 'cn1', { matched: ['node0'] }), oldObject: vc('v', 'cn1', { matched: ['node0'] }) }, { cns, vcs: [vc('v', 'cn1', { matched: ['node0'] })] }));
    it('admits hosts that no other VlanConfig of the cluster network has', () =>
      validateVc({ operation: 'CREATE', object: vc('v', 'cn1', { matched: ['node0'] }) }, { cns, vcs: [vc('other', 'cn1', { matched: ['node1'] }), vc('x', 'cn2', { matched: ['node0'] })] }));
    it('refuses shared hosts, listing each once, sorted, Go-style', () =>
      assert.equal(
        denial(() => validateVc({ operation: 'CREATE', object: vc('v', 'cn1', { matched: ['node1', 'node2'] }) }, { cns, vcs: [vc('a', 'cn1', { matched: ['node2', 'node1', 'node0'] }), vc('b', 'cn1', { matched: ['node2'] })] })),
        "can't create vlanConfig v because it overlaps with other vlanconfigs matching node(s) [node1 node2]",
      ));
  });
});

describe('network webhook: VlanConfig hosts taken away (VC9, VC10), called directly', () => {
  const nads = [nad('test', 'n1', 'cn1'), nad('test', 'n2', 'cn2')];
  const onN1 = (name: string, nodeName?: string) => vmi('test', name, 'test/n1', nodeName);
  const update = (object: KubeObject, oldObject: KubeObject, vmis: KubeObject[]) => () =>
    validateVc({ operation: 'UPDATE', object, oldObject }, { cns, nads, vmis, vcs: [oldObject] });

  it('refuses deleting it under VMIs on its hosts, listing only those (", ")', () =>
    assert.equal(
      denial(() => validateVc({ operation: 'DELETE', oldObject: vc('v', 'cn1', { matched: ['node0', 'node1'] }) }, {
        cns, nads, vmis: [onN1('a', 'node0'), onN1('b', 'node2'), onN1('c', 'node1'), vmi('test', 'd', 'test/n2', 'node0')],
      })),
      "can't delete vlanConfig v because it is blocked by VM(s) test/a, test/c which must be stopped at first",
    ));
  it('refuses deleting it under a VMI not yet scheduled when the matched hosts name "" (Go compares the empty nodeName)', () =>
    assert.equal(
      denial(() => validateVc({ operation: 'DELETE', oldObject: vc('v', 'cn1', { matched: [''] }) }, { cns, nads, vmis: [onN1('a')] })),
      "can't delete vlanConfig v because it is blocked by VM(s) test/a which must be stopped at first",
    ));
  it('refuses deleting one being deleted too (no VC11 on delete)', () =>
    assert.equal(
      denial(() => validateVc({ operation: 'DELETE', oldObject: deleting(vc('v', 'cn1', { matched: ['node0'] })) }, { cns, nads, vmis: [onN1('a', 'node0')] })),
      "can't delete vlanConfig v because it is blocked by VM(s) test/a which must be stopped at first",
    ));
  it('refuses deleting it while a storage network NAD is on its cluster network, naming the NAD by name only', () =>
    assert.equal(
      denial(() => validateVc({ operation: 'DELETE', oldObject: vc('v', 'cn1', { matched: ['node0'] }) }, { cns, nads: [nad('harvester-system', 'storagenetwork-vlan100', 'cn1')] })),
      "can't delete vlanConfig v because the system network nad storagenetwork-vlan100 is still attached",
    ));
  it('admits deleting one without matched hosts even while a storage network NAD is attached', () =>
    validateVc({ operation: 'DELETE', oldObject: vc('v', 'cn1') }, { cns, nads: [nad('harvester-system', 'storagenetwork-vlan100', 'cn1')], vmis: [onN1('a', 'node0')] }));

  it('admits an update that keeps the hosts, cluster network and uplink, under a running VMI', () =>
    update(vc('v', 'cn1', { matched: ['node0'], nodeSelector: { rack: 'b' } }), vc('v', 'cn1', { matched: ['node0'] }), [onN1('a', 'node0')])());
  it('admits a nodeSelector change that drops only hosts without VMIs', () =>
    update(vc('v', 'cn1', { matched: ['node0'] }), vc('v', 'cn1', { matched: ['node0', 'node1'] }), [onN1('a', 'node0')])());
  it('refuses a nodeSelector change that drops a host with a VMI', () =>
    assert.equal(
      denial(update(vc('v', 'cn1', { matched: ['node0'] }), vc('v', 'cn1', { matched: ['node0', 'node1'] }), [onN1('a', 'node0'), onN1('b', 'node1')])),
      "can't update vlanConfig v because it is blocked by VM(s) test/b which must be stopped at first",
    ));
  it('refuses an uplink change (all old hosts are affected)', () =>
    assert.equal(
      denial(update(vc('v', 'cn1', { matched: ['node0'], mtu: 9000 }), vc('v', 'cn1', { matched: ['node0'] }), [onN1('a', 'node0')])),
      "can't update vlanConfig v because it is blocked by VM(s) test/a which must be stopped at first",
    ));
  it('refuses moving it to another cluster network under a VMI on the old one', () =>
    assert.equal(
      denial(update(vc('v', 'cn2', { matched: ['node0'] }), vc('v', 'cn1', { matched: ['node0'] }), [onN1('a', 'node0')])),
      "can't update vlanConfig v because it is blocked by VM(s) test/a which must be stopped at first",
    ));
  it('admits moving it when only the new cluster network has a VMI', () =>
    update(vc('v', 'cn2', { matched: ['node0'] }), vc('v', 'cn1', { matched: ['node0'] }), [vmi('test', 'd', 'test/n2', 'node0')])());
});
