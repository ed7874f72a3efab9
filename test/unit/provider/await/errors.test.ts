/**
 * The exact wording of the wait errors (WaitTimeoutError, WaitCancelledError) and parseDuration's handling of
 * plain numbers. Each case pins one branch of the message so a changed word or a lost branch fails here.
 */
import assert from 'node:assert/strict';
import { parseDuration } from '../../../../provider/await/duration';
import { WaitCancelledError, WaitTimeoutError, WaitTimeoutInit } from '../../../../provider/await/errors';
import { obj } from './fake-resource';

const FIX_DEFAULT = 'If it is still progressing, raise the timeout (now 2m0s); otherwise inspect the objects on the cluster (kubectl describe) for the reason it is stuck.';
const base: WaitTimeoutInit = { what: 'LoadBalancer default/lb1 to get an address', object: 'LoadBalancer default/lb1', timeoutMs: 120_000, lastSeen: [] };
const timeout = (init: Partial<WaitTimeoutInit>) => new WaitTimeoutError({ ...base, ...init });

describe('WaitTimeoutError wording', () => {
  it('quotes the last progress line when there was one', () => {
    const err = timeout({ lastProgress: 'waiting for an address', lastSeen: [obj('lb1')] });
    assert.equal(err.message, `Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: waiting for an address. ${FIX_DEFAULT}`);
  });

  it('says no matching object existed when nothing was seen and no progress line was produced', () => {
    const err = timeout({});
    assert.equal(err.message, `Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: no matching LoadBalancer default/lb1 existed. ${FIX_DEFAULT}`);
  });

  it('says no progress was reported when objects were seen but no progress line was produced', () => {
    const err = timeout({ lastSeen: [obj('lb1')] });
    assert.equal(err.message, `Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: no progress was reported. ${FIX_DEFAULT}`);
  });

  it('lists what is pending, joined by "; ", ending in one full stop even when the last item is a sentence', () => {
    const err = timeout({ lastProgress: 'x', pending: ['status.address', 'v1.2 image is importing.'] });
    assert.equal(err.summary, 'Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: x. Still pending: status.address; v1.2 image is importing.');
    assert.deepEqual(err.pending, ['status.address', 'v1.2 image is importing.']);
  });

  it('says nothing of pending checks when the list is empty or absent, and exposes an empty list', () => {
    assert.equal(timeout({ lastProgress: 'x', pending: [] }).summary, 'Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: x.');
    const err = timeout({ lastProgress: 'x' });
    assert.equal(err.summary, 'Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: x.');
    assert.deepEqual(err.pending, []);
  });

  it('names the option to raise when given, "the timeout" otherwise', () => {
    assert.equal(
      timeout({ lastProgress: 'x', timeoutOption: 'timeouts.create' }).fix,
      'If it is still progressing, raise `timeouts.create` (now 2m0s); otherwise inspect the objects on the cluster (kubectl describe) for the reason it is stuck.',
    );
    assert.equal(timeout({ lastProgress: 'x' }).fix, FIX_DEFAULT);
  });
});

describe('WaitCancelledError wording', () => {
  it('says what was awaited, that the operation was cancelled, and to run it again', () => {
    const err = new WaitCancelledError('LoadBalancer default/lb1 to get an address', 'LoadBalancer default/lb1');
    assert.equal(err.code, 'Cancelled');
    assert.equal(err.object, 'LoadBalancer default/lb1');
    assert.equal(err.message, 'Stopped waiting for LoadBalancer default/lb1 to get an address: the operation was cancelled. Run the operation again.');
  });
});

describe('parseDuration of a plain number (seconds)', () => {
  it('converts non-negative finite seconds to milliseconds', () => {
    assert.equal(parseDuration(90), 90_000);
    assert.equal(parseDuration(0.25), 250);
    assert.equal(parseDuration(0), 0);
  });

  it('rejects negative, infinite and NaN seconds', () => {
    assert.equal(parseDuration(-1), undefined);
    assert.equal(parseDuration(Infinity), undefined);
    assert.equal(parseDuration(NaN), undefined);
  });
});
