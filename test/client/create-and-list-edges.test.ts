/**
 * The resource client at the edges of create and list: what exists already (being deleted, unlabelled, a
 * Secret that differs), a create without a name after an ambiguous failure, and a list whose continue token
 * expires mid-way (start over, at most twice more).
 */
import assert from 'node:assert/strict';
import nock from 'nock';
import { LoadBalancer } from '../../provider/client/objects';
import { ownerLabels } from '../../provider/client/ownership';
import { LB, SERVER, lb, status, testClient, useNock } from './helpers';

const LB1 = `${LB}/lb1`;
const SECRETS = '/api/v1/namespaces/default/secrets';
const owner = { resourceType: 'load-balancer', resourceName: 'web' };
const exists = () => status(409, 'AlreadyExists', 'already exists', { name: 'lb1', kind: 'loadbalancers' });
const expired = () => status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.');

describe('resource client: create over an existing object (nock)', () => {
  useNock();

  it('one still being deleted: says so, with its finalizers', async () => {
    const { client } = await testClient();
    nock(SERVER).post(LB).query(true).reply(409, exists());
    nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['a/one', 'b/two'], labels: ownerLabels(owner) } }));
    const err = await client.loadBalancers.create(lb('lb1') as LoadBalancer, { owner }).catch((e) => e);
    assert.equal(err.message, 'Cannot create LoadBalancer default/lb1: an object of that name is still being deleted (finalizers: a/one, b/two). Wait for the deletion to finish, then retry.');
    assert.equal(err.httpStatus, 409);
  });

  it('without an owner on either side: plain AlreadyExists', async () => {
    const { client } = await testClient();
    nock(SERVER).post(LB).query(true).reply(409, exists());
    nock(SERVER).get(LB1).reply(200, lb('lb1'));
    const err = await client.loadBalancers.create(lb('lb1') as LoadBalancer).catch((e) => e);
    assert.equal(err.code, 'AlreadyExists');
    assert.equal(err.message, 'Cannot create LoadBalancer default/lb1: an object with that name already exists (409 AlreadyExists). Choose another name, or delete the existing object first.');
  });

  it('the owner can come from the body\'s own labels, and a stranger\'s object is refused', async () => {
    const { client } = await testClient();
    nock(SERVER).post(LB).query(true).reply(409, exists());
    nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { labels: ownerLabels({ resourceType: 'load-balancer', resourceName: 'other' }) } }));
    const err = await client.loadBalancers.create(lb('lb1', { metadata: { labels: ownerLabels(owner) } }) as LoadBalancer).catch((e) => e);
    assert.equal(err.code, 'NotOwned');
    assert.match(err.message, /^Refusing to create over LoadBalancer default\/lb1: it belongs to another harvester-iac resource \(load-balancer "other"\)/);
  });

  it('our own Secret that differs: where, but never the values', async () => {
    const { client } = await testClient();
    const secret = (data: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default', labels: ownerLabels(owner) }, data: { userdata: data } });
    nock(SERVER).post(SECRETS).query(true).reply(409, status(409, 'AlreadyExists', 'x', { name: 's1', kind: 'secrets' }));
    nock(SERVER).get(`${SECRETS}/s1`).reply(200, secret('bGl2ZS12YWx1ZQ=='));
    const err = await client.secrets.create(secret('d2FudGVkLXZhbHVl') as never, { owner }).catch((e) => e);
    assert.equal(err.message, 'Cannot create Secret default/s1: it already exists, owned by this resource, but differs at data.userdata. Run `pulumi refresh` so the state records the existing object, then `pulumi up` to update it.');
  });

  it('our own Secret that differs outside its data still shows no values (a Secret is secret throughout)', async () => {
    const { client } = await testClient();
    const secret = (type: string) => ({ apiVersion: 'v1', kind: 'Secret', type, metadata: { name: 's1', namespace: 'default', labels: ownerLabels(owner) } });
    nock(SERVER).post(SECRETS).query(true).reply(409, status(409, 'AlreadyExists', 'x', { name: 's1', kind: 'secrets' }));
    nock(SERVER).get(`${SECRETS}/s1`).reply(200, secret('Opaque'));
    const err = await client.secrets.create(secret('kubernetes.io/basic-auth') as never, { owner }).catch((e) => e);
    assert.equal(err.message, 'Cannot create Secret default/s1: it already exists, owned by this resource, but differs at type. Run `pulumi refresh` so the state records the existing object, then `pulumi up` to update it.');
  });
  it('a secret-looking field of another kind that differs: where, but not the values', async () => {
    const { client } = await testClient();
    nock(SERVER).post(LB).query(true).reply(409, exists());
    nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { labels: ownerLabels(owner), annotations: { 'x/token': 'live-token-value' } } }));
    const err = await client.loadBalancers.create(lb('lb1', { metadata: { annotations: { 'x/token': 'wanted-token-value' } } }) as LoadBalancer, { owner }).catch((e) => e);
    assert.match(err.message, /differs at metadata\.annotations\.x\/token\. Run/);
    assert.doesNotMatch(err.message, /token-value/);
  });

  it('a create by generateName is never repeated after an ambiguous failure', async () => {
    const { client, sleeps } = await testClient();
    let posts = 0;
    nock(SERVER).post(LB).query(true).reply(() => {
      posts++;
      return [503, status(503, 'ServiceUnavailable', 'unavailable')];
    });
    const body = lb('') as LoadBalancer;
    delete (body.metadata as { name?: string }).name;
    body.metadata.generateName = 'lb-';
    const err = await client.loadBalancers.create(body).catch((e) => e);
    assert.equal(err.code, 'Unavailable');
    assert.equal(posts, 1);
    assert.deepEqual(sleeps, []);
  });

  it('an object of a namespaced kind goes to the client\'s namespace when it names none', async () => {
    const { client } = await testClient();
    const body = lb('lb1') as LoadBalancer;
    delete (body.metadata as { namespace?: string }).namespace;
    nock(SERVER).post(LB, (b) => b.metadata.namespace === 'default').query(true).reply(201, lb('lb1'));
    assert.equal((await client.loadBalancers.create(body)).metadata.name, 'lb1');
  });
});

describe('resource client: a list whose continue token expires (nock)', () => {
  useNock();
  const page1 = () => ({ kind: 'LoadBalancerList', metadata: { resourceVersion: '42', continue: 'tok1' }, items: [lb('a')] });

  it('starts over from the first page, and succeeds when the pages hold together', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query({ limit: '500' }).reply(200, page1());
    nock(SERVER).get(LB).query({ limit: '500', continue: 'tok1' }).reply(410, expired());
    nock(SERVER).get(LB).query({ limit: '500' }).reply(200, { kind: 'LoadBalancerList', metadata: { resourceVersion: '50' }, items: [lb('a'), lb('b')] });
    const res = await client.loadBalancers.list({ namespace: 'default' });
    assert.deepEqual(res.items.map((i) => i.metadata.name), ['a', 'b']);
    assert.equal(res.resourceVersion, '50');
  });

  it('gives up after three tries with the Expired error', async () => {
    const { client } = await testClient();
    for (let i = 0; i < 3; i++) {
      nock(SERVER).get(LB).query({ limit: '500' }).reply(200, page1());
      nock(SERVER).get(LB).query({ limit: '500', continue: 'tok1' }).reply(410, expired());
    }
    const err = await client.loadBalancers.list({ namespace: 'default' }).catch((e) => e);
    assert.equal(err.code, 'Expired');
  });

  it('an Expired first page (no continue token yet) is not restarted', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query({ limit: '500' }).reply(410, expired());
    const err = await client.loadBalancers.list({ namespace: 'default' }).catch((e) => e);
    assert.equal(err.code, 'Expired');
  });

  it('a page without items or metadata is an empty page', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query({ limit: '500' }).reply(200, { kind: 'LoadBalancerList' });
    assert.deepEqual(await client.loadBalancers.list({ namespace: 'default' }), { items: [], resourceVersion: '' });
  });
});
