import assert from 'node:assert/strict';
import { z } from 'zod';
import { describeValue, inputErrorMap, issuesToFailures, sameUserInputs, schemaKeys, unchangedReferencesDropped } from '../../../../provider/core/input-errors';

/** The reason check gives for `value` against `schema` (the one issue's message, through inputErrorMap). */
function reason(schema: z.ZodType, value: unknown): string {
  const parsed = schema.safeParse(value, { error: inputErrorMap });
  assert.equal(parsed.success, false, `${JSON.stringify(value)} should be refused`);
  assert.equal(parsed.error!.issues.length, 1);
  return parsed.error!.issues[0].message;
}

describe('input errors: what is wrong, with the observed value (input-errors.ts)', () => {
  it('names the observed value without echoing long or multi-line strings', () => {
    assert.equal(describeValue(null), 'null');
    assert.equal(describeValue('web'), '"web"');
    assert.equal(describeValue('a\nb'), 'a string of 3 characters');
    assert.equal(describeValue('x'.repeat(65)), 'a string of 65 characters');
    assert.equal(describeValue({ a: 1 }), 'an object');
  });

  it('says which type was expected and which was given', () => {
    assert.equal(reason(z.string(), { a: 1 }), 'must be a string (got an object)');
    assert.equal(reason(z.string(), null), 'must be a string (got null)');
    assert.equal(reason(z.number(), [1]), 'must be a number (got a list)');
  });

  it('counts items of a list too short or too long, in the right number', () => {
    assert.equal(reason(z.array(z.string()).min(1), []), 'needs at least 1 item (got 0)');
    assert.equal(reason(z.array(z.string()).min(2), ['a']), 'needs at least 2 items (got 1)');
    assert.equal(reason(z.array(z.string()).max(2), ['a', 'b', 'c']), 'allows at most 2 items (got 3)');
  });

  it('measures strings in characters', () => {
    assert.equal(reason(z.string().min(1), ''), 'must not be empty');
    assert.equal(reason(z.string().min(3), 'ab'), 'must be at least 3 characters long');
    assert.equal(reason(z.string().max(3), 'abcd'), 'must be at most 3 characters long (got 4)');
  });

  it('bounds numbers inclusively or not, as the model says', () => {
    assert.equal(reason(z.number().min(1), 0), 'must be at least 1 (got 0)');
    assert.equal(reason(z.number().gt(0), 0), 'must be greater than 0 (got 0)');
    assert.equal(reason(z.number().max(8), 9), 'must be at most 8 (got 9)');
    assert.equal(reason(z.number().lt(8), 8), 'must be less than 8 (got 8)');
  });

  it('says a value of the wrong format or of no accepted form is that', () => {
    assert.equal(reason(z.string().regex(/^[a-z]+$/), 'Web'), 'has an invalid format (got "Web")');
    assert.equal(reason(z.union([z.string(), z.array(z.string())]), 3), 'has an unsupported form (got a number (3))');
  });
});

describe('check failures from zod issues (input-errors.ts)', () => {
  const model = z.strictObject({
    name: z.string(),
    disks: z.array(z.strictObject({ size: z.string(), image: z.string().optional() })).optional(),
    labels: z.record(z.string(), z.strictObject({ value: z.string(), owner: z.string().optional() })).optional(),
    userData: z.string().optional(),
  });
  const failuresOf = (raw: Record<string, unknown>, options?: Parameters<typeof issuesToFailures>[2]) => {
    const parsed = model.safeParse(raw, { error: inputErrorMap });
    assert.equal(parsed.success, false);
    return issuesToFailures(parsed.error!.issues, raw, options);
  };

  it('knows the property names of objects inside lists and records, for "did you mean" hints', () => {
    const keys = schemaKeys(model);
    assert.deepEqual(keys([]), ['name', 'disks', 'labels', 'userData']);
    assert.deepEqual(keys(['disks', 0]), ['size', 'image']);
    assert.deepEqual(keys(['labels', 'team']), ['value', 'owner']);
    assert.deepEqual(keys(['name']), [], 'a string has no properties');
    assert.deepEqual(keys(['nope', 'deeper']), [], 'a path the model does not have');
    assert.deepEqual(failuresOf({ name: 'a', labels: { team: { value: 'x', ownr: 'y' } } }, { knownKeys: keys }), [
      { property: 'labels.team.ownr', reason: 'unknown property; did you mean "owner"?' },
    ]);
  });

  it('says "remove it" of an unknown property with no close name, listing the known ones only when it knows them', () => {
    assert.deepEqual(failuresOf({ name: 'a', zzz: 1 }), [{ property: 'zzz', reason: 'unknown property. Remove it' }]);
    assert.deepEqual(failuresOf({ name: 'a', zzz: 1 }, { knownKeys: schemaKeys(model) }), [
      { property: 'zzz', reason: 'unknown property. Remove it (known: name, disks, labels, userData)' },
    ]);
  });

  it('keeps the message of an input that is not secret, hides the value of one that is', () => {
    assert.deepEqual(failuresOf({ name: 3, userData: 4 }, { secretInputs: ['userData'] }), [
      { property: 'name', reason: 'must be a string (got a number (3))' },
      { property: 'userData', reason: 'is invalid (value not shown: it is secret)' },
    ]);
  });

  it('keeps a rule\'s own message on a secret input: the models\' refinements never quote the value', () => {
    const issue = { code: 'custom', path: ['userData'], message: 'must start with "#cloud-config"', input: 'secret-ish' } as unknown as z.core.$ZodIssue;
    assert.deepEqual(issuesToFailures([issue], { userData: 'secret-ish' }, { secretInputs: ['userData'] }), [{ property: 'userData', reason: 'must start with "#cloud-config"' }]);
  });

  it('reports one problem once', () => {
    const issue = { code: 'custom', path: ['name'], message: 'is taken', input: 'a' } as unknown as z.core.$ZodIssue;
    assert.deepEqual(issuesToFailures([issue, issue], { name: 'a' }), [{ property: 'name', reason: 'is taken' }]);
  });

  it('never calls a create "unchanged", even with no inputs besides the connection', () => {
    assert.equal(sameUserInputs({}, { kubeconfig: '/k.yaml' }), false);
    const failures = [{ property: 'sshKeys[0]', reason: 'KeyPair gone' }];
    assert.deepEqual(unchangedReferencesDropped(failures, { kubeconfig: '/k.yaml' }, { kubeconfig: '/k.yaml' }), failures);
  });
});
