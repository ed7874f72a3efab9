/**
 * Every progress line of a handler call is stamped by the host wrapper with the call's own object (its id, else
 * the object its inputs name), so the runner and the CLI show it under the resource being worked on, whatever
 * object the wait inside names (issue 33: a key pair's delete and every credentials line printed loose).
 */
import assert from 'node:assert/strict';
import { progressFor } from '../../../../provider/core/progress';
import type { ResourceProvider } from '../../../../provider/core/types';
import { hostSafe } from '../../../../provider/host/host-safe';
import { ProgressPrinter } from '../../../../provider/host/progress';
import { RESOURCES, progressObjectOf } from '../../../../provider/registry';

describe('provider/host: progress lines are stamped with the call\'s object', () => {
  const lines: string[] = [];
  const printer = new ProgressPrinter({ write: (l) => lines.push(l), intervalMs: 0 });
  const sink = printer.sinkFor('GuestClusterCredentials');
  // A handler whose waits name other objects than its own (a Secret, a binding), or a bare name.
  const report = (props: { namespace?: string; name?: string }) => async () => void progressFor(sink, props)?.('waiting');
  const provider: ResourceProvider = {
    check: async (_o, news) => ({ inputs: news }),
    diff: async () => ({ changes: false }),
    create: async () => (await report({ namespace: 'team', name: 'gc-token' })(), { id: 'team/gc', outs: {} }),
    read: async (id) => ({ id }),
    update: async () => (await report({ name: 'gc' })(), { outs: {} }),
    delete: async () => report({ name: 'gc' })(),
  };
  const entry = RESOURCES.find((r) => r.className === 'GuestClusterCredentials')!;
  const safe = hostSafe(provider, { resource: 'GuestClusterCredentials', secretInputs: [], progress: printer, objectOf: (inputs) => progressObjectOf(entry, inputs) });

  beforeEach(() => lines.splice(0));

  it('create: the object the inputs name, as the resource\'s id spells it', async () => {
    await safe.create({ namespace: 'team', clusterName: 'gc', serviceAccountName: 'gc' });
    assert.deepEqual(lines, ['GuestClusterCredentials team/gc: waiting']);
  });

  it('update and delete: the id the engine passes', async () => {
    await safe.update('team/gc', {}, { namespace: 'team', serviceAccountName: 'gc' });
    await safe.delete('team/gc', { namespace: 'team', serviceAccountName: 'gc' });
    assert.deepEqual(lines, ['GuestClusterCredentials team/gc: waiting', 'GuestClusterCredentials team/gc: waiting']);
  });

  it('the runner keys a resource by the same object (progressObjectOf), so the line lands on it', () => {
    assert.equal(progressObjectOf(entry, { namespace: 'team', clusterName: 'gc', serviceAccountName: 'gc' }), 'team/gc');
    const keyPair = RESOURCES.find((r) => r.className === 'HarvesterKeyPair')!;
    assert.equal(progressObjectOf(keyPair, { name: 'ops' }), 'default/ops', 'a bare name is in the default namespace, as the id says');
  });
});
