/**
 * The PKI files of a guest cluster's initialising server (provider/core/rke2/files.ts: where RKE2 finds its CAs,
 * with their permissions, and reading them back as GuestClusterIdentity does from its recorded bootstrapFiles),
 * and the version rules of provider/core/rke2/versions.ts, with their exact messages.
 */
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { pkiFromFiles, pkiWriteFiles, renderPkiFiles, type ClusterPki } from '../../../../provider/core/rke2/files';
import { agentSkewProblem, parseRke2Version, upgradeProblem } from '../../../../provider/core/rke2/versions';

const pair = (name: string) => ({ cert: `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`, key: `-----BEGIN PRIVATE KEY-----\n${name}\n-----END PRIVATE KEY-----\n` });
const PKI: ClusterPki = { server: pair('server'), client: pair('client'), requestHeader: pair('rh'), etcdServer: pair('etcd-server'), etcdPeer: pair('etcd-peer'), serviceKey: 'SERVICE KEY' };
const b64 = (text: string) => Buffer.from(text).toString('base64');
const TLS = '/var/lib/rancher/rke2/server/tls';

describe('core/rke2 files: the PKI on the initialising server', () => {
  it('writes each CA as base64 root:root files, certificates 0640 and keys 0600, then service.key 0600', () => {
    const entry = (path: string, text: string, permissions: string) => ({ path, content: b64(text), encoding: 'b64', owner: 'root:root', permissions });
    assert.deepEqual(pkiWriteFiles(PKI), [
      ...(['server', 'client', 'request-header', 'etcd/server', 'etcd/peer'] as const).flatMap((base, i) => {
        const p = [PKI.server, PKI.client, PKI.requestHeader, PKI.etcdServer, PKI.etcdPeer][i];
        return [entry(`${TLS}/${base}-ca.crt`, p.cert, '0640'), entry(`${TLS}/${base}-ca.key`, p.key, '0600')];
      }),
      entry(`${TLS}/service.key`, 'SERVICE KEY', '0600'),
    ]);
  });

  it('reads back exactly what it rendered', () => {
    assert.deepEqual(pkiFromFiles(renderPkiFiles(PKI)), PKI);
  });

  it('reads plain (not base64) content as it is, and skips entries that are not files', () => {
    const plain = pkiWriteFiles(PKI).map((f) => ({ path: f.path, content: Buffer.from(f.content, 'base64').toString('utf8') }));
    assert.deepEqual(pkiFromFiles(stringify([null, 'text', { path: 7 }, ...plain])), PKI);
  });

  it('has no PKI when a CA file, a key or service.key is missing, or the text is not a list of files', () => {
    const files = pkiWriteFiles(PKI);
    for (const gone of [`${TLS}/etcd/peer-ca.crt`, `${TLS}/client-ca.key`, `${TLS}/service.key`]) {
      assert.equal(pkiFromFiles(stringify(files.filter((f) => f.path !== gone))), undefined, gone);
    }
    for (const text of ['', 'a: 1', '[unclosed', 'just text', '[]']) assert.equal(pkiFromFiles(text), undefined, JSON.stringify(text));
  });
});

describe('core/rke2 versions: what a version is, and the moves RKE2 allows', () => {
  it('an RKE2 version is vMAJOR.MINOR.PATCH+rke2rN, nothing else', () => {
    assert.deepEqual(parseRke2Version('v1.32.5+rke2r2'), { major: 1, minor: 32, patch: 5, distribution: 'rke2', rke2Revision: 2 });
    for (const text of ['1.32.5+rke2r1', 'v1.32.5', 'v1.32.5+k3s1', 'v1.32+rke2r1']) assert.equal(parseRke2Version(text), undefined, text);
  });

  it('leaves a value that is not an RKE2 version, or no change, to the input pattern', () => {
    assert.equal(upgradeProblem('v1.30.1', 'v1.33.1+rke2r1'), undefined);
    assert.equal(upgradeProblem('v1.33.1+rke2r1', 'latest'), undefined);
    assert.equal(upgradeProblem('v1.33.1+rke2r1', 'v1.33.1+rke2r1'), undefined);
    assert.equal(agentSkewProblem('v1.33.1', 'v1.20.1+rke2r1'), undefined);
  });

  it('an agent at the servers\' version joins; a newer one is refused, saying to upgrade the servers first', () => {
    assert.equal(agentSkewProblem('v1.32.5+rke2r1', 'v1.32.5+rke2r1'), undefined);
    assert.equal(agentSkewProblem('v1.32.5+rke2r1', 'v1.32.5+rke2r2'),
      "v1.32.5+rke2r2 is newer than the servers' v1.32.5+rke2r1: a kubelet must not be newer than the API server. Upgrade the servers first (kubernetesVersion), then the agents");
  });

  it('kubelets from 1.25 may be three minors older, older ones two; another major never joins', () => {
    assert.equal(agentSkewProblem('v1.28.1+rke2r1', 'v1.25.3+rke2r1'), undefined);
    assert.equal(agentSkewProblem('v1.26.1+rke2r1', 'v1.24.3+rke2r1'), undefined);
    assert.equal(agentSkewProblem('v1.29.1+rke2r1', 'v1.25.3+rke2r1'),
      "v1.25.3+rke2r1 is more than 3 minor versions older than the servers' v1.29.1+rke2r1 (v1.25 kubelets may be at most 3 older): upgrade the agents first");
    assert.equal(agentSkewProblem('v1.27.1+rke2r1', 'v1.24.3+rke2r1'),
      "v1.24.3+rke2r1 is more than 2 minor versions older than the servers' v1.27.1+rke2r1 (v1.24 kubelets may be at most 2 older): upgrade the agents first");
    assert.match(String(agentSkewProblem('v2.1.0+rke2r1', 'v1.33.1+rke2r1')), /^v1\.33\.1\+rke2r1 is more than 3 minor versions older/);
  });
});
