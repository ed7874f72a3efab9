import assert from 'node:assert/strict';
import { ProviderError, ResourceInitError } from '../../../../provider/core/errors';
import { recordPartial, unfinishedLine, unfinishedLines } from '../../../../provider/core/partial';

describe('core/partial: a failure after the first write recorded with what exists', () => {
  const timeout = new ProviderError('WaitTimeout', 'Timed out after 1s waiting for X.');
  const failing = () => Promise.reject(timeout);

  it('the drift line names the operation, the object and the error code (else the error name), and is found again by read', () => {
    assert.equal(unfinishedLine('create', 'LoadBalancer default/two', timeout), 'the last create of LoadBalancer default/two did not finish (WaitTimeout); the next `pulumi up` resumes it');
    assert.equal(unfinishedLine('update', 'IPPool p', new TypeError('x')), 'the last update of IPPool p did not finish (TypeError); the next `pulumi up` resumes it');
    assert.equal(unfinishedLine('update', 'IPPool p', 'thrown text'), 'the last update of IPPool p did not finish (error); the next `pulumi up` resumes it');
    const line = unfinishedLine('create', 'IPPool p', timeout);
    assert.deepEqual(unfinishedLines(['IPPool p: description is "x", this resource set "y"', line]), [line]);
    assert.deepEqual(unfinishedLines(undefined), []);
  });

  it('returns the outputs of a successful apply, never observing', async () => {
    const outs = await recordPartial(async () => ({ drift: [] as string[] }), { id: 'p', op: 'create', object: 'IPPool p', observe: () => assert.fail('observed') });
    assert.deepEqual(outs, { drift: [] });
  });

  it('a failed apply becomes a ResourceInitError with the id, the observed outputs (given the drift line) and the message', async () => {
    const err = await recordPartial(failing, { id: 'default/two', op: 'create', object: 'LoadBalancer default/two', observe: async (drift) => ({ ready: false, drift }) }).catch((e: unknown) => e);
    assert.ok(err instanceof ResourceInitError);
    assert.equal(err.id, 'default/two');
    assert.deepEqual(err.properties, { ready: false, drift: [unfinishedLine('create', 'LoadBalancer default/two', timeout)] });
    assert.deepEqual(err.reasons, [timeout.message]);
    assert.equal(err.cause, timeout);
  });

  it('rethrows the original error when nothing of ours exists, or when what exists cannot be read', async () => {
    await assert.rejects(recordPartial(failing, { id: 'p', op: 'create', object: 'IPPool p', observe: async () => undefined }), (e) => e === timeout);
    await assert.rejects(recordPartial(failing, { id: 'p', op: 'update', object: 'IPPool p', observe: () => Promise.reject(new Error('unreachable')) }), (e) => e === timeout);
  });
});
