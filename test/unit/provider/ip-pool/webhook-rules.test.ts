/**
 * The provider's check against upstream's IPPool rules: the table the emulator's webhook and allocator run too
 * (test/support/ippool-rules.ts), with the same outcome — refused on the field, or accepted with the number of
 * addresses the pool hands out.
 */
import assert from 'node:assert/strict';
import type { IPPool } from '../../../../provider/client/objects';
import { conflictsWithOthers } from '../../../../provider/resources/ip-pool/conflicts';
import { allocatorRange, usableCount } from '../../../../provider/resources/ip-pool/ranges';
import { validateInputs } from '../../../../provider/resources/ip-pool/validate';
import { IPPOOL_RULE_CASES } from '../../../support/ippool-rules';

describe('HarvesterIPPool check: upstream\'s webhook and allocator rules, as the emulator applies them', () => {
  for (const c of IPPOOL_RULE_CASES) {
    it(`${c.refused ? 'refuses' : 'accepts'} ${c.label}`, () => {
      const others: IPPool[] = (c.existing ?? []).map((e) => ({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: e.name }, spec: e.spec }));
      const v = validateInputs({ name: 'p', ...c.args });
      const failures = [...v.failures, ...(v.inputs ? conflictsWithOthers(v.inputs, others) : [])];
      if (c.refused) {
        assert.deepEqual(failures.map((f) => f.property), [c.refused.property], JSON.stringify(failures));
        return;
      }
      assert.deepEqual(failures, []);
      const total = v.inputs!.ranges.reduce((sum, r) => sum + usableCount(allocatorRange(r)!), 0);
      assert.equal(total, c.accepted!.total);
    });
  }
});
