import assert from 'node:assert/strict';
import { z } from 'zod';
import { inputReferences, inputVariants } from '../../../../provider/core/input-flags';
import { diffPaths } from '../../../../provider/core/prune';
import { timeoutMs } from '../../../../provider/core/timeouts';
import { UNKNOWN } from '../../../../provider/core/unknowns';
import { validateWithModel, withDefaultsAroundUnknowns } from '../../../../provider/core/validate-model';

describe('input flags read back from the model (input-flags.ts)', () => {
  it('finds references at the top level, inside lists and inside objects, and nowhere else', () => {
    const schema = z.object({
      name: z.string(),
      count: z.number().default(1),
      ipPool: z.string().meta({ references: 'HarvesterIPPool' }).optional(),
      sshKeys: z.array(z.string().meta({ references: 'HarvesterKeyPair' })).default([]),
      disks: z.array(z.object({ size: z.string(), image: z.string().meta({ references: 'HarvesterImage' }).optional() })),
      tags: z.array(z.string()),
    });
    assert.deepEqual(inputReferences(schema), { ipPool: 'HarvesterIPPool', 'sshKeys[]': 'HarvesterKeyPair', 'disks[].image': 'HarvesterImage' });
  });

  const variantModel = (discriminator: z.ZodType) =>
    z.object({
      workloadType: discriminator,
      name: z.string(),
      selector: z.string().meta({ variant: 'vm', required: true }),
      guestKubeconfig: z.string().meta({ variant: 'cluster', required: true }),
      guestNamespace: z.string().meta({ variant: 'cluster' }),
    });

  it('reads the variants of a model: each value, its own inputs, those it needs, and the default', () => {
    assert.deepEqual(inputVariants(variantModel(z.enum(['vm', 'cluster']).default('vm').meta({ discriminator: true }))), {
      discriminator: 'workloadType',
      defaultValue: 'vm',
      variants: { vm: { only: ['selector'], required: ['selector'] }, cluster: { only: ['guestKubeconfig', 'guestNamespace'], required: ['guestKubeconfig'] } },
    });
    assert.equal(inputVariants(variantModel(z.enum(['vm', 'cluster']).meta({ discriminator: true })))!.defaultValue, undefined, 'no default: none');
  });

  it('has no variants when no input belongs to one, or none chooses', () => {
    assert.equal(inputVariants(z.object({ workloadType: z.string().meta({ discriminator: true }), name: z.string() })), undefined);
    assert.equal(inputVariants(z.object({ name: z.string() })), undefined);
  });
});

describe('pure validation with the model (validate-model.ts)', () => {
  const model = z.strictObject({
    name: z.string(),
    replicas: z.number().default(1),
    tags: z.array(z.string()).default([]),
    token: z.string().optional(),
  });

  it('ignores the engine\'s "__" keys', () => {
    const v = validateWithModel(model, { name: 'a', __defaults: ['replicas'] }, { secretInputs: [] });
    assert.deepEqual(v.failures, []);
    assert.deepEqual(v.inputs, { name: 'a', replicas: 1, tags: [] });
  });

  it('hides a secret input\'s value and hints at the name meant', () => {
    const v = validateWithModel(model, { name: 'a', token: 42, replica: 2 }, { secretInputs: ['token'] });
    assert.deepEqual(v.failures, [
      { property: 'token', reason: 'is invalid (value not shown: it is secret)' },
      { property: 'replica', reason: 'unknown property; did you mean "replicas"?' },
    ]);
  });

  it('applies defaults around unknown top-level inputs only, and gives up on deeper unknowns or invalid known inputs', () => {
    assert.deepEqual(withDefaultsAroundUnknowns(model, { name: UNKNOWN }), { name: UNKNOWN, replicas: 1, tags: [] });
    assert.equal(withDefaultsAroundUnknowns(model, { name: 'a', tags: ['x', UNKNOWN] }), undefined, 'an unknown inside a list');
    assert.equal(withDefaultsAroundUnknowns(model, { name: UNKNOWN, replicas: 'two' }), undefined, 'a known input the model refuses');
  });
});

describe('drift: what differs between desired and live (prune.ts)', () => {
  it('counts an empty object or list on one side and nothing on the other as equal, on either side', () => {
    assert.deepEqual(diffPaths({}, { labels: {} }), []);
    assert.deepEqual(diffPaths({}, { tags: [] }), []);
    assert.deepEqual(diffPaths({ labels: {} }, {}), []);
    assert.deepEqual(diffPaths({ tags: [] }, {}), []);
  });

  it('reports a value present on one side only', () => {
    assert.deepEqual(diffPaths({}, { tags: ['a'] }), [{ path: 'tags', desired: undefined, live: ['a'] }]);
    assert.deepEqual(diffPaths({ labels: { a: '1' } }, {}), [{ path: 'labels', desired: { a: '1' }, live: undefined }]);
    assert.deepEqual(diffPaths({ replicas: 2 }, {}), [{ path: 'replicas', desired: 2, live: undefined }]);
    assert.deepEqual(diffPaths({}, { replicas: 2 }), [{ path: 'replicas', desired: undefined, live: 2 }]);
  });
});

describe('timeouts (timeouts.ts)', () => {
  it('turns a duration into milliseconds and names the timeout of a text that is none', () => {
    const timeouts = { create: '1m30s', update: '10m', delete: 'soon' };
    assert.equal(timeoutMs(timeouts, 'create'), 90_000);
    assert.throws(() => timeoutMs(timeouts, 'delete'), { message: 'timeouts.delete: "soon" is not a duration (the model admits only durations)' });
  });
});
