/**
 * Every Status the API can answer maps to one typed error that names the object, keeps the causes and gives
 * a fix. Recorded shapes: docs/design/kube-api-errors.md (§"Status shapes", §"How clients react").
 */
import assert from 'node:assert/strict';
import nock from 'nock';
import {
  AdmissionDeniedError,
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  HarvesterError,
  InvalidError,
  NotFoundError,
  TimeoutError,
  TlsError,
  TokenExpiredError,
  TooManyRequestsError,
  UnauthorizedError,
  UnavailableError,
} from '../../provider/client/errors';
import { LoadBalancer } from '../../provider/client/objects';
import { LB, netError, RANCHER_PATH, RANCHER_SERVER, SERVER, TOKEN, kubeconfigYaml, lb, status, testClient, useNock } from './helpers';

type Case = {
  reason: string;
  reply: (scope: nock.Interceptor) => nock.Scope;
  call?: 'patch' | 'get' | 'create';
  want: { cls: new (...args: never[]) => HarvesterError; code: string; httpStatus?: number; message: RegExp[] };
};

const LB1 = `${LB}/lb1`;

const cases: Record<string, Case> = {
  'admission webhook denial (500, as wrangler\'s router relays the load-balancer webhook)': {
    reason: 'the webhook\'s reason reaches the user without the InternalError wrapping, and is not retried',
    reply: (s) => s.reply(500, status(500, 'InternalError', 'admission webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: listener port 80 is duplicated')),
    want: { cls: AdmissionDeniedError, code: 'AdmissionDenied', httpStatus: 500, message: [/LoadBalancer default\/lb1/, /webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the patch of LoadBalancer default\/lb1: listener port 80 is duplicated\./] },
  },
  'admission webhook denial (400, Harvester werror.NewBadRequest)': {
    reason: 'the same kind whatever the status',
    reply: (s) => s.reply(400, status(400, 'BadRequest', 'admission webhook "validator.harvesterhci.io" denied the request: there is vmbackup in progress')),
    want: { cls: AdmissionDeniedError, code: 'AdmissionDenied', httpStatus: 400, message: [/webhook "validator.harvesterhci.io" denied the patch of LoadBalancer default\/lb1: there is vmbackup in progress/] },
  },
  'strategic merge on a CRD (415)': {
    reason: 'a wrong patch type is our bug, and says so',
    reply: (s) => s.reply(415, status(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml')),
    want: { cls: BadRequestError, code: 'UnsupportedMediaType', httpStatus: 415, message: [/harvester-iac bug/] },
  },
  'RBAC refusal (403)': {
    reason: 'names the user context, the verb, the resource and the namespace to grant',
    reply: (s) =>
      s.reply(403, status(403, 'Forbidden', 'loadbalancers.loadbalancer.harvesterhci.io "lb1" is forbidden: User "u" cannot patch resource "loadbalancers" in API group "loadbalancer.harvesterhci.io" in the namespace "default"', { name: 'lb1', group: 'loadbalancer.harvesterhci.io', kind: 'loadbalancers' })),
    want: { cls: ForbiddenError, code: 'Forbidden', httpStatus: 403, message: [/context "harvester"/, /permission to patch loadbalancers\.loadbalancer\.harvesterhci\.io in namespace default/] },
  },
  'object missing on patch (404)': {
    reason: 'a patch of a missing object is NotFound with the refresh hint',
    reply: (s) => s.reply(404, status(404, 'NotFound', 'loadbalancers.loadbalancer.harvesterhci.io "lb1" not found', { name: 'lb1', group: 'loadbalancer.harvesterhci.io', kind: 'loadbalancers' })),
    want: { cls: NotFoundError, code: 'NotFound', httpStatus: 404, message: [/does not exist/, /pulumi refresh/] },
  },
  'API not served (404 without details)': {
    reason: 'an unknown path means the kubeconfig points at the wrong cluster, even for get',
    call: 'get',
    reply: (s) => s.reply(404, status(404, 'NotFound', 'the server could not find the requested resource', {})),
    want: { cls: NotFoundError, code: 'NotFound', httpStatus: 404, message: [/loadbalancer\.harvesterhci\.io\/v1beta1 loadbalancers is not served/, /Harvester cluster/] },
  },
  'stale resourceVersion (409 Conflict)': {
    reason: 'a precondition failure is a Conflict that is not retried',
    reply: (s) =>
      s.reply(409, status(409, 'Conflict', 'Operation cannot be fulfilled on loadbalancers.loadbalancer.harvesterhci.io "lb1": the object has been modified; please apply your changes to the latest version and try again', { name: 'lb1', kind: 'loadbalancers' })),
    want: { cls: ConflictError, code: 'Conflict', httpStatus: 409, message: [/changed by someone else/, /kubectl get loadbalancers\.loadbalancer\.harvesterhci\.io lb1/] },
  },
  'validation (422 Invalid with causes)': {
    reason: 'each cause keeps its field and message, and the message lists them',
    reply: (s) =>
      s.reply(
        422,
        status(422, 'Invalid', 'LoadBalancer.loadbalancer.harvesterhci.io "lb1" is invalid: [spec.ipam: Unsupported value: "foo": supported values: "pool", "dhcp", spec.listeners[0].port: Required value]', {
          name: 'lb1',
          group: 'loadbalancer.harvesterhci.io',
          kind: 'LoadBalancer',
          causes: [
            { reason: 'FieldValueNotSupported', message: 'Unsupported value: "foo": supported values: "pool", "dhcp"', field: 'spec.ipam' },
            { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.listeners[0].port' },
          ],
        }),
      ),
    want: { cls: InvalidError, code: 'Invalid', httpStatus: 422, message: [/spec\.ipam: Unsupported value: "foo"/, /spec\.listeners\[0\]\.port: Required value/, /Correct the field/] },
  },
  'expired Rancher token (401)': {
    reason: 'a rejected token says expired or revoked and names harvester#5827 and the renewal',
    reply: (s) => s.reply(401, status(401, 'Unauthorized', 'Unauthorized')),
    want: { cls: TokenExpiredError, code: 'TokenExpired', httpStatus: 401, message: [/expired or been revoked/, /kubeconfig-default-token-ttl-minutes/, /harvester\/harvester#5827/, /renew/] },
  },
};

describe('client error mapping (nock)', () => {
  useNock();

  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.reason}`, async () => {
      const { client, sleeps } = await testClient();
      const scope = nock(SERVER);
      const call = c.call ?? 'patch';
      c.reply(call === 'get' ? scope.get(LB1) : scope.patch(LB1).query(true));
      const err = await (call === 'get' ? client.loadBalancers.get('lb1', 'default') : client.loadBalancers.mergePatch('lb1', { spec: { ipam: 'dhcp' } }, { namespace: 'default' })).then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof c.want.cls, `${String(err)} is not a ${c.want.cls.name}`);
      const he = err as HarvesterError;
      assert.equal(he.code, c.want.code);
      assert.equal(he.httpStatus, c.want.httpStatus);
      assert.equal(he.object, 'LoadBalancer default/lb1');
      assert.ok(he.fix, 'has a fix');
      for (const re of c.want.message) assert.match(he.message, re);
      assert.deepEqual(sleeps, [], 'permanent errors are not retried');
    });
  }

  it('422 keeps the causes as structured data', async () => {
    const { client } = await testClient();
    cases['validation (422 Invalid with causes)'].reply(nock(SERVER).patch(LB1).query(true));
    const err = (await client.loadBalancers.mergePatch('lb1', { spec: {} }).catch((e) => e)) as InvalidError;
    assert.deepEqual(
      err.causes.map((c) => [c.reason, c.field]),
      [
        ['FieldValueNotSupported', 'spec.ipam'],
        ['FieldValueRequired', 'spec.listeners[0].port'],
      ],
    );
  });

  it('401 with a client certificate is Unauthorized, not TokenExpired', async () => {
    const kubeconfig = kubeconfigYaml().replace(/    token: .*\n/, `    client-certificate-data: ${Buffer.from('cert').toString('base64')}\n    client-key-data: ${Buffer.from('key-material-here').toString('base64')}\n`);
    const { client } = await testClient({ kubeconfig });
    nock(SERVER).get(LB1).reply(401, status(401, 'Unauthorized', 'Unauthorized'));
    const err = await client.loadBalancers.get('lb1').catch((e) => e);
    assert.ok(err instanceof UnauthorizedError);
    assert.ok(!(err instanceof TokenExpiredError));
    assert.equal(err.code, 'Unauthorized');
    assert.match(err.message, /client-certificate/);
  });

  it('401 behind Rancher names the Rancher-issued kubeconfig as the cause', async () => {
    const { client } = await testClient({ kubeconfig: kubeconfigYaml({ server: `${RANCHER_SERVER}${RANCHER_PATH}` }) });
    nock(RANCHER_SERVER).get(`${RANCHER_PATH}${LB1}`).reply(401, 'Unauthorized');
    const err = await client.loadBalancers.get('lb1').catch((e) => e);
    assert.equal(err.code, 'TokenExpired');
    assert.match(err.message, /issued by Rancher/);
    assert.match(err.message, new RegExp(`${RANCHER_SERVER}${RANCHER_PATH}`.replace(/[./]/g, '\\$&')));
  });

  describe('expired-token message: the Rancher-issued and the plain kubeconfig each say their own thing', () => {
    const RANCHER_SAYS = /This kubeconfig was issued by Rancher: its tokens expire \(kubeconfig-default-token-ttl-minutes, Rancher ≥ 2\.8; harvester\/harvester#5827\), which also breaks Rancher cloud credentials for Harvester\./;
    const PLAIN_SAYS = /If this kubeconfig was issued by Rancher, its tokens expire \(kubeconfig-default-token-ttl-minutes, Rancher ≥ 2\.8; harvester\/harvester#5827\)\./;
    async function expiredMessage(server: string, path: string, token: string): Promise<string> {
      const { client } = await testClient({ kubeconfig: kubeconfigYaml({ server: `${server}${path}`, token }) });
      nock(server).get(`${path}${LB1}`).reply(401, status(401, 'Unauthorized', 'Unauthorized'));
      const err = await client.loadBalancers.get('lb1').then(() => assert.fail('expected an error'), (e: unknown) => e);
      assert.ok(err instanceof TokenExpiredError, String(err));
      assert.ok(!err.message.includes(token), 'never the token');
      return err.message;
    }

    it('a Rancher URL (/k8s/clusters/<id>) with a plain token: the Rancher variant', async () => {
      const message = await expiredMessage(RANCHER_SERVER, RANCHER_PATH, 'eyJhbGciOiJSUzI1NiJ9.plainserviceaccount');
      assert.match(message, RANCHER_SAYS);
      assert.doesNotMatch(message, /If this kubeconfig/);
    });

    it('a Rancher token (kubeconfig-u-…:…) on a direct server URL: the Rancher variant', async () => {
      const message = await expiredMessage(SERVER, '', TOKEN);
      assert.match(message, RANCHER_SAYS);
      assert.doesNotMatch(message, /If this kubeconfig/);
    });

    it('a plain token on a direct server URL: the conditional variant, without the cloud-credentials claim', async () => {
      const message = await expiredMessage(SERVER, '', 'eyJhbGciOiJSUzI1NiJ9.plainserviceaccount');
      assert.match(message, PLAIN_SAYS);
      assert.doesNotMatch(message, /This kubeconfig was issued by Rancher/);
      assert.doesNotMatch(message, /cloud credentials for Harvester/);
    });
  });

  it('create into a missing namespace names the namespace', async () => {
    const { client } = await testClient();
    nock(SERVER)
      .post('/apis/loadbalancer.harvesterhci.io/v1beta1/namespaces/nope/loadbalancers')
      .query(true)
      .reply(404, status(404, 'NotFound', 'namespaces "nope" not found', { name: 'nope', kind: 'namespaces' }));
    const err = await client.loadBalancers.create(lb('lb1', { metadata: { namespace: 'nope' } }) as LoadBalancer).catch((e) => e);
    assert.ok(err instanceof NotFoundError);
    assert.match(err.message, /namespace "nope" does not exist/);
    assert.match(err.fix!, /Create namespace nope/);
  });

  it('create over a name that is taken by an object we do not own is NotOwned (re-read after 409)', async () => {
    const { client } = await testClient();
    nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'loadbalancers.loadbalancer.harvesterhci.io "lb1" already exists', { name: 'lb1', kind: 'loadbalancers' }));
    nock(SERVER).get(LB1).reply(200, lb('lb1'));
    const err = await client.loadBalancers.create(lb('lb1') as LoadBalancer, { owner: { resourceType: 'load-balancer', resourceName: 'web' } }).catch((e) => e);
    assert.equal(err.code, 'NotOwned');
    assert.equal(err.object, 'LoadBalancer default/lb1');
    assert.match(err.message, /not managed by harvester-iac/);
    assert.match(err.fix, /kubectl label -n default loadbalancer lb1 --overwrite app\.kubernetes\.io\/managed-by=harvester-iac/);
  });

  it('409 AlreadyExists without an owner identity stays AlreadyExists', async () => {
    const { client } = await testClient();
    nock(SERVER).post(LB).query(true).reply(409, status(409, 'AlreadyExists', 'loadbalancers.loadbalancer.harvesterhci.io "lb1" already exists', { name: 'lb1', kind: 'loadbalancers' }));
    nock(SERVER).get(LB1).reply(200, lb('lb1'));
    const err = await client.loadBalancers.create(lb('lb1') as LoadBalancer).catch((e) => e);
    assert.ok(err instanceof AlreadyExistsError);
    assert.equal(err.httpStatus, 409);
  });

  it('server-side apply field conflicts list each field and its manager', async () => {
    const { client } = await testClient();
    nock(SERVER)
      .patch(LB1)
      .query(true)
      .reply(409, status(409, 'Conflict', 'Apply failed with 1 conflict: conflict with "kubectl": .spec.ipam', { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.ipam' }] }));
    const err = await client.loadBalancers.apply(lb('lb1') as LoadBalancer).catch((e) => e);
    assert.ok(err instanceof ConflictError);
    assert.equal(err.causes[0].reason, 'FieldManagerConflict');
    assert.equal(err.causes[0].field, '.spec.ipam');
    assert.match(err.message, /\.spec\.ipam \(conflict with "kubectl"\)/);
    assert.match(err.fix ?? "", /force/);
  });

  const transient: Record<string, { reply: (s: nock.Interceptor) => nock.Scope; cls: new (...a: never[]) => HarvesterError; code: string }> = {
    '429 (APF, text/plain)': { reply: (s) => s.reply(429, 'Too many requests, please try again later.\n', { 'Content-Type': 'text/plain', 'Retry-After': '1' }), cls: TooManyRequestsError, code: 'TooManyRequests' },
    '500 InternalError': { reply: (s) => s.reply(500, status(500, 'InternalError', 'Internal error occurred: etcdserver: leader changed', { causes: [{ message: 'etcdserver: leader changed' }] })), cls: UnavailableError, code: 'Unavailable' },
    '503 ServiceUnavailable': { reply: (s) => s.reply(503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request')), cls: UnavailableError, code: 'Unavailable' },
    '504 Timeout': { reply: (s) => s.reply(504, status(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {})), cls: TimeoutError, code: 'Timeout' },
    'connection reset': { reply: (s) => s.replyWithError(netError('ECONNRESET', 'socket hang up')), cls: UnavailableError, code: 'Unavailable' },
  };
  for (const [name, c] of Object.entries(transient)) {
    it(`${name} is transient: retried, then surfaced with the attempt count`, async () => {
      const { client, sleeps } = await testClient({ maxAttempts: 3 });
      c.reply(nock(SERVER).get(LB1).times(3));
      const err = await client.loadBalancers.get('lb1').catch((e) => e);
      assert.ok(err instanceof c.cls, String(err));
      assert.equal(err.code, c.code);
      assert.equal(err.transient, true);
      assert.equal(err.attempts, 3);
      assert.match(err.message, /Gave up after 3 attempts/);
      assert.equal(sleeps.length, 2);
    });
  }

  it('an unknown host is not retried and points at the server URL', async () => {
    const { client, sleeps } = await testClient();
    nock(SERVER).get(LB1).replyWithError(netError('ENOTFOUND', 'getaddrinfo ENOTFOUND harvester.test'));
    const err = await client.loadBalancers.get('lb1').catch((e) => e);
    assert.equal(err.code, 'Unavailable');
    assert.equal(err.transient, false);
    assert.match(err.fix, /server URL of kubeconfig context "harvester"/);
    assert.deepEqual(sleeps, []);
  });

  it('a certificate that cannot be verified is a TlsError with the two fixes', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB1).replyWithError(netError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'));
    const err = await client.loadBalancers.get('lb1').catch((e) => e);
    assert.ok(err instanceof TlsError);
    assert.match(err.fix ?? "", /certificate-authority-data/);
    assert.match(err.fix ?? "", /insecure-skip-tls-verify/);
  });
});
