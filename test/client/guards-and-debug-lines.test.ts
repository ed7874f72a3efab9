/**
 * The client's guards against programming errors (they throw TypeError with the exact misuse, before any
 * request) and its two debug lines (a conflict re-read; an existing object that is ours and matches), which
 * are what `pulumi up --debug` shows when an update takes more than one round.
 */
import assert from 'node:assert/strict';
import nock from 'nock';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { KINDS, KindSpec } from '../../provider/client/kinds';
import { LoadBalancer } from '../../provider/client/objects';
import { ownerLabels } from '../../provider/client/ownership';
import { makeTransport } from '../../provider/client/transport';
import { LB, SERVER, lb, status, testClient, useNock } from './helpers';

const LB1 = `${LB}/lb1`;
const owner = { resourceType: 'load-balancer', resourceName: 'web' };

/** APIs that fail the test if the transport reaches them: each guard must throw first. */
const unreachable = new Proxy({}, {
  get: (_t, prop) => () => assert.fail(`the API was called (${String(prop)}) although the guard should have thrown`),
});
const apis = { custom: unreachable as unknown as CustomObjectsApi, core: unreachable as unknown as CoreV1Api };

describe('client guards against misuse (TypeError before any request)', () => {
  it('a namespaced custom kind without a namespace, for every verb that needs one', async () => {
    const t = makeTransport(KINDS.LoadBalancer, apis);
    const message = 'LoadBalancer is namespaced: a namespace is required';
    const opts = { fieldManager: 'x' };
    await assert.rejects(async () => t.get(undefined, 'a'), { name: 'TypeError', message });
    await assert.rejects(async () => t.create(undefined, {} as never, opts), { name: 'TypeError', message });
    await assert.rejects(async () => t.replace(undefined, 'a', {} as never, opts), { name: 'TypeError', message });
    await assert.rejects(async () => t.patch(undefined, 'a', {}, 'merge', opts), { name: 'TypeError', message });
    await assert.rejects(async () => t.delete(undefined, 'a', {}), { name: 'TypeError', message });
  });

  it('a namespaced core kind without a namespace', async () => {
    const t = makeTransport(KINDS.Secret, { ...apis, core: { readNamespacedSecret: () => assert.fail('called') } as unknown as CoreV1Api });
    await assert.rejects(async () => t.get(undefined, 'a'), { name: 'TypeError', message: 'Secret is namespaced: a namespace is required' });
  });

  it('a core kind CoreV1Api has no method for names the missing method', async () => {
    const bogus: KindSpec = { group: '', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true, statusSubresource: false, coreName: 'Gadget' };
    const t = makeTransport(bogus, { ...apis, core: {} as CoreV1Api });
    await assert.rejects(async () => t.get('default', 'a'), { name: 'TypeError', message: 'CoreV1Api has no readNamespacedGadget' });
    await assert.rejects(async () => t.list(undefined, {}), { name: 'TypeError', message: 'CoreV1Api has no listGadgetForAllNamespaces' });
  });

  describe('resource client (nock: no request may be sent)', () => {
    useNock();

    it('apply without metadata.name names the kind', async () => {
      const { client } = await testClient();
      const nameless = { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'default' } };
      await assert.rejects(client.secrets.apply(nameless as never), { name: 'TypeError', message: 'apply of a Secret needs metadata.name' });
    });
  });
});

describe('client debug lines', () => {
  useNock();

  it('a conflicting owned merge patch is re-read and the attempt logged', async () => {
    const { client, logger } = await testClient();
    logger.lines.splice(0); // the connection line
    const ours = (rv: string) => lb('lb1', { metadata: { labels: ownerLabels(owner), resourceVersion: rv } });
    nock(SERVER).get(LB1).reply(200, ours('1'));
    nock(SERVER).patch(LB1).query(true).reply(409, status(409, 'Conflict', 'the object has been modified', { name: 'lb1', kind: 'loadbalancers' }));
    nock(SERVER).get(LB1).reply(200, ours('2'));
    nock(SERVER).patch(LB1, { spec: { ipam: 'dhcp' }, metadata: { resourceVersion: '2' } }).query(true).reply(200, ours('3'));
    await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }, { owner });
    assert.deepEqual(
      logger.lines.filter((l) => l.level === 'debug'),
      [{ level: 'debug', message: 'patch LoadBalancer default/lb1: conflict, re-reading (attempt 1)' }],
    );
  });

  it('a create that finds our own identical object uses it and says so', async () => {
    const { client, logger } = await testClient();
    logger.lines.splice(0); // the connection line
    const body = lb('lb1', { metadata: { labels: ownerLabels(owner) } });
    nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'already exists', { name: 'lb1', kind: 'loadbalancers' }));
    nock(SERVER).get(LB1).reply(200, body);
    const got = await client.loadBalancers.create(body as LoadBalancer, { owner });
    assert.equal(got.metadata.name, 'lb1');
    assert.deepEqual(
      logger.lines.filter((l) => l.level === 'debug'),
      [{ level: 'debug', message: 'LoadBalancer default/lb1 already exists, is ours and matches: using it' }],
    );
  });
});
