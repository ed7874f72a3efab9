/**
 * Backoff and retry rules: bounded, jittered exponential delays; Retry-After honoured (and clamped); only
 * transient failures retried; a create is never repeated blindly after an ambiguous failure.
 */
import assert from 'node:assert/strict';
import nock from 'nock';
import { AdmissionDeniedError, HarvesterError, UnavailableError } from '../../provider/client/errors';
import { LoadBalancer } from '../../provider/client/objects';
import { ownerLabels } from '../../provider/client/ownership';
import { DEFAULT_RETRY_POLICY, backoffDelay, parseRetryAfter, realSleep, resolvePolicy, retryDelay, withRetry } from '../../provider/client/retry';
import { LB, SERVER, lb, netError, status, testClient, useNock } from './helpers';

const transientErr = (retryAfterMs?: number) =>
  new UnavailableError({ code: 'Unavailable', summary: 'The server failed', transient: true, httpStatus: 503, retryAfterMs });

describe('retry policy (pure)', () => {
  it('grows exponentially from initialDelayMs and is capped at maxDelayMs', () => {
    const p = resolvePolicy({ initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0 });
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, p)), [100, 200, 400, 800, 1000, 1000]);
  });

  it('jitter takes a random part off the top: delay in [d(1-j), d]', () => {
    const p = resolvePolicy({ initialDelayMs: 1000, jitter: 0.5 });
    assert.equal(backoffDelay(1, p, () => 0), 500);
    assert.equal(backoffDelay(1, p, () => 0.999999), 1000);
    for (let i = 0; i < 50; i++) {
      const d = backoffDelay(3, p);
      assert.ok(d >= 2000 && d <= 4000, `delay ${d}`);
    }
  });

  it('Retry-After raises the delay to what the server asked, clamped to maxRetryAfterMs', () => {
    const p = resolvePolicy({ initialDelayMs: 100, jitter: 0, maxRetryAfterMs: 5000 });
    assert.equal(retryDelay(1, p, 3000), 3000);
    assert.equal(retryDelay(1, p, 50), 100, 'never below the backoff');
    assert.equal(retryDelay(1, p, 120_000), 5000, 'clamped');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter('0.5'), 500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a past date means now');
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(parseRetryAfter(null), undefined);
  });

  it('reads delta-seconds whole: several digits, decimals, padding; nothing before or after', () => {
    // Date.parse reads "12" and " 3 " as calendar dates, so these only pass through the delta-seconds rule.
    assert.equal(parseRetryAfter('12'), 12_000);
    assert.equal(parseRetryAfter(' 3 '), 3000);
    assert.equal(parseRetryAfter('0.25'), 250);
    assert.equal(parseRetryAfter('3x'), undefined);
    assert.equal(parseRetryAfter('x3'), undefined);
  });

  it('rejects nonsensical policies with the field name', () => {
    assert.throws(() => resolvePolicy({ maxAttempts: 0 }), /maxAttempts \(0\) must be at least 1/);
    assert.throws(() => resolvePolicy({ jitter: 2 }), /jitter \(2\) must be between 0 and 1/);
    assert.throws(() => resolvePolicy({ initialDelayMs: -1 }), /initialDelayMs/);
    assert.throws(() => resolvePolicy({ initialDelayMs: -1, multiplier: Number.NaN }), /retry policy: initialDelayMs, multiplier must be a finite number >= 0/);
    assert.equal(resolvePolicy({ maxAttempts: 1 }).maxAttempts, 1, 'one attempt (no retry) is a valid policy');
    assert.equal(resolvePolicy({ jitter: 1 }).jitter, 1);
  });

  it('the real sleep waits at least the time asked (and a negative time is no time)', async () => {
    const t0 = process.hrtime.bigint();
    await realSleep(40);
    assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 >= 35, 'woke too early');
    await realSleep(-5);
  });

  it('defaults are bounded: 6 attempts, at most 10 s apart', () => {
    assert.equal(DEFAULT_RETRY_POLICY.maxAttempts, 6);
    assert.equal(DEFAULT_RETRY_POLICY.maxDelayMs, 10_000);
  });
});

describe('withRetry', () => {
  it('retries transient errors with the computed delays, then succeeds', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw transientErr();
        return 'ok';
      },
      { policy: resolvePolicy({ jitter: 0 }), sleep: async (ms) => void sleeps.push(ms), describe: 'test' },
    );
    assert.equal(result, 'ok');
    assert.deepEqual(sleeps, [250, 500]);
  });

  it('logs each retry with the operation, delay, error code, HTTP status and attempt', async () => {
    const lines: string[] = [];
    const logger = { debug: (m: string) => void lines.push(m), info() {}, warn() {}, error() {} };
    let calls = 0;
    await withRetry(
      async () => {
        if (++calls === 1) throw transientErr();
        if (calls === 2) throw new HarvesterError({ code: 'Timeout', summary: 'timed out', transient: true });
        return 'ok';
      },
      { policy: resolvePolicy({ jitter: 0, maxAttempts: 4 }), sleep: async () => {}, describe: 'get LoadBalancer default/lb1', logger },
    );
    assert.deepEqual(lines, [
      'retrying get LoadBalancer default/lb1 in 250ms after Unavailable (503) (attempt 1/4)',
      'retrying get LoadBalancer default/lb1 in 500ms after Timeout (attempt 2/4)',
    ]);
  });

  it('stops at maxAttempts and reports the count', async () => {
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw transientErr();
      },
      { policy: resolvePolicy({ maxAttempts: 3 }), sleep: async () => {}, describe: 'test' },
    ).catch((e) => e);
    assert.equal(calls, 3);
    assert.ok(err instanceof HarvesterError);
    assert.equal(err.attempts, 3);
    assert.match(err.message, /Gave up after 3 attempts\./);
    assert.match(err.stack ?? '', /Gave up after 3 attempts/);
  });

  it('does not retry permanent errors or foreign exceptions', async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(async () => {
        calls++;
        throw new HarvesterError({ code: 'Invalid', summary: 'bad' });
      }, { policy: resolvePolicy(), sleep: async () => assert.fail('slept'), describe: 'x' }),
      (e: HarvesterError) => e.code === 'Invalid',
    );
    await assert.rejects(
      withRetry(async () => {
        calls++;
        throw new TypeError('bug');
      }, { policy: resolvePolicy(), sleep: async () => assert.fail('slept'), describe: 'x' }),
      TypeError,
    );
    assert.equal(calls, 2);
  });
});

describe('retries over HTTP (nock)', () => {
  useNock();
  const LB1 = `${LB}/lb1`;

  it('a 503 burst is ridden out with exponential backoff', async () => {
    const { client, sleeps, logger } = await testClient({ maxAttempts: 5 });
    nock(SERVER).get(LB1).times(3).reply(503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'));
    nock(SERVER).get(LB1).reply(200, lb('lb1'));
    const got = await client.loadBalancers.get('lb1');
    assert.equal(got?.metadata.name, 'lb1');
    assert.deepEqual(sleeps, [250, 500, 1000]);
    assert.equal(logger.lines.filter((l) => /retrying get LoadBalancer default\/lb1/.test(l.message)).length, 3);
  });

  it('429 with Retry-After waits at least that long (header or details.retryAfterSeconds)', async () => {
    const { client, sleeps } = await testClient();
    nock(SERVER).get(LB1).reply(429, 'Too many requests, please try again later.\n', { 'Content-Type': 'text/plain', 'Retry-After': '3' });
    nock(SERVER).get(LB1).reply(429, status(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 7 }));
    nock(SERVER).get(LB1).reply(200, lb('lb1'));
    await client.loadBalancers.get('lb1');
    assert.deepEqual(sleeps, [3000, 7000]);
  });

  it('422 is not retried', async () => {
    const { client, sleeps } = await testClient();
    nock(SERVER).patch(LB1).query(true).once().reply(422, status(422, 'Invalid', 'bad', { name: 'lb1', causes: [] }));
    await assert.rejects(client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'x' } }), { code: 'Invalid' });
    assert.deepEqual(sleeps, []);
  });

  describe('admission webhook denials are never retried, whatever their status', () => {
    const LB_HOOK = 'validator.harvester-system.harvester-load-balancer-webhook';
    // 500 as wrangler's webhook router relays the load-balancer webhook's error; 400/422 as Harvester's own
    // webhook relays its typed errors.
    const denials: [string, number, string, string][] = [
      ['500 InternalError (load-balancer webhook via wrangler)', 500, 'InternalError', `admission webhook "${LB_HOOK}" denied the request: Internal error occurred: update loadbalancer default/lb1 failed: can't change the IPAM from pool to dhcp`],
      ['400 BadRequest', 400, 'BadRequest', `admission webhook "${LB_HOOK}" denied the request: update loadbalancer default/lb1 failed: can't change the IPAM from pool to dhcp`],
      ['422 Invalid (Harvester werror.NewInvalidError)', 422, 'Invalid', 'admission webhook "validator.harvesterhci.io" denied the request: update loadbalancer default/lb1 failed: can\'t change the IPAM from pool to dhcp'],
    ];
    for (const [label, code, reason, message] of denials) {
      it(label, async () => {
        const { client, sleeps } = await testClient();
        let requests = 0;
        nock(SERVER).patch(LB1).query(true).times(6).reply(() => {
          requests++;
          return [code, status(code, reason, message)];
        });
        const err = await client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }).then(
          () => assert.fail('the patch should be denied'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof AdmissionDeniedError, String(err));
        assert.equal(err.code, 'AdmissionDenied');
        assert.equal(err.transient, false);
        assert.equal(err.httpStatus, code);
        assert.equal(err.reason, "update loadbalancer default/lb1 failed: can't change the IPAM from pool to dhcp");
        assert.match(err.message, /denied the patch of LoadBalancer default\/lb1: update loadbalancer default\/lb1 failed: can't change the IPAM from pool to dhcp/);
        assert.doesNotMatch(err.message, /Internal error occurred|Gave up after/);
        assert.equal(requests, 1, 'exactly one request');
        assert.deepEqual(sleeps, []);
        nock.cleanAll();
      });
    }

    it('a plain 500 without the denial text is still retried', async () => {
      const { client, sleeps } = await testClient({ maxAttempts: 3 });
      nock(SERVER).get(LB1).times(2).reply(500, status(500, 'InternalError', 'Internal error occurred: etcdserver: leader changed'));
      nock(SERVER).get(LB1).reply(200, lb('lb1'));
      assert.equal((await client.loadBalancers.get('lb1'))?.metadata.name, 'lb1');
      assert.equal(sleeps.length, 2);
    });
  });

  describe('create is never repeated blindly', () => {
    const owner = { resourceType: 'load-balancer', resourceName: 'web' };
    const desired = () => lb('lb1', { metadata: { labels: { app: 'web' } } }) as LoadBalancer;
    const live = () => lb('lb1', { metadata: { labels: { app: 'web', ...ownerLabels(owner) } }, status: { address: '10.0.0.5' } });

    it('after a 503 the object is read back; if our create landed, it is returned and not POSTed again', async () => {
      const { client } = await testClient();
      let posts = 0;
      nock(SERVER)
        .post(LB)
        .query(true)
        .reply(() => {
          posts++;
          return [503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request')];
        });
      nock(SERVER).get(LB1).reply(200, live());
      const got = await client.loadBalancers.create(desired(), { owner });
      assert.equal(posts, 1);
      assert.equal(got.status?.address, '10.0.0.5');
    });

    it('after a connection reset and an empty read-back, the create is sent again', async () => {
      const { client } = await testClient();
      nock(SERVER).post(LB).query(true).replyWithError(netError('ECONNRESET', 'socket hang up'));
      nock(SERVER).get(LB1).reply(404, status(404, 'NotFound', 'loadbalancers.loadbalancer.harvesterhci.io "lb1" not found', { name: 'lb1', kind: 'loadbalancers' }));
      nock(SERVER)
        .post(LB, (body) => body.metadata.labels['app.kubernetes.io/managed-by'] === 'harvester-iac' && body.status === undefined)
        .query({ fieldManager: 'harvester-iac' })
        .reply(201, live());
      const got = await client.loadBalancers.create(desired(), { owner });
      assert.equal(got.metadata.name, 'lb1');
    });

    it('after a 429 the POST is repeated directly (the server did no work)', async () => {
      const { client, sleeps } = await testClient();
      nock(SERVER).post(LB).query(true).reply(429, 'Too many requests, please try again later.\n', { 'Retry-After': '1' });
      nock(SERVER).post(LB).query(true).reply(201, live());
      await client.loadBalancers.create(desired(), { owner });
      assert.deepEqual(sleeps, [1000]);
    });

    it('409 AlreadyExists with our own equivalent object returns it (idempotent create)', async () => {
      const { client, sleeps } = await testClient();
      nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'loadbalancers.loadbalancer.harvesterhci.io "lb1" already exists', { name: 'lb1', kind: 'loadbalancers' }));
      nock(SERVER).get(LB1).reply(200, live());
      const got = await client.loadBalancers.create(desired(), { owner });
      assert.equal(got.metadata.uid, 'uid-lb1');
      assert.deepEqual(sleeps, []);
    });

    it('409 AlreadyExists with our object but different content says where it differs', async () => {
      const { client } = await testClient();
      nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'x', { name: 'lb1', kind: 'loadbalancers' }));
      const other = live() as { spec: { ipam: string } };
      other.spec.ipam = 'dhcp';
      nock(SERVER).get(LB1).reply(200, other);
      const err = await client.loadBalancers.create(desired(), { owner }).catch((e) => e);
      assert.equal(err.code, 'AlreadyExists');
      assert.match(err.message, /differs at spec\.ipam \(live "dhcp", wanted "pool"\)/);
      assert.match(err.fix, /pulumi refresh/);
    });

    it('after a 503, our create is recognised although a webhook appended to its lists (Harvester\'s VM affinity term)', async () => {
      const { client } = await testClient();
      const VMS = '/apis/kubevirt.io/v1/namespaces/default/virtualmachines';
      const pool = { resourceType: 'machine-pool', resourceName: 'pool-a' };
      const zone = { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] };
      const vm = (exprs: object[]) => ({
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'pool-a-0', namespace: 'default', labels: ownerLabels(pool) },
        spec: { template: { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: exprs }] } } } } } },
      });
      let posts = 0;
      nock(SERVER).post(VMS).query(true).reply(() => {
        posts++;
        return [503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request')];
      });
      const served = vm([zone, { key: 'network.harvesterhci.io/mgmt', operator: 'In', values: ['true'] }]);
      nock(SERVER).get(`${VMS}/pool-a-0`).reply(200, { ...served, metadata: { ...served.metadata, uid: 'vm-uid', resourceVersion: '7' } });
      const got = await client.virtualMachines.create(vm([zone]) as never, { owner: pool });
      assert.equal(posts, 1);
      assert.equal(got.metadata.uid, 'vm-uid');
    });

    it('409 AlreadyExists with our object missing an entry of a list still says where it differs', async () => {
      const { client } = await testClient();
      nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'x', { name: 'lb1', kind: 'loadbalancers' }));
      const fewer = live() as { spec: { listeners: unknown[] } };
      const wanted = desired() as unknown as { spec: { listeners: unknown[] } };
      wanted.spec.listeners.push({ name: 'https', port: 443, protocol: 'TCP', backendPort: 8443 });
      nock(SERVER).get(LB1).reply(200, fewer);
      const err = await client.loadBalancers.create(wanted as never, { owner }).catch((e) => e);
      assert.equal(err.code, 'AlreadyExists');
      assert.match(err.message, /differs at spec\.listeners/);
    });

    it('409 AlreadyExists on an object still being deleted says to wait', async () => {
      const { client } = await testClient();
      nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'x', { name: 'lb1', kind: 'loadbalancers' }));
      const dying = live() as { metadata: Record<string, unknown> };
      dying.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      dying.metadata.finalizers = ['wrangler.cattle.io/harvester-lb-controller'];
      nock(SERVER).get(LB1).reply(200, dying);
      const err = await client.loadBalancers.create(desired(), { owner }).catch((e) => e);
      assert.equal(err.code, 'AlreadyExists');
      assert.match(err.message, /still being deleted \(finalizers: wrangler\.cattle\.io\/harvester-lb-controller\)/);
    });
  });
});
