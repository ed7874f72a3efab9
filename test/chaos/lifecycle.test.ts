/**
 * The chaos lifecycle (lifecycle.ts) for a few seeds within `npm test`; `npm run chaos -- --seeds N` runs more.
 */
import assert from 'node:assert/strict';
import { runChaos } from './lifecycle';

const SEEDS = (process.env.CHAOS_SEEDS ?? '1,2').split(',').map(Number);

describe('chaos: the whole lifecycle under API faults converges, leaving nothing behind and no secret anywhere', function () {
  this.timeout(180_000);
  for (const seed of SEEDS) {
    it(`seed ${seed}`, async () => {
      const r = await runChaos(seed);
      assert.equal(r.converged, true, `did not converge:\n${r.errors.slice(-3).join('\n')}`);
      assert.ok(r.faultsInjected > 0, 'faults were injected');
      assert.deepEqual(r.orphans, []);
      assert.deepEqual(r.secretsFound, []);
    });
  }
});
