import assert from 'node:assert/strict';
import { z } from 'zod';
import { inputReferences } from '../../../../provider/core/input-flags';
import { PROGRAM_REFS_KEY, declaredInProgram } from '../../../../provider/core/program-refs';
import { loadBalancerSchema } from '../../../../provider/resources/load-balancer/model';

describe('provider/core: references to objects of the same program', () => {
  it('reads the referenced class from the model, through optional and described wrappers', () => {
    const model = z.object({ pool: z.string().optional().meta({ references: 'HarvesterIPPool' }).describe('a pool'), other: z.string() });
    assert.deepEqual(inputReferences(model), { pool: 'HarvesterIPPool' });
    assert.deepEqual(inputReferences(loadBalancerSchema), { ipPool: 'HarvesterIPPool' });
  });

  it('takes only a list of strings from the hidden input, and nothing from its absence', () => {
    assert.deepEqual([...declaredInProgram({ [PROGRAM_REFS_KEY]: ['ipPool', 3, null] })], ['ipPool']);
    assert.deepEqual([...declaredInProgram({ [PROGRAM_REFS_KEY]: 'ipPool' })], []);
    assert.deepEqual([...declaredInProgram({})], []);
    assert.deepEqual([...declaredInProgram(undefined)], []);
  });
});
