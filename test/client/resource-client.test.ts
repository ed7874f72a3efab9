/**
 * What ResourceClient sends and how it reads answers: list paging and selectors, merge patch and server-side
 * apply (content types, field manager, no status), read-modify-write with conflict retry that preserves
 * status, delete outcomes, ownership checks, and core kinds through CoreV1Api with raw JSON kept.
 */
import assert from 'node:assert/strict';
import nock from 'nock';
import { IPPool, LoadBalancer, Service } from '../../provider/client/objects';
import { ownerLabels } from '../../provider/client/ownership';
import { PassThrough } from 'node:stream';
import { ManualClock } from '../../emulator/clock';
import { waitFor } from '../../provider/await/awaiter';
import { LB, RANCHER_PATH, RANCHER_SERVER, TOKEN, kubeconfigYaml, lb, SERVER, status, testClient, useNock } from './helpers';

const LB1 = `${LB}/lb1`;
const POOLS = '/apis/loadbalancer.harvesterhci.io/v1beta1/ippools';
const owner = { resourceType: 'load-balancer', resourceName: 'web' };
const conflict = () =>
  status(409, 'Conflict', 'Operation cannot be fulfilled on ippools.loadbalancer.harvesterhci.io "pool": the object has been modified; please apply your changes to the latest version and try again', {
    name: 'pool',
    kind: 'ippools',
  });

function pool(rv: string, allocated: Record<string, string>): IPPool {
  return {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'IPPool',
    metadata: { name: 'pool', resourceVersion: rv, uid: 'pool-uid', labels: ownerLabels({ resourceType: 'ip-pool', resourceName: 'pool' }) },
    spec: { ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.19' }] },
    status: { allocated, available: 10 - Object.keys(allocated).length, total: 10 },
  };
}

describe('ResourceClient over HTTP (nock)', () => {
  useNock();

  it('list sends the label selector, follows continue tokens and keeps the first resourceVersion', async () => {
    const { client } = await testClient();
    nock(SERVER)
      .get(LB)
      .query({ labelSelector: 'app.kubernetes.io/managed-by=harvester-iac', limit: '500' })
      .reply(200, { kind: 'LoadBalancerList', metadata: { resourceVersion: '42', continue: 'tok1' }, items: [lb('a')] });
    nock(SERVER)
      .get(LB)
      .query({ labelSelector: 'app.kubernetes.io/managed-by=harvester-iac', limit: '500', continue: 'tok1' })
      .reply(200, { kind: 'LoadBalancerList', metadata: { resourceVersion: '43' }, items: [{ metadata: { name: 'b', namespace: 'default' } }] });
    const res = await client.loadBalancers.list({ namespace: 'default', labelSelector: 'app.kubernetes.io/managed-by=harvester-iac' });
    assert.equal(res.resourceVersion, '42');
    assert.deepEqual(res.items.map((i) => i.metadata.name), ['a', 'b']);
    assert.equal(res.items[1].kind, 'LoadBalancer', 'list items get apiVersion/kind filled in');
  });

  it('list restarts when a continue token expires (410)', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query({ limit: '500' }).reply(200, { metadata: { resourceVersion: '1', continue: 'old' }, items: [lb('a')] });
    nock(SERVER).get(LB).query({ limit: '500', continue: 'old' }).reply(410, status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.'));
    nock(SERVER).get(LB).query({ limit: '500' }).reply(200, { metadata: { resourceVersion: '9' }, items: [lb('a'), lb('b')] });
    const res = await client.loadBalancers.list({ namespace: 'default' });
    assert.equal(res.resourceVersion, '9');
    assert.equal(res.items.length, 2);
  });

  it('list without a namespace lists across all namespaces (CRD and core)', async () => {
    const { client } = await testClient();
    nock(SERVER).get('/apis/loadbalancer.harvesterhci.io/v1beta1/loadbalancers').query(true).reply(200, { metadata: { resourceVersion: '1' }, items: [] });
    nock(SERVER).get('/api/v1/services').query(true).reply(200, { metadata: { resourceVersion: '2' }, items: [] });
    assert.equal((await client.loadBalancers.list()).resourceVersion, '1');
    assert.equal((await client.services.list()).resourceVersion, '2');
  });

  it('mergePatch sends application/merge-patch+json with only the caller fields', async () => {
    const { client } = await testClient();
    nock(SERVER, { reqheaders: { 'content-type': 'application/merge-patch+json' } })
      .patch(LB1, { spec: { ipam: 'dhcp' } })
      .query({ fieldManager: 'harvester-iac' })
      .reply(200, lb('lb1'));
    await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } });
  });

  it('a dry run is sent as dryRun=All', async () => {
    const { client } = await testClient();
    nock(SERVER).patch(LB1, { spec: { ipam: 'dhcp' } }).query({ fieldManager: 'harvester-iac', dryRun: 'All' }).reply(200, lb('lb1'));
    await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }, { dryRun: true });
  });

  it('mergePatch refuses to touch status', async () => {
    const { client } = await testClient();
    await assert.rejects(client.loadBalancers.mergePatch('lb1', { status: { address: 'x' } }, { namespace: 'web' }), {
      name: 'TypeError',
      message: 'mergePatch of LoadBalancer web/lb1 must not touch status',
    });
  });

  it('mergePatch with an owner checks the labels and patches at the version it checked', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { labels: ownerLabels(owner), resourceVersion: '17' } }));
    nock(SERVER).patch(LB1, { spec: { ipam: 'dhcp' }, metadata: { resourceVersion: '17' } }).query(true).reply(200, lb('lb1'));
    await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }, { owner });

    nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { labels: { 'app.kubernetes.io/managed-by': 'someone-else' } } }));
    const err = await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }, { owner }).catch((e) => e);
    assert.equal(err.code, 'NotOwned');
    assert.match(err.message, /Refusing to patch LoadBalancer default\/lb1: it is not managed by harvester-iac \(label app\.kubernetes\.io\/managed-by is "someone-else"\)/);
  });

  it('apply is server-side apply as harvester-iac, without status or server metadata', async () => {
    const { client } = await testClient();
    nock(SERVER, { reqheaders: { 'content-type': 'application/apply-patch+yaml' } })
      .patch(LB1, (body) => {
        assert.equal(body.status, undefined);
        assert.equal(body.metadata.resourceVersion, undefined);
        assert.equal(body.metadata.uid, undefined);
        assert.equal(body.metadata.labels['harvester-iac.io/resource-name'], 'web');
        assert.equal(body.kind, 'LoadBalancer');
        return true;
      })
      .query({ fieldManager: 'harvester-iac', force: 'false' })
      .reply(200, lb('lb1'));
    nock(SERVER).get(LB1).reply(404, status(404, 'NotFound', 'x', { name: 'lb1', kind: 'loadbalancers' }));
    await client.loadBalancers.apply(lb('lb1', { status: { address: '1.2.3.4' } }) as LoadBalancer, { owner });
  });

  it('update re-reads and re-applies on 409, and always sends the live status back', async () => {
    const { client, sleeps } = await testClient();
    const first = pool('5', { '10.0.0.10': 'default/lb-a' });
    const second = pool('6', { '10.0.0.10': 'default/lb-a', '10.0.0.11': 'default/lb-b' });
    nock(SERVER).get(`${POOLS}/pool`).reply(200, first);
    nock(SERVER).put(`${POOLS}/pool`).query(true).reply(409, conflict());
    nock(SERVER).get(`${POOLS}/pool`).reply(200, second);
    let sent: IPPool | undefined;
    nock(SERVER)
      .put(`${POOLS}/pool`, (body) => {
        sent = body;
        return true;
      })
      .query(true)
      .reply(200, (_uri, body) => body as object);
    let calls = 0;
    const result = await client.ipPools.update('pool', undefined, (live) => {
      calls++;
      live.spec!.description = 'managed';
      // A careless mutator that drops status must not drop the allocations.
      delete live.status;
      return live;
    });
    assert.equal(calls, 2);
    assert.equal(sent?.metadata.resourceVersion, '6', 'sent at the re-read version');
    assert.deepEqual(sent?.status, second.status, 'the latest allocations are preserved');
    assert.equal(result.spec?.description, 'managed');
    assert.deepEqual(sleeps, [], 'conflicts are re-read at once, not backed off');
  });

  it('update with no change (undefined or equal) sends nothing', async () => {
    const { client } = await testClient();
    nock(SERVER).get(`${POOLS}/pool`).times(2).reply(200, pool('5', {}));
    await client.ipPools.update('pool', undefined, () => undefined);
    await client.ipPools.update('pool', undefined, (live) => live);
  });

  it('update gives up after maxConflictRetries with the attempt count', async () => {
    const { client } = await testClient();
    nock(SERVER).get(`${POOLS}/pool`).times(3).reply(200, pool('5', {}));
    nock(SERVER).put(`${POOLS}/pool`).query(true).times(3).reply(409, conflict());
    const err = await client.ipPools
      .update('pool', undefined, (l) => ({ ...l, spec: { ...l.spec, description: 'x' } }), { maxConflictRetries: 2 })
      .catch((e) => e);
    assert.equal(err.code, 'Conflict');
    assert.equal(err.attempts, 3);
  });

  it('update of a missing object is NotFound', async () => {
    const { client } = await testClient();
    nock(SERVER).get(`${POOLS}/gone`).reply(404, status(404, 'NotFound', 'x', { name: 'gone', kind: 'ippools' }));
    const err = await client.ipPools.update('gone', undefined, (l) => l).catch((e) => e);
    assert.equal(err.code, 'NotFound');
    assert.equal(err.object, 'IPPool gone');
  });

  describe('delete', () => {
    it("'deleted' when the server answers a Success Status", async () => {
      const { client } = await testClient();
      nock(SERVER).delete(LB1).query({ propagationPolicy: 'Foreground' }).reply(200, { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 'lb1' } });
      assert.equal(await client.loadBalancers.delete('lb1', { propagationPolicy: 'Foreground' }), 'deleted');
    });
    it("'deleting' when the object is returned marked for deletion (finalizers)", async () => {
      const { client } = await testClient();
      nock(SERVER).delete(LB1).reply(200, lb('lb1', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x'] } }));
      assert.equal(await client.loadBalancers.delete('lb1'), 'deleting');
    });
    it("'absent' on 404", async () => {
      const { client } = await testClient();
      nock(SERVER).delete(LB1).reply(404, status(404, 'NotFound', 'x', { name: 'lb1', kind: 'loadbalancers' }));
      assert.equal(await client.loadBalancers.delete('lb1'), 'absent');
    });
    it('with an owner: refuses objects we do not own, and deletes ours by uid precondition', async () => {
      const { client } = await testClient();
      nock(SERVER).get(LB1).reply(200, lb('lb1'));
      const err = await client.loadBalancers.delete('lb1', { owner }).catch((e) => e);
      assert.equal(err.code, 'NotOwned');
      assert.match(err.message, /Refusing to delete LoadBalancer default\/lb1/);

      nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { labels: ownerLabels(owner) } }));
      nock(SERVER)
        .delete(LB1, { preconditions: { uid: 'uid-lb1' } })
        .reply(200, { kind: 'Status', status: 'Success' });
      assert.equal(await client.loadBalancers.delete('lb1', { owner }), 'deleted');
    });
  });

  it('a Rancher-issued kubeconfig works: requests and watches go through /k8s/clusters/<id> with the bearer token', async () => {
    const { client } = await testClient({ kubeconfig: kubeconfigYaml({ server: `${RANCHER_SERVER}${RANCHER_PATH}` }) });
    const auth = { reqheaders: { authorization: `Bearer ${TOKEN}` } };
    nock(RANCHER_SERVER, auth).get(`${RANCHER_PATH}${LB}`).query(true).reply(200, { metadata: { resourceVersion: '5' }, items: [lb('lb1')] });
    const stream = new PassThrough();
    nock(RANCHER_SERVER, auth)
      .get(`${RANCHER_PATH}${LB}`)
      .query((q) => q.watch === 'true' && q.resourceVersion === '5')
      .reply(200, () => stream);
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      name: 'lb1',
      check: ([o]) => ({ done: Boolean(o?.status?.address), description: 'address' }),
      timeoutMs: 10_000,
      what: 'lb1',
      clock: new ManualClock(),
    });
    // The stream buffers the event until the watch (after the list) reads it: no timing involved.
    stream.write(`${JSON.stringify({ type: 'MODIFIED', object: lb('lb1', { status: { address: '10.0.0.9' } }) })}\n`);
    const [got] = await wait;
    stream.destroy();
    assert.equal(got.status?.address, '10.0.0.9');
  });

  describe('core kinds through CoreV1Api', () => {
    it('keep unknown fields and timestamps exactly as the server sent them', async () => {
      const { client } = await testClient();
      const svc = { metadata: { name: 's1', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { ports: [{ port: 80 }], futureField: { a: 1 } } };
      nock(SERVER).get('/api/v1/namespaces/default/services/s1').reply(200, svc);
      const got = (await client.services.get('s1')) as Service;
      assert.equal(got.metadata.creationTimestamp, '2026-01-01T00:00:00Z');
      assert.deepEqual(got.spec?.futureField, { a: 1 });
      assert.equal(got.kind, 'Service');
    });

    it('send our JSON body verbatim (string timestamps included) and merge-patch nodes', async () => {
      const { client } = await testClient();
      const body = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's1', namespace: 'default', annotations: { t: '2026-01-01T00:00:00Z' } }, spec: { ports: [{ port: 80 }] } };
      nock(SERVER, { reqheaders: { 'content-type': 'application/json' } })
        .put('/api/v1/namespaces/default/services/s1', (b) => b.metadata.resourceVersion === '3' && b.spec.ports[0].port === 81)
        .query(true)
        .reply(200, (_u, b) => b as object);
      nock(SERVER).get('/api/v1/namespaces/default/services/s1').reply(200, { ...body, metadata: { ...body.metadata, resourceVersion: '3' } });
      const updated = await client.services.update('s1', 'default', (s) => ({ ...s, spec: { ports: [{ port: 81 }] } }));
      assert.equal(updated.spec?.ports?.[0].port, 81);

      nock(SERVER, { reqheaders: { 'content-type': 'application/merge-patch+json' } })
        .patch('/api/v1/nodes/harvester-node-0', { metadata: { labels: { 'topology.kubernetes.io/zone': 'zone-a' } } })
        .query(true)
        .reply(200, { metadata: { name: 'harvester-node-0', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } });
      const node = await client.nodes.mergePatch('harvester-node-0', { metadata: { labels: { 'topology.kubernetes.io/zone': 'zone-a' } } });
      assert.equal(node.metadata.labels?.['topology.kubernetes.io/zone'], 'zone-a');
    });

    it('map core errors the same way (Service 404 → undefined, 422 with causes)', async () => {
      const { client } = await testClient();
      nock(SERVER).get('/api/v1/namespaces/default/services/nope').reply(404, status(404, 'NotFound', 'services "nope" not found', { name: 'nope', kind: 'services' }));
      assert.equal(await client.services.get('nope'), undefined);
      nock(SERVER)
        .post('/api/v1/namespaces/default/secrets')
        .query(true)
        .reply(422, status(422, 'Invalid', 'Secret "Bad" is invalid', { name: 'Bad', kind: 'Secret', causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters' }] }));
      const err = await client.secrets.create({ metadata: { name: 'Bad' }, data: { a: 'c2VjcmV0' } }).catch((e) => e);
      assert.equal(err.code, 'Invalid');
      assert.equal(err.causes[0].field, 'metadata.name');
      assert.equal(err.object, 'Secret default/Bad');
    });
  });
});
