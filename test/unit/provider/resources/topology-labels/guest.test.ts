import assert from 'node:assert/strict';
import { HarvesterError } from '../../../../../provider/client/errors';
import type { HarvesterClient } from '../../../../../provider/client/harvester-client';
import type { KubeObject, Node } from '../../../../../provider/client/objects';
import { guestNodeStatuses, lowestKubelet, waitForGuestSync, type GuestObservation } from '../../../../../provider/resources/topology-labels/guest';
import { cloudProviderVersion } from '../../../../../provider/core/guest-cloud-provider';
import type { GuestNodeStatus } from '../../../../../provider/resources/topology-labels/model';
import type { LiveHost } from '../../../../../provider/resources/topology-labels/plan';
import { ManualClock } from '../../../../../emulator/clock';

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const DRIVER = { 'harvesterhci.io/creator': 'docker-machine-driver-harvester' };

const node = (name: string, labels: Record<string, string> = {}, providerID?: string, kubelet?: string): Node =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: providerID ? { providerID } : {}, status: kubelet ? { nodeInfo: { kubeletVersion: kubelet } } : {} }) as Node;
const vm = (name: string, labels: Record<string, string> = DRIVER): KubeObject => ({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace: 'gc', uid: `uid-${name}`, labels } });
const vmi = (name: string, host?: string, annotations: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name, namespace: 'gc', annotations }, status: host ? { nodeName: host } : {} }) as KubeObject;
const host = (name: string, region: string, zone: string): LiveHost => ({ name, labels: { [REGION]: region, [ZONE]: zone }, annotations: {} });
const byName = <T extends { metadata: { name?: string }; name?: string }>(items: T[]) => new Map(items.map((i) => [i.metadata?.name ?? i.name ?? '', i]));
const hosts = new Map([['h1', host('h1', 'r', 'z1')]]);
const inZone = { [REGION]: 'r', [ZONE]: 'z1' };

describe('TopologyLabels guest: nodes mapped to VMs and hosts, the reason of each node out of sync', () => {
  const statusOf = (n: Node, v: KubeObject | undefined, i: KubeObject | undefined, resyncs = true): GuestNodeStatus =>
    guestNodeStatuses([n], byName(v ? [v] : []), byName(i ? [i] : []), hosts, 'gc', resyncs)[0];

  it('a node carrying its host\'s region and zone is in sync, with no reason', () => {
    assert.deepEqual(statusOf(node('n', inZone), vm('n'), vmi('n', 'h1')), {
      name: 'n', vm: 'gc/n', host: 'h1', expectedRegion: 'r', expectedZone: 'z1', actualRegion: 'r', actualZone: 'z1', inSync: true, reason: '',
    });
  });

  it('explains each way a node falls out of sync, in the order the cloud provider meets them', () => {
    const table: [string, GuestNodeStatus, string][] = [
      ['no VM', statusOf(node('n'), undefined, undefined), 'no VM gc/n: the Harvester cloud provider finds a guest node\'s VM by the node\'s name in its namespace. Check guestNamespace, and that the guest\'s hostnames are the VM names.'],
      ['a replaced VM', statusOf(node('n', {}, 'harvester://old'), vm('n'), vmi('n', 'h1')), 'its providerID harvester://old names another VM than gc/n (uid uid-n): the node belongs to a VM that was replaced; the cloud provider removes it.'],
      ['no host', statusOf(node('n', {}, 'harvester://uid-n'), vm('n'), vmi('n')), 'VM gc/n is not running on a host, so it has no zone to take.'],
      ['a host that is not a Node', statusOf(node('n'), vm('n'), vmi('n', 'h9')), 'VM gc/n is not running on a host (host h9 is not a Node of the Harvester cluster), so it has no zone to take.'],
      ['a VM not made by the node driver', statusOf(node('n'), vm('n', {}), vmi('n', 'h1', inZone)), 'VM gc/n lacks label harvesterhci.io/creator=docker-machine-driver-harvester, so Harvester never copies its host\'s labels to it. Create guest VMs with the node driver or a HarvesterMachinePool.'],
      ['a stale VMI', statusOf(node('n'), vm('n'), vmi('n', 'h1', { [REGION]: 'r' })), 'the VMI still carries zone null: Harvester copies host h1\'s labels to a VMI only when the VMI changes (a migration or restart).'],
      ['a cloud provider yet to re-sync', statusOf(node('n'), vm('n'), vmi('n', 'h1', inZone)), 'the cloud provider has not re-initialised the node yet (it re-syncs when it sees the VMI change).'],
      ['a cloud provider that never re-syncs', statusOf(node('n'), vm('n'), vmi('n', 'h1', inZone), false), 'this cloud provider version copies labels only when the node is initialised, so this node keeps its old values (rebuild the node, or upgrade the cloud provider to v0.2.0 or later).'],
    ];
    for (const [label, status, reason] of table) {
      assert.equal(status.inSync, false, label);
      assert.equal(status.reason, reason, label);
    }
  });

  it('a node whose providerID names its own VM, or another provider, is judged by its host', () => {
    assert.equal(statusOf(node('n', inZone, 'harvester://uid-n'), vm('n'), vmi('n', 'h1')).inSync, true);
    assert.match(statusOf(node('n', {}, 'other://x'), vm('n'), vmi('n', 'h1', inZone)).reason, /has not re-initialised/);
  });

  it('lists nodes by name, and the lowest kubelet version among them', () => {
    const statuses = guestNodeStatuses([node('b'), node('a')], new Map(), new Map(), hosts, 'gc', true);
    assert.deepEqual(statuses.map((s) => s.name), ['a', 'b']);
    const kubelets = (...vs: (string | undefined)[]) => lowestKubelet(vs.map((v, i) => node(`n${i}`, {}, undefined, v)));
    assert.equal(kubelets('v1.28.10+rke2r1', 'v1.27.3+rke2r1', undefined, 'v1.28.1+rke2r1'), 'v1.27.3+rke2r1');
    assert.equal(kubelets(undefined, 'v1.26.0+rke2r2'), 'v1.26.0+rke2r2');
    assert.equal(kubelets(), undefined);
  });
});

describe('TopologyLabels guest: the cloud provider version from its Deployment', () => {
  const guestWith = (get: () => Promise<unknown>) => ({ resource: () => ({ get }) }) as unknown as HarvesterClient;
  const deployment = (containers: { name?: string; image?: string }[]) => async () => ({ metadata: { name: 'harvester-cloud-provider' }, spec: { template: { spec: { containers } } } });
  const apiError = (code: 'NotFound' | 'Forbidden' | 'Unauthorized') => async () => {
    throw new HarvesterError({ code, summary: `${code} deployments` });
  };

  it('an override wins; else the cloud provider container\'s image tag, else the first container\'s', async () => {
    assert.equal(await cloudProviderVersion(guestWith(deployment([])), 'v0.2.9'), 'v0.2.9');
    assert.equal(await cloudProviderVersion(guestWith(deployment([{ name: 'sidecar', image: 'x/y:v9.9.9' }, { name: 'harvester-cloud-provider', image: 'rancher/harvester-cloud-provider:v0.2.7' }]))), 'v0.2.7');
    assert.equal(await cloudProviderVersion(guestWith(deployment([{ name: 'renamed', image: 'rancher/harvester-cloud-provider:v0.1.5' }]))), 'v0.1.5');
    assert.equal(await cloudProviderVersion(guestWith(deployment([{ name: 'harvester-cloud-provider' }]))), undefined);
  });

  it('is unknown when the Deployment is missing or unreadable; other errors are raised', async () => {
    assert.equal(await cloudProviderVersion(guestWith(apiError('NotFound'))), undefined);
    assert.equal(await cloudProviderVersion(guestWith(apiError('Forbidden'))), undefined);
    await assert.rejects(cloudProviderVersion(guestWith(apiError('Unauthorized'))), /Unauthorized deployments/);
  });
});

describe('TopologyLabels guest: waitForGuestSync refuses what can never sync, before watching', () => {
  const noGuest = {} as HarvesterClient; // any use of it would throw: these cases must not reach the watch
  const status = (name: string, inSync: boolean): GuestNodeStatus => ({ name, vm: `gc/${name}`, host: 'h1', expectedRegion: 'r', expectedZone: 'z1', actualRegion: null, actualZone: inSync ? 'z1' : null, inSync, reason: inSync ? '' : 'why' });
  const observed = (nodes: GuestNodeStatus[], support: Partial<GuestObservation['support']>, cloudProvider: string | null = 'v0.1.5'): GuestObservation =>
    ({ nodes, versions: { rke2: 'v1.28.1+rke2r1', cloudProvider }, support: { refusals: [], notes: [], resyncs: false, ...support } });
  const wait = { timeoutMs: 1000, timeoutText: '1s' };

  it('refuses versions that cannot sync, naming every refusal and the way out', async () => {
    await assert.rejects(waitForGuestSync(noGuest, observed([status('a', true)], { refusals: ['RKE2 is too old.', 'So is the CCM.'] }), wait), (err: Error) => {
      assert.equal(err.message, 'The guest cluster cannot sync topology labels: RKE2 is too old. So is the CCM. Set waitForGuestSync to false to only report the guest nodes.');
      assert.equal((err as Error & { code?: string }).code, 'GuestCannotSync');
      return true;
    });
  });

  it('returns at once when every node is in sync', async () => {
    const nodes = [status('a', true), status('b', true)];
    assert.deepEqual(await waitForGuestSync(noGuest, observed(nodes, {}), wait), nodes);
  });

  it('refuses to wait for nodes a cloud provider below v0.2.0 will never re-sync, naming them', async () => {
    await assert.rejects(waitForGuestSync(noGuest, observed([status('a', false), status('b', true), status('c', false)], { notes: ['Labels follow only at initialisation.'] }), wait), (err: Error) => {
      assert.equal(err.message, 'Guest nodes a, c are out of sync and will stay so: Labels follow only at initialisation. Set waitForGuestSync to false to only report the guest nodes.');
      assert.equal((err as Error & { code?: string }).code, 'GuestCannotSync');
      return true;
    });
  });
});

describe('TopologyLabels guest: waitForGuestSync waits on the guest nodes', () => {
  /** A guest whose node list is `nodes` and whose watch stays silent. */
  const silentGuest = (nodes: Node[]) =>
    ({
      nodes: {
        namespaceFor: () => undefined,
        describe: () => 'Node objects',
        list: async () => ({ items: nodes, resourceVersion: '1' }),
        watch: () => ({ stop: () => undefined }),
      },
    }) as unknown as HarvesterClient;
  const noHost: GuestNodeStatus = { name: 'a', vm: 'gc/a', host: null, expectedRegion: null, expectedZone: null, actualRegion: null, actualZone: null, inSync: false, reason: 'VM gc/a is not running on a host, so it has no zone to take.' };
  const observation: GuestObservation = { nodes: [noHost], versions: { rke2: 'v1.28.1+rke2r1', cloudProvider: 'v0.2.7' }, support: { refusals: [], notes: [], resyncs: true } };

  it('a node whose VM runs on no host is never taken as in sync, even without labels: the wait times out naming it', async () => {
    const clock = new ManualClock();
    const waiting = waitForGuestSync(silentGuest([node('a')]), observation, { timeoutMs: 60_000, timeoutText: '1m', clock });
    const outcome = waiting.then(() => 'returned', (err: Error) => err.message);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    clock.advance(60_000);
    assert.match(await outcome, /^Timed out after 1m0s waiting for every guest node to carry its host's region and zone\. Last seen: 0\/1 guest nodes .* Still pending: a: VM gc\/a is not running on a host, so it has no zone to take\. If it is still progressing/);
  });
});
