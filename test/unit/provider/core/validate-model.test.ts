import assert from 'node:assert/strict';
import { validateInputs } from '../../../../provider/resources/load-balancer/validate';
import { diffInputs } from '../../../../provider/resources/load-balancer/plan';

const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

describe('check during preview: defaults applied around unknown inputs', () => {
  const args = { name: 'web', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], healthCheck: { port: 8080 } };

  it('fills every default of the known inputs and keeps the unknown one, even a required one', () => {
    const v = validateInputs({ ...args, backendServerSelector: UNKNOWN });
    assert.deepEqual(v.failures, []);
    assert.equal(v.inputs, undefined, 'not complete: the handlers never act on it');
    assert.equal(v.previewInputs!.ipam, 'pool');
    assert.equal(v.previewInputs!.namespace, 'default');
    assert.deepEqual(v.previewInputs!.healthCheck, { port: 8080, successThreshold: 2, failureThreshold: 2, periodSeconds: 1, timeoutSeconds: 1 });
    assert.equal(v.previewInputs!.backendServerSelector, UNKNOWN);
  });

  it('so an unknown selector is an update, never a replacement caused by defaults that seemed to vanish', () => {
    const known = validateInputs({ ...args, backendServerSelector: { app: ['web'] } }).inputs!;
    const preview = validateInputs({ ...args, backendServerSelector: UNKNOWN }).previewInputs!;
    const d = diffInputs({ ...known, drift: [] }, preview);
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, []);
  });

  it('gives up (raw inputs are used) when an unknown sits deeper than the top level', () => {
    assert.equal(validateInputs({ ...args, listeners: [{ name: 'http', port: UNKNOWN, backendPort: 8080 }], backendServerSelector: { a: ['b'] } }).previewInputs, undefined);
  });
});
