/**
 * Each resource-client operation names itself in the errors it raises (a 403 says which permission is
 * missing; an ownership refusal says what it refused to do), and delete reports each outcome from what the
 * server answered: absent, still being deleted (finalizers), or deleted, without a DELETE when none is needed.
 */
import assert from 'node:assert/strict';
import nock from 'nock';
import { LoadBalancer } from '../../provider/client/objects';
import { ownerLabels } from '../../provider/client/ownership';
import { LB, SERVER, lb, status, testClient, useNock } from './helpers';

const LB1 = `${LB}/lb1`;
const owner = { resourceType: 'load-balancer', resourceName: 'web' };
const forbidden = () => status(403, 'Forbidden', 'denied');
const stranger = () => lb('lb1', { metadata: { labels: { 'app.kubernetes.io/managed-by': 'someone-else' } } });
const rbacFix = (verb: string) =>
  `Grant that user RBAC permission to ${verb} loadbalancers.loadbalancer.harvesterhci.io in namespace default on the cluster, or use a kubeconfig that has it.`;

describe('resource client: each operation names itself in its errors (nock)', () => {
  useNock();

  const cases: Record<string, { call: (c: Awaited<ReturnType<typeof testClient>>['client']) => Promise<unknown>; mock: () => void; message: string }> = {
    get: {
      mock: () => nock(SERVER).get(LB1).reply(403, forbidden()),
      call: (c) => c.loadBalancers.get('lb1'),
      message: `Cannot read LoadBalancer default/lb1: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('get')}`,
    },
    list: {
      mock: () => nock(SERVER).get(LB).query(true).reply(403, forbidden()),
      call: (c) => c.loadBalancers.list({ namespace: 'default', labelSelector: 'a=b' }),
      message: `Cannot list LoadBalancer objects in namespace default with labels a=b: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('list')}`,
    },
    create: {
      mock: () => nock(SERVER).post(LB).query(true).reply(403, forbidden()),
      call: (c) => c.loadBalancers.create(lb('lb1') as LoadBalancer),
      message: `Cannot create LoadBalancer default/lb1: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('create')}`,
    },
    mergePatch: {
      mock: () => nock(SERVER).patch(LB1).query(true).reply(403, forbidden()),
      call: (c) => c.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }),
      message: `Cannot patch LoadBalancer default/lb1: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('patch')}`,
    },
    apply: {
      mock: () => nock(SERVER).patch(LB1).query(true).reply(403, forbidden()),
      call: (c) => c.loadBalancers.apply(lb('lb1') as LoadBalancer),
      message: `Cannot apply LoadBalancer default/lb1: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('patch and create')}`,
    },
    update: {
      mock: () => {
        nock(SERVER).get(LB1).reply(200, lb('lb1'));
        nock(SERVER).put(LB1).query(true).reply(403, forbidden());
      },
      call: (c) => c.loadBalancers.update('lb1', undefined, (l) => ({ ...l, spec: { ipam: 'dhcp' } })),
      message: `Cannot update LoadBalancer default/lb1: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('update')}`,
    },
    delete: {
      mock: () => nock(SERVER).delete(LB1).reply(403, forbidden()),
      call: (c) => c.loadBalancers.delete('lb1'),
      message: `Cannot delete LoadBalancer default/lb1: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden: denied). ${rbacFix('delete')}`,
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: a 403 names the operation and the permission`, async () => {
      const { client } = await testClient();
      c.mock();
      const err = (await c.call(client).catch((e) => e)) as Error & { code?: string };
      assert.equal(err.code, 'Forbidden');
      assert.equal(err.message, c.message);
    });
  }

  it('update of an object that is gone says the update found nothing', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).reply(404, status(404, 'NotFound', 'x', { name: 'lb1', kind: 'loadbalancers' }));
    const err = await client.loadBalancers.update('lb1', undefined, (l) => l).catch((e) => e);
    assert.equal(err.message, 'Cannot update LoadBalancer default/lb1: it does not exist (404 NotFound). It may have been deleted outside harvester-iac: run `pulumi refresh`, then retry.');
  });

  it('an owned merge patch of an object that is gone says the patch found nothing', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).reply(404, status(404, 'NotFound', 'x', { name: 'lb1', kind: 'loadbalancers' }));
    const err = await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }, { owner }).catch((e) => e);
    assert.equal(err.message, 'Cannot patch LoadBalancer default/lb1: it does not exist (404 NotFound). It may have been deleted outside harvester-iac: run `pulumi refresh`, then retry.');
  });

  it('a watch refused with 403 names the watch and its permission', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query(true).reply(403, forbidden());
    const closed = await new Promise<Error & { code?: string }>((resolve) => {
      client.loadBalancers.watch({ namespace: 'default', labelSelector: 'a=b' }, () => undefined, (err) => resolve(err as Error));
    });
    assert.equal(closed.code, 'Forbidden');
    // client-node's Watch keeps only the status code of a refused watch, not its Status body.
    assert.equal(
      closed.message,
      `Cannot watch LoadBalancer objects in namespace default with labels a=b: the user of kubeconfig context "harvester" is not allowed to (403 Forbidden). ${rbacFix('watch')}`,
    );
  });


  it('ownership refusals name what was refused: apply to, update', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).reply(200, stranger());
    const applied = await client.loadBalancers.apply(lb('lb1') as LoadBalancer, { owner }).catch((e) => e);
    assert.match(applied.message, /^Refusing to apply to LoadBalancer default\/lb1: it is not managed by harvester-iac/);
    nock(SERVER).get(LB1).reply(200, stranger());
    const updated = await client.loadBalancers.update('lb1', undefined, (l) => l, { owner }).catch((e) => e);
    assert.match(updated.message, /^Refusing to update LoadBalancer default\/lb1: it is not managed by harvester-iac/);
  });
});

describe('resource client: delete outcomes (nock)', () => {
  useNock();

  it("with an owner, an object already gone is 'absent' and no DELETE is sent", async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).reply(404, status(404, 'NotFound', 'x', { name: 'lb1', kind: 'loadbalancers' }));
    assert.equal(await client.loadBalancers.delete('lb1', { owner }), 'absent');
  });

  it("with an owner, our object already being deleted is 'deleting' and no second DELETE is sent", async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).reply(200, lb('lb1', { metadata: { labels: ownerLabels(owner), deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x'] } }));
    assert.equal(await client.loadBalancers.delete('lb1', { owner }), 'deleting');
  });

  it("the object returned without a deletionTimestamp (deleted at once) is 'deleted'", async () => {
    const { client } = await testClient();
    nock(SERVER).delete(LB1).reply(200, lb('lb1'));
    assert.equal(await client.loadBalancers.delete('lb1'), 'deleted');
  });
});
