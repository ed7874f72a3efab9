import assert from 'node:assert/strict';
import { ConflictError, ForbiddenError } from '../../../../../provider/client/errors';
import type { HarvesterClient } from '../../../../../provider/client/harvester-client';
import type { Node } from '../../../../../provider/client/objects';
import { applyHost } from '../../../../../provider/resources/topology-labels/apply';
import { OWNER_ANNOTATION, PREVIOUS_ANNOTATION } from '../../../../../provider/resources/topology-labels/model';

const ZONE = 'topology.kubernetes.io/zone';

/** A client whose Node reads answer `versions` in turn and whose patches answer Conflict `conflicts` times. */
function stubClient(versions: Node[], conflicts: number) {
  const patches: { rv?: string; patch: unknown }[] = [];
  let reads = 0;
  const client = {
    nodes: {
      async get() {
        return versions[Math.min(reads++, versions.length - 1)];
      },
      async mergePatch(_name: string, patch: unknown, o: { resourceVersion?: string }) {
        patches.push({ rv: o.resourceVersion, patch });
        if (patches.length <= conflicts) throw new ConflictError({ code: 'Conflict', summary: 'the object has been modified', httpStatus: 409 });
        return versions[versions.length - 1];
      },
    },
  } as unknown as HarvesterClient;
  return { client, patches };
}

const node = (rv: string, labels: Record<string, string>, annotations: Record<string, string> = {}): Node =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'h0', resourceVersion: rv, labels, annotations } }) as Node;

describe('TopologyLabels apply: precondition and conflicts', () => {
  it('patches at the version it planned from', async () => {
    const { client, patches } = stubClient([node('5', { [ZONE]: 'a' })], 0);
    await applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} });
    assert.deepEqual(patches.map((p) => p.rv), ['5']);
  });

  it('re-reads on a conflict and re-sends at the new version when only other labels changed', async () => {
    const { client, patches } = stubClient([node('5', { [ZONE]: 'a' }), node('6', { [ZONE]: 'a', rack: 'r2' })], 1);
    const plan = await applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} });
    assert.deepEqual(patches.map((p) => p.rv), ['5', '6']);
    assert.deepEqual(plan.previous, { zone: 'a' });
  });

  it('stops with ConcurrentEdit, never overwriting it, when our key changed in between', async () => {
    const { client, patches } = stubClient([node('5', { [ZONE]: 'a' }), node('6', { [ZONE]: 'ui' })], 1);
    await assert.rejects(applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ConcurrentEdit');
      assert.match(err.message, /Host h0 changed while its topology labels were being written \(topology\.kubernetes\.io\/zone "a" → "ui"\)/);
      return true;
    });
    assert.equal(patches.length, 1);
  });

  it('never touches a host owned by another resource; on release it leaves it and says so', async () => {
    const { client, patches } = stubClient([node('5', { [ZONE]: 'a' }, { [OWNER_ANNOTATION]: 'other' })], 0);
    await assert.rejects(applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} }), /managed by TopologyLabels "other"/);
    const released = await applyHost(client, 'site', { host: 'h0', recorded: { previous: { zone: null }, applied: { zone: 'a' } } });
    assert.match(released.skipped!, /now managed by TopologyLabels "other"/);
    assert.equal(patches.length, 0);
  });

  it('a host gone from the cluster: an error naming it when claiming, left alone and said so when releasing', async () => {
    const { client, patches } = stubClient([undefined as unknown as Node], 0);
    await assert.rejects(applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'NotFound');
      assert.equal(err.message, 'Host h0 does not exist on the Harvester cluster. Remove it from hosts, or re-add the host to Harvester.');
      return true;
    });
    const released = await applyHost(client, 'site', { host: 'h0', recorded: { previous: { zone: null }, applied: { zone: 'a' } } });
    assert.deepEqual(released, { host: 'h0', previous: {}, applied: {}, changes: [], skipped: 'host no longer exists' });
    assert.equal(patches.length, 0);
  });

  it('gives up after five conflicts in a row, raising the last one (a host under constant edits is not retried forever)', async () => {
    const { client, patches } = stubClient([node('5', { [ZONE]: 'a' }), node('6', { [ZONE]: 'a', rack: 'r2' })], Infinity);
    await assert.rejects(applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} }), ConflictError);
    assert.deepEqual(patches.map((p) => p.rv), ['5', '6', '6', '6', '6']);
  });

  it('raises any other error of the write at once, without re-reading or retrying', async () => {
    let reads = 0;
    let writes = 0;
    const client = {
      nodes: {
        async get() {
          reads++;
          return node('5', { [ZONE]: 'a' });
        },
        async mergePatch() {
          writes++;
          throw new ForbiddenError({ code: 'Forbidden', summary: 'nodes "h0" is forbidden', httpStatus: 403 });
        },
      },
    } as unknown as HarvesterClient;
    await assert.rejects(applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} }), ForbiddenError);
    assert.deepEqual([reads, writes], [1, 1]);
  });

  it('stops with ConcurrentEdit when only the ownership annotations changed in between, and says so', async () => {
    const changes: Record<string, string>[] = [{ [OWNER_ANNOTATION]: 'other' }, { [PREVIOUS_ANNOTATION]: '{"zone":"x"}' }];
    for (const changed of changes) {
      const { client, patches } = stubClient([node('5', { [ZONE]: 'a' }), node('6', { [ZONE]: 'a' }, changed)], 1);
      await assert.rejects(applyHost(client, 'site', { host: 'h0', desired: { zone: 'b' }, recorded: {} }), (err: Error & { code?: string; object?: string; fix?: string }) => {
        assert.equal(err.code, 'ConcurrentEdit');
        assert.equal(err.object, 'Node h0');
        assert.equal(
          err.message,
          'Host h0 changed while its topology labels were being written (ownership annotations changed), so the write was not repeated over that edit. ' +
            'Check who else edits the host labels, then run `pulumi refresh` and `pulumi up` again.',
        );
        return true;
      });
      assert.equal(patches.length, 1, JSON.stringify(changed));
    }
  });

  it('on release, a host claimed by another resource is reported whole: nothing previous, nothing applied, no change', async () => {
    const { client } = stubClient([node('5', { [ZONE]: 'a' }, { [OWNER_ANNOTATION]: 'other' })], 0);
    const released = await applyHost(client, 'site', { host: 'h0', recorded: { previous: { zone: null }, applied: { zone: 'a' } } });
    assert.deepEqual(released, { host: 'h0', previous: {}, applied: {}, changes: [], skipped: 'now managed by TopologyLabels "other"' });
  });
});
