/**
 * TopologyLabels' wait for the guest (waitForGuestSync) on the emulator's guest cluster: it watches the guest
 * Nodes until each carries the region and zone of its host, then reports them in sync; a node with no host
 * never counts; a timeout names each node still behind with its reason, and the option to raise. Emulator only.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { Node } from '../../provider/client/objects';
import { waitForGuestSync, type GuestObservation } from '../../provider/resources/topology-labels/guest';
import type { GuestNodeStatus } from '../../provider/resources/topology-labels/model';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { REGION, ZONE } from './topology-labels-support';

describe('TopologyLabels: waiting for the guest nodes to carry their hosts\' region and zone', function () {
  this.timeout(30_000);
  let t: TestEmulator;
  let guest: HarvesterClient;
  const behind = (name: string, host: string | null, reason: string): GuestNodeStatus =>
    ({ name, vm: `default/${name}`, host, expectedRegion: 'lab', expectedZone: 'zone-a', actualRegion: null, actualZone: null, inSync: false, reason });
  const observed = (nodes: GuestNodeStatus[]): GuestObservation => ({ nodes, versions: { rke2: 'v1.28.10+rke2r1', cloudProvider: 'v0.2.7' }, support: { refusals: [], notes: [], resyncs: true } });
  const label = (name: string, labels: Record<string, string | null>) => guest.nodes.mergePatch(name, { metadata: { labels } });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ guest: { clusterName: 'gc1', ccmVersion: 'v0.2.7' } });
    guest = await HarvesterClient.connect({ kubeconfig: t.emulator.guest!.kubeconfig });
    for (const name of ['w1', 'w2']) await guest.nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name } } as Node);
  });
  after(async () => t?.stop());

  it('resolves once every node carries its host\'s labels, reporting them in sync', async () => {
    const progress: string[] = [];
    const waiting = waitForGuestSync(guest, observed([behind('w1', 'h1', 'VMI not re-synced yet')]), { timeoutMs: 10_000, timeoutText: '10s', onProgress: (l) => progress.push(l) });
    await label('w1', { [REGION]: 'lab', [ZONE]: 'zone-a' });
    const nodes = await waiting;
    assert.deepEqual(nodes, [{ ...behind('w1', 'h1', ''), actualRegion: 'lab', actualZone: 'zone-a', inSync: true }]);
    assert.ok(progress.some((l) => /\/2 guest nodes carry their host's region and zone/.test(l)), progress.join('\n'));
  });

  it('times out naming each node still behind and its reason; a node without a host never counts as synced', async () => {
    await label('w2', { [REGION]: 'lab', [ZONE]: 'zone-a' }); // the right labels, but no host to take them from
    await assert.rejects(
      waitForGuestSync(guest, observed([behind('w1', 'h1', ''), behind('w2', null, 'VM default/w2 is not running on a host')]), { timeoutMs: 500, timeoutText: '500ms' }),
      (err: Error) => {
        assert.match(err.message, /waiting for every guest node to carry its host's region and zone\. Last seen: 1\/2 guest nodes carry their host's region and zone\./);
        assert.match(err.message, /Still pending: w2: VM default\/w2 is not running on a host\./);
        assert.match(err.message, /guestSyncTimeout/);
        return true;
      },
    );
  });
});
