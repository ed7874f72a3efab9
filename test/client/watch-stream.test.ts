/**
 * One watch stream ends exactly once: an ERROR event closes it with the Status mapped (even a Status-less
 * ERROR), and the end of the HTTP stream after that does not report a second close.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import nock from 'nock';
import { HarvesterError } from '../../provider/client/errors';
import { fromApiException } from '../../provider/client/from-api-exception';
import { loadKubeConfig } from '../../provider/client/kube-config';
import { KINDS } from '../../provider/client/kinds';
import { openWatch } from '../../provider/client/watch-stream';
import { eventually } from '../support/emulator-harness';
import { LB, SERVER, kubeconfigYaml, status, useNock } from './helpers';

function watchOnce(lines: string[]) {
  const stream = new PassThrough();
  nock(SERVER).get(LB).query(true).reply(200, () => stream);
  const loaded = loadKubeConfig({ kubeconfig: kubeconfigYaml(), env: {} });
  const closes: (HarvesterError | undefined)[] = [];
  const events: string[] = [];
  openWatch(loaded.kubeConfig, LB, { resourceVersion: '1' }, {
    onEvent: (type) => void events.push(type),
    onClose: (err) => void closes.push(err),
    mapError: (err) => fromApiException(err, { verb: 'watch', kind: KINDS.LoadBalancer, namespace: 'default' }, loaded.connection),
  });
  setImmediate(() => {
    for (const l of lines) stream.write(`${l}\n`);
    stream.end();
  });
  return { closes, events, stream };
}

describe('watch stream (nock)', () => {
  useNock();

  it('an ERROR event closes the stream once, with the Status mapped; the end that follows is not a second close', async () => {
    const { closes, events, stream } = watchOnce([
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '2' } } }),
      JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 1 (5)') }),
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'b', resourceVersion: '3' } } }),
    ]);
    await once(stream, 'end'); // the client read the whole body, end included
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, ['ADDED']);
    assert.equal(closes.length, 1);
    assert.equal(closes[0]?.code, 'Expired');
  });

  it('an ERROR event without a Status is a 500', async () => {
    const { closes } = watchOnce([JSON.stringify({ type: 'ERROR', object: null })]);
    await eventually(() => closes.length > 0, 'the watch never closed');
    assert.equal(closes[0]?.httpStatus, 500);
    assert.equal(closes[0]?.code, 'Unavailable');
  });
});
