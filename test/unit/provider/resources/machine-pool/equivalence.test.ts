import assert from 'node:assert/strict';
import { sameInput } from '../../../../../provider/resources/machine-pool/equivalence';

// [description, key, a, b, equivalent]; each pair is also checked the other way round, since defaults are
// filled on both sides and a wrong default on one side only shows in one order.
const CASES: [string, string, unknown, unknown, boolean][] = [
  ['blank disks of one size', 'disks', [{ size: '10Gi' }], [{ size: '10240Mi' }], true],
  ['a blank disk is not an image disk', 'disks', [{ size: '10Gi' }], [{ size: '10Gi', image: 'img' }], false],
  ['image qualified or not', 'disks', [{ size: '10Gi', image: 'img' }], [{ size: '10Gi', image: 'default/img' }], true],
  ['different images', 'disks', [{ size: '10Gi', image: 'img' }], [{ size: '10Gi', image: 'other' }], false],
  ['same storage class', 'disks', [{ size: '10Gi', storageClass: 'fast' }], [{ size: '10Gi', storageClass: 'fast' }], true],
  ['storage class set on one side only', 'disks', [{ size: '10Gi', storageClass: 'fast' }], [{ size: '10Gi' }], false],
  ['different storage classes', 'disks', [{ size: '10Gi', storageClass: 'fast' }], [{ size: '10Gi', storageClass: 'slow' }], false],
  ['bus left out is virtio', 'disks', [{ size: '10Gi' }], [{ size: '10Gi', bus: 'virtio' }], true],
  ['bus left out is not scsi', 'disks', [{ size: '10Gi' }], [{ size: '10Gi', bus: 'scsi' }], false],
  ['different sizes', 'disks', [{ size: '10Gi' }], [{ size: '20Gi' }], false],
  ['network qualified, defaults spelt out', 'networks', [{ network: 'vm-net' }], [{ network: 'default/vm-net', model: 'virtio', type: 'bridge' }], true],
  ['model left out is not e1000', 'networks', [{ network: 'vm-net' }], [{ network: 'vm-net', model: 'e1000' }], false],
  ['type left out is not masquerade', 'networks', [{ network: 'vm-net' }], [{ network: 'vm-net', type: 'masquerade' }], false],
  ['different networks', 'networks', [{ network: 'vm-net' }], [{ network: 'other/vm-net' }], false],
  ['ssh keys qualified', 'sshKeys', ['ops'], ['default/ops'], true],
  ['no ssh keys is the empty default', 'sshKeys', undefined, [], true],
  ['memory by value', 'memory', '4Gi', '4096Mi', true],
  ['maps by content', 'labels', { a: '1', b: '2' }, { b: '2', a: '1' }, true],
];

describe('machine-pool input equivalence', () => {
  for (const [name, key, a, b, want] of CASES) {
    it(`${key}: ${name} → ${want ? 'same' : 'different'}`, () => {
      assert.equal(sameInput(key, a, b, 'default'), want);
      assert.equal(sameInput(key, b, a, 'default'), want);
    });
  }
});
