/**
 * Connection reuse: requests and watches of one kubeconfig share keep-alive TLS connections, also across the
 * HarvesterClients the handlers connect per operation; a different TLS identity never gets those sockets.
 * Counted as TLS handshakes on a local https server ('secureConnection' events).
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createTlsMaterial } from '../../emulator/api/tls';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', resourceVersion: '7' } };
const EMPTY_LIST = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '7' }, items: [] };

function kubeconfig(server: string, ca: string, user: { token?: string; insecure?: boolean } = {}): string {
  const trust = user.insecure ? '    insecure-skip-tls-verify: true' : `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    `    server: ${server}`,
    trust,
    'users:',
    '- name: u',
    '  user:',
    `    token: ${user.token ?? 'token-one'}`,
    'contexts:',
    '- name: x',
    '  context:',
    '    cluster: c',
    '    user: u',
    'current-context: x',
    '',
  ].join('\n');
}

describe('client connection reuse', () => {
  let server: https.Server;
  let url: string;
  let ca: string;
  let handshakes = 0;
  const authorizations: string[] = [];

  // nock, once loaded by another test file of this process, replaces http.ClientRequest: requests then bypass
  // the agents' socket pool. This suite counts real sockets, so it runs with nock's interception off.
  let nockWasActive = false;
  before(async () => {
    nockWasActive = nock.isActive();
    if (nockWasActive) nock.restore();
    const tls = await createTlsMaterial();
    ca = tls.caCert;
    server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
      authorizations.push(String(req.headers.authorization));
      res.setHeader('Content-Type', 'application/json');
      if (req.url?.includes('watch=true')) {
        // One event, then a clean end (as a server-side timeout would).
        res.end(JSON.stringify({ type: 'ADDED', object: NAMESPACE }) + '\n');
        return;
      }
      res.end(JSON.stringify(req.url?.startsWith('/api/v1/namespaces/') ? NAMESPACE : EMPTY_LIST));
    });
    server.on('secureConnection', () => handshakes++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    if (nockWasActive) nock.activate();
  });
  beforeEach(() => {
    // Each case starts without open connections, so it counts its own handshakes only.
    server.closeAllConnections();
    handshakes = 0;
    authorizations.length = 0;
  });

  it('sends serial requests of one client over one TLS connection', async () => {
    const client = await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca) });
    for (let i = 0; i < 6; i++) await client.namespaces.get('default');
    for (let i = 0; i < 4; i++) await client.virtualMachines.list({ namespace: 'default' });
    assert.equal(authorizations.length, 10);
    assert.equal(handshakes, 1);
  });

  it('shares the connection between clients connected from the same kubeconfig (one per handler call)', async () => {
    const config = kubeconfig(url, ca);
    for (let i = 0; i < 8; i++) {
      const client = await HarvesterClient.connect({ kubeconfig: config });
      await client.namespaces.get('default');
    }
    assert.equal(handshakes, 1);
  });

  it('reuses the connection for a watch and the requests after it', async () => {
    const client = await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca) });
    await client.namespaces.get('default');
    await new Promise<void>((resolve, reject) => {
      client.namespaces.watch(
        { resourceVersion: '7' },
        () => undefined,
        (err) => (err ? reject(err) : resolve()),
      );
    });
    await client.namespaces.get('default');
    assert.equal(authorizations.length, 3);
    assert.equal(handshakes, 1);
  });

  it('gives each user its own token on a shared connection', async () => {
    await (await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca, { token: 'token-one' }) })).namespaces.get('default');
    await (await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca, { token: 'token-two' }) })).namespaces.get('default');
    assert.deepEqual(authorizations, ['Bearer token-one', 'Bearer token-two']);
    assert.equal(handshakes, 1);
  });

  it('never lends a verified connection to a kubeconfig with another TLS identity', async () => {
    await (await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca) })).namespaces.get('default');
    await (await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca, { insecure: true }) })).namespaces.get('default');
    await (await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca) })).namespaces.get('default');
    assert.equal(handshakes, 2);
  });

  it('refuses the server to a kubeconfig trusting another CA, even with a verified connection open', async () => {
    await (await HarvesterClient.connect({ kubeconfig: kubeconfig(url, ca) })).namespaces.get('default');
    const otherCa = (await createTlsMaterial()).caCert;
    const stranger = await HarvesterClient.connect({ kubeconfig: kubeconfig(url, otherCa), retry: { maxAttempts: 1 } });
    await assert.rejects(stranger.namespaces.get('default'), /certificate|TLS/i);
    assert.equal(authorizations.length, 1, 'no request went over the verified connection');
  });
});
