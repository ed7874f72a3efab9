/**
 * Connecting: kubeconfig from a file or from content, TLS verified against the kubeconfig's CA (and only
 * skipped when the kubeconfig says so) — on any cluster; an expired or rotated token reported as TokenExpired
 * without leaking it, and a guest cluster reached through the same client — on the emulator only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import YAML from 'yaml';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { requireEmulator, suiteTimeout, TestTarget } from '../support/target';
import { assertHosts, connect, currentCluster, literal, startClientTarget } from './client-support';

describe('client: kubeconfig, TLS and tokens', function () {
  this.timeout(suiteTimeout(30_000, 5 * 60_000));
  let target: TestTarget;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h5-auth-'));
    target = await startClientTarget({ guest: { kubeconfigPath: path.join(dir, 'guest-kubeconfig') } });
  });
  after(async () => {
    await target?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => target.emulator?.emulator.faults.clear());

  it('connects from a kubeconfig file path and verifies TLS against its CA', async () => {
    const { cluster, server } = currentCluster(target.kubeconfig);
    const client = await HarvesterClient.connect({ kubeconfig: target.kubeconfigPath });
    assert.equal(client.connection.server, server);
    if (target.emulator) assert.equal(server, target.emulator.emulator.url);
    assert.equal(client.connection.insecure, cluster['insecure-skip-tls-verify'] === true, 'verification is on unless the kubeconfig turns it off');
    assert.equal(client.source, `file ${target.kubeconfigPath}`);
    assertHosts(target, (await client.nodes.list()).items);
  });

  it('without the CA the certificate is refused, even with NODE_TLS_REJECT_UNAUTHORIZED=0', async function () {
    const { doc, cluster, server } = currentCluster(target.kubeconfig);
    // A kubeconfig without a CA (a publicly trusted certificate) or with verification off cannot show this.
    if (!(cluster['certificate-authority-data'] || cluster['certificate-authority']) || cluster['insecure-skip-tls-verify']) this.skip();
    delete cluster['certificate-authority-data'];
    delete cluster['certificate-authority'];
    const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const logs: string[] = [];
      const client = await HarvesterClient.connect({ kubeconfig: YAML.stringify(doc), logger: { warn: (m) => logs.push(m) } });
      assert.ok(logs.some((l) => /NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored/.test(l)));
      const err = await client.nodes.list().catch((e) => e);
      assert.equal(err.code, 'TlsError', String(err));
      assert.match(err.message, new RegExp(`Cannot verify the TLS certificate of ${literal(server)} `));
      if (target.emulator) assert.match(err.message, /Cannot verify the TLS certificate of https:\/\/127\.0\.0\.1:\d+/);
    } finally {
      if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
    }
  });

  it('skips verification only when the kubeconfig says insecure-skip-tls-verify, and warns', async () => {
    const { doc, cluster, context, server } = currentCluster(target.kubeconfig);
    delete cluster['certificate-authority-data'];
    delete cluster['certificate-authority'];
    cluster['insecure-skip-tls-verify'] = true;
    const logs: string[] = [];
    const client = await HarvesterClient.connect({ kubeconfig: YAML.stringify(doc), logger: { warn: (m) => logs.push(m) } });
    assertHosts(target, (await client.nodes.list()).items);
    assert.equal(logs.length, 1);
    assert.match(logs[0], new RegExp(`TLS certificate verification for ${literal(server)} \\(kubeconfig context "${literal(context)}"\\) is off`));
    if (target.emulator) assert.match(logs[0], /TLS certificate verification for https:\/\/127\.0\.0\.1:\d+ \(kubeconfig context "harvester"\) is off/);
  });

  it('an expired token fails with TokenExpired naming #5827 and never the token; a fresh kubeconfig works again (emulator: token expiry)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const { client, sleeps } = await connect(target);
    assert.ok(await client.settings.get('server-version'));
    const oldToken = emu.token;
    emu.faults.expireToken();
    const err = await client.settings.get('server-version').catch((e) => e);
    assert.equal(err.code, 'TokenExpired');
    assert.equal(err.httpStatus, 401);
    assert.match(err.message, /rejected the token of kubeconfig context "harvester" \(401 Unauthorized\)/);
    assert.match(err.message, /harvester\/harvester#5827/);
    assert.deepEqual(sleeps, [], 'a 401 is not retried');
    for (const text of [err.message, err.stack, inspect(err), JSON.stringify(err)]) assert.ok(!String(text).includes(oldToken));

    emu.faults.rotateToken();
    const fresh = await HarvesterClient.connect({ kubeconfig: emu.kubeconfig });
    assert.ok(await fresh.settings.get('server-version'));
  });

  it('reaches a guest cluster with the same client (services and nodes there) (emulator: guest cluster)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const guest = await HarvesterClient.connect({ kubeconfig: path.join(dir, 'guest-kubeconfig') });
    assert.equal(guest.connection.server, emu.guest!.url);
    const mark = emu.guest!.journal.mark();
    await guest.nodes.list();
    assert.equal(await guest.services.get('no-such-service', 'default'), undefined);
    assert.deepEqual(
      emu.guest!.journal.entries({ since: mark }).map((e) => `${e.method} ${e.path} ${e.status}`),
      ['GET /api/v1/nodes 200', 'GET /api/v1/namespaces/default/services/no-such-service 404'],
      'both requests went to the guest API server',
    );
  });
});
