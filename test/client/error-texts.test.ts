/**
 * The exact text of every error the client maps, one row per branch: the words a user reads are the interface.
 * Each row is a thrown value as client-node (ApiException `.code`/`.body`/`.headers`, a watch's `statusCode`)
 * or the network layer (`code`, `errno`, `cause.code`, AbortError) produces it, and the request it was about.
 */
import assert from 'node:assert/strict';
import { fromApiException, RequestTarget } from '../../provider/client/from-api-exception';
import type { ConnectionInfo } from '../../provider/client/kube-config';
import { KINDS } from '../../provider/client/kinds';

const conn: ConnectionInfo = { server: 'https://h:6443', context: 'hv', auth: 'token', rancher: false, insecure: false };
const st = (code: number, reason: string, message: string, details?: Record<string, unknown>) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, ...(details ? { details } : {}) });
const lb: RequestTarget = { verb: 'patch', kind: KINDS.LoadBalancer, namespace: 'default', name: 'lb1' };

interface Want {
  cls: string;
  code: string;
  httpStatus?: number;
  transient: boolean;
  retryAfterMs?: number;
  message: string;
}
type Row = [unknown, RequestTarget, Want] | [unknown, RequestTarget, Partial<ConnectionInfo>, Want];

const rows: Record<string, Row> = {
  "400 with reason": [{ code: 400, body: st(400, 'BadRequest', 'bad field') }, lb, {"cls":"BadRequestError","code":"BadRequest","httpStatus":400,"transient":false,"message":"Harvester refused to patch LoadBalancer default/lb1 (400 BadRequest: bad field). Change the input the message names."}],
  "400 plain text body, padded": [{ code: 400, body: '  not json  ' }, lb, {"cls":"BadRequestError","code":"BadRequest","httpStatus":400,"transient":false,"message":"Harvester refused to patch LoadBalancer default/lb1 (400 BadRequest: not json). Change the input the message names."}],
  "400 with a body that only looks like JSON": [{ code: 400, body: '{not json' }, lb, {"cls":"BadRequestError","code":"BadRequest","httpStatus":400,"transient":false,"message":"Harvester refused to patch LoadBalancer default/lb1 (400 BadRequest: {not json). Change the input the message names."}],
  "405 without body": [{ code: 405 }, lb, {"cls":"BadRequestError","code":"MethodNotAllowed","httpStatus":405,"transient":false,"message":"Harvester refused to patch LoadBalancer default/lb1 (405 MethodNotAllowed). This is a harvester-iac bug (wrong request type for this API); please report it with this message."}],
  "403 cluster-scoped list": [{ code: 403, body: st(403, 'Forbidden', 'no') }, { verb: 'list', kind: KINDS.IPPool, labelSelector: 'a=b' }, {"cls":"ForbiddenError","code":"Forbidden","httpStatus":403,"transient":false,"message":"Cannot list IPPool objects with labels a=b: the user of kubeconfig context \"hv\" is not allowed to (403 Forbidden: no). Grant that user RBAC permission to list ippools.loadbalancer.harvesterhci.io on the cluster, or use a kubeconfig that has it."}],
  "403 namespaced": [{ code: 403 }, { verb: 'get', kind: KINDS.LoadBalancer, namespace: 'ns1', name: 'x' }, {"cls":"ForbiddenError","code":"Forbidden","httpStatus":403,"transient":false,"message":"Cannot read LoadBalancer ns1/x: the user of kubeconfig context \"hv\" is not allowed to (403 Forbidden). Grant that user RBAC permission to get loadbalancers.loadbalancer.harvesterhci.io in namespace ns1 on the cluster, or use a kubeconfig that has it."}],
  "403 namespaced kind without namespace": [{ code: 403 }, { verb: 'list', kind: KINDS.LoadBalancer }, {"cls":"ForbiddenError","code":"Forbidden","httpStatus":403,"transient":false,"message":"Cannot list LoadBalancer objects: the user of kubeconfig context \"hv\" is not allowed to (403 Forbidden). Grant that user RBAC permission to list loadbalancers.loadbalancer.harvesterhci.io on the cluster, or use a kubeconfig that has it."}],
  "409 AlreadyExists": [{ code: 409, body: st(409, 'AlreadyExists', 'exists') }, { ...lb, verb: 'create' }, {"cls":"AlreadyExistsError","code":"AlreadyExists","httpStatus":409,"transient":false,"message":"Cannot create LoadBalancer default/lb1: an object with that name already exists (409 AlreadyExists). Choose another name, or delete the existing object first."}],
  "409 field manager conflicts": [{ code: 409, body: st(409, 'Conflict', 'conflict', { causes: [{ reason: 'FieldManagerConflict', field: '.spec.a', message: 'conflict with "kubectl"' }, { reason: 'FieldManagerConflict', message: 'conflict with "x"' }] }) }, { ...lb, verb: 'apply' }, {"cls":"ConflictError","code":"Conflict","httpStatus":409,"transient":false,"message":"Server-side apply of LoadBalancer default/lb1 conflicts with fields owned by other writers (409 Conflict): .spec.a (conflict with \"kubectl\"), ? (conflict with \"x\"). Stop the other writer from managing these fields, or apply with force to take them over."}],
  "409 conflict with a non-manager cause": [{ code: 409, body: st(409, 'Conflict', 'changed', { causes: [{ reason: 'Other', message: 'm' }] }) }, lb, {"cls":"ConflictError","code":"Conflict","httpStatus":409,"transient":false,"message":"Cannot patch LoadBalancer default/lb1: it was changed by someone else after it was read (409 Conflict: changed). Run the operation again; if this repeats, another controller keeps changing the object — see who with `kubectl get loadbalancers.loadbalancer.harvesterhci.io lb1 -n default --show-managed-fields -o yaml`."}],
  "409 conflict unnamed list": [{ code: 409 }, { verb: 'update', kind: KINDS.IPPool }, {"cls":"ConflictError","code":"Conflict","httpStatus":409,"transient":false,"message":"Cannot update IPPool objects: it was changed by someone else after it was read (409 Conflict). Run the operation again; if this repeats, another controller keeps changing the object — see who with `kubectl get ippools.loadbalancer.harvesterhci.io --show-managed-fields -o yaml`."}],
  "410": [{ code: 410, body: st(410, 'Expired', 'too old resource version') }, { verb: 'watch', kind: KINDS.LoadBalancer, namespace: 'default' }, {"cls":"ExpiredError","code":"Expired","httpStatus":410,"transient":false,"message":"The watch of LoadBalancer objects in namespace default used a resourceVersion the server no longer keeps (410 Expired: too old resource version). List again from the current state."}],
  "422 causes": [{ code: 422, body: st(422, 'Invalid', 'x', { causes: [{ field: 'spec.a', message: 'bad' }, { message: 'worse' }, { field: 'spec.c' }] }) }, lb, {"cls":"InvalidError","code":"Invalid","httpStatus":422,"transient":false,"message":"Harvester rejected the patch of LoadBalancer default/lb1 as invalid (422 Invalid): spec.a: bad; worse; spec.c. Correct the field(s) named above in the resource inputs."}],
  "422 text only": [{ code: 422, body: st(422, 'Invalid', 'only text') }, lb, {"cls":"InvalidError","code":"Invalid","httpStatus":422,"transient":false,"message":"Harvester rejected the patch of LoadBalancer default/lb1 as invalid (422 Invalid): only text. Correct the input the message names."}],
  "422 nothing": [{ code: 422 }, lb, {"cls":"InvalidError","code":"Invalid","httpStatus":422,"transient":false,"message":"Harvester rejected the patch of LoadBalancer default/lb1 as invalid (422 Invalid): no details. Correct the input the message names."}],
  "429 Retry-After 2.4s": [{ code: 429, body: 'Too many requests, please try again later.', headers: { 'Retry-After': '2.4' } }, lb, {"cls":"TooManyRequestsError","code":"TooManyRequests","httpStatus":429,"transient":true,"retryAfterMs":2400,"message":"The API server at https://h:6443 throttled the patch of LoadBalancer default/lb1 (429 TooManyRequests, Retry-After 2s). The server is overloaded or rate-limits this user: retry later, or lower the parallelism (`pulumi up --parallel 4`)."}],
  "429 none": [{ code: 429 }, lb, {"cls":"TooManyRequestsError","code":"TooManyRequests","httpStatus":429,"transient":true,"message":"The API server at https://h:6443 throttled the patch of LoadBalancer default/lb1 (429 TooManyRequests). The server is overloaded or rate-limits this user: retry later, or lower the parallelism (`pulumi up --parallel 4`)."}],
  "504": [{ code: 504, body: st(504, 'Timeout', 'timeout') }, lb, {"cls":"TimeoutError","code":"Timeout","httpStatus":504,"transient":true,"message":"The API server at https://h:6443 timed out on the patch of LoadBalancer default/lb1 (504: timeout). Check the health of the cluster's API server and etcd, then retry."}],
  "503 no reason": [{ code: 503 }, lb, {"cls":"UnavailableError","code":"Unavailable","httpStatus":503,"transient":true,"message":"The API server at https://h:6443 failed to patch LoadBalancer default/lb1 (503 ServerError). Check the health of the cluster (its API server and the node it runs on), then retry."}],
  "500 reason": [{ code: 500, body: st(500, 'InternalError', 'boom') }, lb, {"cls":"UnavailableError","code":"Unavailable","httpStatus":500,"transient":true,"message":"The API server at https://h:6443 failed to patch LoadBalancer default/lb1 (500 InternalError: boom). Check the health of the cluster (its API server and the node it runs on), then retry."}],
  "302 unknown": [{ code: 302, body: 'moved' }, lb, {"cls":"HarvesterError","code":"Unknown","httpStatus":302,"transient":false,"message":"Cannot patch LoadBalancer default/lb1: unexpected HTTP 302: moved. Check the server URL in the kubeconfig; it should point at the Kubernetes API of the cluster."}],
  "302 with reason": [{ code: 302, body: st(302, 'Found', 'moved') }, lb, {"cls":"HarvesterError","code":"Unknown","httpStatus":302,"transient":false,"message":"Cannot patch LoadBalancer default/lb1: unexpected HTTP 302 Found: moved. Check the server URL in the kubeconfig; it should point at the Kubernetes API of the cluster."}],
  "404 namespace": [{ code: 404, body: st(404, 'NotFound', 'namespaces "ns9" not found', { name: 'ns9', kind: 'namespaces' }) }, { ...lb, verb: 'create', namespace: 'ns9' }, {"cls":"NotFoundError","code":"NotFound","httpStatus":404,"transient":false,"message":"Cannot create LoadBalancer ns9/lb1: namespace \"ns9\" does not exist (404 NotFound). Create namespace ns9 first, or use an existing namespace."}],
  "404 the namespace itself": [{ code: 404, body: st(404, 'NotFound', 'namespaces "ns9" not found', { name: 'ns9', kind: 'namespaces' }) }, { verb: 'get', kind: KINDS.Namespace, name: 'ns9' }, {"cls":"NotFoundError","code":"NotFound","httpStatus":404,"transient":false,"message":"Cannot read Namespace ns9: it does not exist (404 NotFound). It may have been deleted outside harvester-iac: run `pulumi refresh`, then retry."}],
  "404 path": [{ code: 404, body: '404 page not found' }, lb, {"cls":"NotFoundError","code":"NotFound","httpStatus":404,"transient":false,"message":"Cannot patch LoadBalancer default/lb1: the API loadbalancer.harvesterhci.io/v1beta1 loadbalancers is not served by https://h:6443 (404: 404 page not found). Check that kubeconfig context \"hv\" points at a Harvester cluster that has this API (not the Rancher local cluster or a guest cluster)."}],
  "404 path no body": [{ code: 404 }, lb, {"cls":"NotFoundError","code":"NotFound","httpStatus":404,"transient":false,"message":"Cannot patch LoadBalancer default/lb1: the API loadbalancer.harvesterhci.io/v1beta1 loadbalancers is not served by https://h:6443 (404). Check that kubeconfig context \"hv\" points at a Harvester cluster that has this API (not the Rancher local cluster or a guest cluster)."}],
  "404 object": [{ code: 404, body: st(404, 'NotFound', 'x', { name: 'lb1', kind: 'loadbalancers' }) }, lb, {"cls":"NotFoundError","code":"NotFound","httpStatus":404,"transient":false,"message":"Cannot patch LoadBalancer default/lb1: it does not exist (404 NotFound). It may have been deleted outside harvester-iac: run `pulumi refresh`, then retry."}],
  "401 client cert": [{ code: 401 }, lb, { auth: 'client-certificate' }, {"cls":"UnauthorizedError","code":"Unauthorized","httpStatus":401,"transient":false,"message":"The API server at https://h:6443 rejected the credentials (client-certificate) of kubeconfig context \"hv\" (401 Unauthorized) while trying to patch LoadBalancer default/lb1. Check that the client certificate or credentials in the kubeconfig are current, or download a fresh kubeconfig."}],
  "statusCode from watch": [{ statusCode: 410 }, { verb: 'watch', kind: KINDS.LoadBalancer, namespace: 'default' }, {"cls":"ExpiredError","code":"Expired","httpStatus":410,"transient":false,"message":"The watch of LoadBalancer objects in namespace default used a resourceVersion the server no longer keeps (410 Expired). List again from the current state."}],
  "net long message": [{ message: 'x'.repeat(210) }, lb, {"cls":"UnavailableError","code":"Unavailable","transient":false,"message":"Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…. Check the server URL of kubeconfig context \"hv\" and that this machine can resolve and reach it."}],
  "net abort": [{ name: 'AbortError', message: 'aborted' }, lb, {"cls":"UnavailableError","code":"Unavailable","transient":true,"message":"Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: aborted. Check that the cluster is up and reachable from here, then retry."}],
  "net cause code": [{ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } }, lb, {"cls":"UnavailableError","code":"Unavailable","transient":true,"message":"Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: ECONNREFUSED. Check that the cluster is up and reachable from here, then retry."}],
  "net errno": [{ errno: 'EAI_AGAIN', message: 'getaddrinfo' }, lb, {"cls":"UnavailableError","code":"Unavailable","transient":true,"message":"Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: EAI_AGAIN. Check that the cluster is up and reachable from here, then retry."}],
  "net tls": [{ code: 'CERT_HAS_EXPIRED', message: 'certificate has expired' }, lb, {"cls":"TlsError","code":"TlsError","transient":false,"message":"Cannot verify the TLS certificate of https://h:6443 (CERT_HAS_EXPIRED) to patch LoadBalancer default/lb1. Put the cluster CA in the kubeconfig (clusters[].cluster.certificate-authority-data), or — only if you accept the risk — set insecure-skip-tls-verify: true there."}],
  "401 token, plain server": [{ code: 401 }, lb, {"cls":"TokenExpiredError","code":"TokenExpired","httpStatus":401,"transient":false,"message":"The API server at https://h:6443 rejected the token of kubeconfig context \"hv\" (401 Unauthorized) while trying to patch LoadBalancer default/lb1: the token has expired or been revoked. If this kubeconfig was issued by Rancher, its tokens expire (kubeconfig-default-token-ttl-minutes, Rancher ≥ 2.8; harvester/harvester#5827). Download a fresh kubeconfig (for Rancher cloud credentials: edit the credential and renew it, or raise kubeconfig-default-token-ttl-minutes), or use a service-account kubeconfig that does not expire; then run `pulumi preview --refresh`."}],
  "400 whitespace-only body": [{ code: 400, body: '   ' }, lb, {"cls":"BadRequestError","code":"BadRequest","httpStatus":400,"transient":false,"message":"Harvester refused to patch LoadBalancer default/lb1 (400 BadRequest). Change the input the message names."}],
  "404 cluster-scoped object, a namespace given anyway": [{ code: 404, body: st(404, 'NotFound', 'x', { name: 'p1', kind: 'ippools' }) }, { verb: 'get', kind: KINDS.IPPool, namespace: 'default', name: 'p1' }, {"cls":"NotFoundError","code":"NotFound","httpStatus":404,"transient":false,"message":"Cannot read IPPool p1: it does not exist (404 NotFound). It may have been deleted outside harvester-iac: run `pulumi refresh`, then retry."}],
  "409 cluster-scoped object, a namespace given anyway": [{ code: 409 }, { verb: 'update', kind: KINDS.IPPool, namespace: 'default', name: 'p1' }, {"cls":"ConflictError","code":"Conflict","httpStatus":409,"transient":false,"message":"Cannot update IPPool p1: it was changed by someone else after it was read (409 Conflict). Run the operation again; if this repeats, another controller keeps changing the object — see who with `kubectl get ippools.loadbalancer.harvesterhci.io p1 --show-managed-fields -o yaml`."}],
  "422 whitespace-only body": [{ code: 422, body: ' \n ' }, lb, {"cls":"InvalidError","code":"Invalid","httpStatus":422,"transient":false,"message":"Harvester rejected the patch of LoadBalancer default/lb1 as invalid (422 Invalid): no details. Correct the input the message names."}],
  "net string thrown": ['just a string', lb, {"cls":"UnavailableError","code":"Unavailable","transient":false,"message":"Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: just a string. Check the server URL of kubeconfig context \"hv\" and that this machine can resolve and reach it."}],
  "net premature": [{ message: 'Premature close' }, lb, {"cls":"UnavailableError","code":"Unavailable","transient":true,"message":"Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: Premature close. Check that the cluster is up and reachable from here, then retry."}],
};

describe('client error texts (pure): every mapping, word for word', () => {
  for (const [name, row] of Object.entries(rows)) {
    it(name, () => {
      const [thrown, target] = row;
      const connection = row.length === 4 ? { ...conn, ...row[2] } : conn;
      const want = row.length === 4 ? row[3] : row[2];
      const err = fromApiException(thrown, target, connection);
      assert.equal(err.message, want.message);
      assert.deepEqual(
        { cls: err.constructor.name, code: err.code, httpStatus: err.httpStatus, transient: err.transient, retryAfterMs: err.retryAfterMs },
        { cls: want.cls, code: want.code, httpStatus: want.httpStatus, transient: want.transient, retryAfterMs: want.retryAfterMs },
      );
    });
  }
});

describe('client error texts (pure): socket failures and verbs', () => {
  // Each code alone decides: the message says nothing that TRANSIENT_MESSAGES would match.
  for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_SOCKET']) {
    it(`${code} is transient: the request may not have reached the server`, () => {
      const err = fromApiException({ code, message: 'request failed' }, lb, conn);
      assert.equal(err.transient, true);
      assert.equal(err.message, `Cannot reach the API server at https://h:6443 to patch LoadBalancer default/lb1: ${code}. Check that the cluster is up and reachable from here, then retry.`);
    });
  }

  it('an unknown socket code is not transient', () => {
    assert.equal(fromApiException({ code: 'ENOTFOUND', message: 'request failed' }, lb, conn).transient, false);
  });

  it('each verb is named in its own words', () => {
    const verbs = { get: 'read', list: 'list', create: 'create', update: 'update', patch: 'patch', apply: 'apply', delete: 'delete', watch: 'watch' } as const;
    for (const [verb, phrase] of Object.entries(verbs)) {
      const err = fromApiException({ code: 'EPIPE' }, { ...lb, verb: verb as RequestTarget['verb'] }, conn);
      assert.equal(err.message.split(': ')[0], `Cannot reach the API server at https://h:6443 to ${phrase} LoadBalancer default/lb1`);
    }
  });
});
