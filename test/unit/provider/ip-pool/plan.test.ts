import assert from 'node:assert/strict';
import type { IPPool } from '../../../../provider/client/objects';
import { desiredPool, driftOf, liveInputs, poolReadiness, toOutputs } from '../../../../provider/resources/ip-pool/plan';
import { ipPoolResource } from '../../../../provider/resources/ip-pool/handlers';
import { diffOf } from '../../../../provider/core/reconciler/reconciler';
import { validateInputs } from '../../../../provider/resources/ip-pool/validate';

describe('HarvesterIPPool: plan', () => {
  const diffInputs = diffOf(ipPoolResource);
  const inputs = validateInputs({ name: 'p', description: 'd', ranges: [{ subnet: '10.0.0.0/24' }], selector: { network: 'default/vm-net', scope: [{ namespace: 'ns' }] } }).inputs!;

  it('builds the object with ownership labels and the spec only', () => {
    const pool = desiredPool(inputs);
    assert.equal(pool.metadata.labels!['app.kubernetes.io/managed-by'], 'harvester-iac');
    assert.deepEqual(pool.spec, { ranges: [{ subnet: '10.0.0.0/24' }], selector: { priority: 0, scope: [{ project: '*', namespace: 'ns', guestCluster: '*' }], network: 'default/vm-net' }, description: 'd' });
    assert.equal(pool.status, undefined);
  });

  it('reports an out-of-band edit as drift per field, and nothing for what it wrote', () => {
    const live = { ...desiredPool(inputs), status: { allocated: { '10.0.0.2': 'default/lb' } } };
    assert.deepEqual(driftOf(inputs, live), []);
    const edited = { ...live, spec: { ...live.spec, ranges: [{ subnet: '10.0.0.0/24', rangeEnd: '10.0.0.99' }] } };
    assert.deepEqual(driftOf(inputs, edited).length, 1);
    assert.match(driftOf(inputs, edited)[0], /IPPool p: ranges is/);
  });

  it('replaces only on a name change; a range change updates in place', () => {
    const outs = { ...inputs, drift: [] as string[] };
    assert.deepEqual(diffInputs(outs, { ...inputs, name: 'q' }).replaces, ['name']);
    const d = diffInputs(outs, { ...inputs, ranges: [{ subnet: '10.0.1.0/24' }] });
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, []);
    assert.equal(diffInputs(outs, inputs).changes, false);
    assert.equal(diffInputs(inputs, inputs).changes, false, 'state recorded before drift was an output has none');
    assert.equal(diffInputs({ ...outs, drift: ['IPPool p: ranges is …'] }, inputs).changes, true, 'drift alone is a change');
  });

  it('a drift line says "unset" for a field only one side has', () => {
    const live = desiredPool(inputs);
    const noDescription: IPPool = { ...live, spec: { ...live.spec, description: undefined } };
    assert.deepEqual(driftOf(inputs, noDescription), ['IPPool p: description is unset, this resource set "d"']);
    const { description: _, ...without } = inputs;
    assert.deepEqual(driftOf(without, live), ['IPPool p: description is "d", this resource set unset']);
  });

  it('reads a live scope with fields left out as "*" in each, the inputs\' own shape', () => {
    const live: IPPool = { ...desiredPool(inputs), spec: { ranges: [{ subnet: '10.0.0.0/24' }], selector: { scope: [{ namespace: 'ns' }, {}] } } };
    assert.deepEqual(liveInputs(live).selector, {
      priority: 0,
      scope: [{ project: '*', namespace: 'ns', guestCluster: '*' }, { project: '*', namespace: '*', guestCluster: '*' }],
    });
  });

  it('drift found by the last read is a change even when the inputs are the same', () => {
    assert.equal(diffInputs({ ...inputs, drift: ['IPPool p: ranges is …'] }, inputs).changes, true);
  });

  it('outputs the Ready message, or that no controller reconciled the pool yet', () => {
    const withReady = (status: string, message?: string): IPPool => ({ ...desiredPool(inputs), status: { conditions: [{ type: 'Ready', status, message }] } });
    assert.deepEqual([toOutputs(inputs, withReady('True')).ready, toOutputs(inputs, withReady('True')).message], [true, '']);
    assert.equal(toOutputs(inputs, withReady('False', 'range overlaps')).message, 'range overlaps');
    const fresh = toOutputs(inputs, desiredPool(inputs));
    assert.deepEqual([fresh.ready, fresh.message, fresh.total, fresh.available, fresh.allocated, fresh.drift], [false, 'not reconciled yet', 0, 0, {}, []]);
  });

  it('the wait is done at Ready=True; until then it says what it waits for, which a timeout names', () => {
    const pool = (conditions?: { type: string; status: string; message?: string }[]): IPPool => ({ ...desiredPool(inputs), status: conditions ? { conditions } : undefined });
    assert.deepEqual(poolReadiness('p', pool([{ type: 'Ready', status: 'True' }])), { done: true, description: 'IPPool p is Ready' });
    assert.deepEqual(poolReadiness('p', pool([{ type: 'Ready', status: 'False', message: 'no usable range' }])), {
      done: false,
      description: 'IPPool p: no usable range',
      pending: ['no usable range'],
    });
    const waiting = { done: false, description: 'IPPool p: waiting for the IPPool controller', pending: ['Ready condition'] };
    assert.deepEqual(poolReadiness('p', pool()), waiting);
    assert.deepEqual(poolReadiness('p', undefined), waiting);
  });
});
