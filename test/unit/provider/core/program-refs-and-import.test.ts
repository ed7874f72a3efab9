import assert from 'node:assert/strict';
import { z } from 'zod';
import { inputReferences } from '../../../../provider/core/input-flags';
import { PROGRAM_REFS_KEY, declaredInProgram, isDeclared } from '../../../../provider/core/program-refs';
import { machinePoolSchema } from '../../../../provider/resources/machine-pool/model';
import { loadBalancerSchema } from '../../../../provider/resources/load-balancer/model';
import { changedKeys, withoutUnrecorded } from '../../../../provider/core/imported';

describe('provider/core: references to objects of the same program', () => {
  it('reads the referenced class from the model, through optional and described wrappers', () => {
    const model = z.object({ pool: z.string().optional().meta({ references: 'HarvesterIPPool' }).describe('a pool'), other: z.string() });
    assert.deepEqual(inputReferences(model), { pool: 'HarvesterIPPool' });
    assert.deepEqual(inputReferences(loadBalancerSchema), { ipPool: 'HarvesterIPPool' });
  });

  it('finds references nested in objects and lists, as paths with [] for list elements', () => {
    assert.deepEqual(inputReferences(machinePoolSchema), {
      'disks[].image': 'HarvesterImage',
      'networks[].network': 'HarvesterNetwork',
      'sshKeys[]': 'HarvesterKeyPair',
    });
  });

  it('counts a reference as declared when it, or the list or element holding it, is marked', () => {
    const marked = new Set(['sshKeys', 'disks[1]', 'networks[0].network', 'ipPool']);
    for (const path of ['sshKeys[3]', 'sshKeys', 'disks[1].image', 'networks[0].network', 'ipPool']) assert.equal(isDeclared(marked, path), true, path);
    for (const path of ['disks[0].image', 'disks[10].image', 'networks[1].network', 'ipPoolX', 'sshKeysX[0]']) assert.equal(isDeclared(marked, path), false, path);
  });

  it('takes only a list of strings from the hidden input, and nothing from its absence', () => {
    assert.deepEqual([...declaredInProgram({ [PROGRAM_REFS_KEY]: ['ipPool', 3, null] })], ['ipPool']);
    assert.deepEqual([...declaredInProgram({ [PROGRAM_REFS_KEY]: 'ipPool' })], []);
    assert.deepEqual([...declaredInProgram({})], []);
    assert.deepEqual([...declaredInProgram(undefined)], []);
  });
});

describe('provider/core: what an import cannot read back', () => {
  it('leaves the inputs the cluster does not record out of an import\'s state', () => {
    assert.deepEqual(withoutUnrecorded({ name: 'a', timeouts: { create: '1m' } }), { name: 'a' });
  });

  it('takes the program\'s value for an input the state lacks because the cluster does not record it, and compares the rest', () => {
    const keys = ['name', 'timeouts', 'description'] as const;
    assert.deepEqual(changedKeys({ name: 'a' }, { name: 'a', timeouts: { create: '9m' } }, keys), []);
    assert.deepEqual(changedKeys({ name: 'a', timeouts: { create: '1m' } }, { name: 'a', timeouts: { create: '9m' } }, keys), ['timeouts']);
    assert.deepEqual(changedKeys({ name: 'a' }, { name: 'a', description: 'new' }, keys), ['description'], 'a recorded input absent from the state is a change');
    assert.deepEqual(changedKeys({ name: 'a', description: 'x' }, { name: 'b', description: 'x' }, keys), ['name']);
  });
});
