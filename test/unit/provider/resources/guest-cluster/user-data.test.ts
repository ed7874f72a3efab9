/**
 * The user data GuestCluster gives its nodes (provider/core/rke2/user-data.ts), read by the emulator's reader of RKE2's
 * first boot (emulator/guest/rke2/user-data.ts, which follows docs/design/guest-rke2.md): the contract both sides
 * keep, and the rules only the provider keeps — the PKI on the initialising server alone, no server token on an agent.
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { readRke2UserData } from '../../../../../emulator/guest/rke2/user-data';
import { hashCa } from '../../../../../emulator/guest/rke2/token';
import { caHashOf, generatePki } from '../../../../../provider/resources/guest-cluster-identity/pki';
import { renderPkiFiles } from '../../../../../provider/core/rke2/files';
import { renderNodeUserData, type NodeUserData } from '../../../../../provider/core/rke2/user-data';
import { tokenInUserData } from '../../../../../provider/resources/guest-cluster-ready/diagnose';

const HASH = 'a'.repeat(64);
const SERVER_TOKEN = `K10${HASH}::server:serverpassword`;
const AGENT_TOKEN = `K10${HASH}::node:agentpassword`;
const networking = { cni: 'canal', clusterCidr: '10.42.0.0/16', serviceCidr: '10.43.0.0/16', clusterDns: '10.43.0.10', clusterDomain: 'cluster.local', disableKubeProxy: false };

const node = (over: Partial<NodeUserData>): NodeUserData => ({
  role: 'server', version: 'v1.32.5+rke2r1', supervisorUrl: 'https://10.0.20.10:9345', token: SERVER_TOKEN, agentToken: AGENT_TOKEN, tlsSan: ['10.0.20.10'],
  networking, clusterName: 'prod-1', install: { method: 'script' }, ...over,
});

describe('GuestCluster user data, as RKE2 (and the emulator) read it', () => {
  let bootstrapFiles = '';
  before(async () => {
    bootstrapFiles = renderPkiFiles(await generatePki());
  });

  it('the initialising server: no server:, the CA files, tls-san, the critical values, the cloud provider, its unit started', () => {
    const read = readRke2UserData(renderNodeUserData(node({ init: true, bootstrapFiles })));
    assert.equal(read.kind, 'rke2');
    if (read.kind !== 'rke2') return;
    const { spec } = read;
    assert.equal(spec.problem, undefined);
    assert.equal(spec.role, 'server');
    assert.equal(spec.install?.version, 'v1.32.5+rke2r1');
    assert.equal(spec.config.server, undefined);
    assert.equal(spec.config.token, SERVER_TOKEN);
    assert.equal(spec.config.agentToken, AGENT_TOKEN);
    assert.deepEqual(spec.config.tlsSan, ['10.0.20.10']);
    assert.deepEqual([spec.config.clusterCidr, spec.config.serviceCidr, spec.config.clusterDns, spec.config.clusterDomain], ['10.42.0.0/16', '10.43.0.0/16', '10.43.0.10', 'cluster.local']);
    assert.equal(spec.config.cloudProviderName, 'harvester');
    for (const f of ['server-ca', 'client-ca', 'request-header-ca', 'etcd/server-ca', 'etcd/peer-ca']) {
      assert.ok(spec.files.get(`/var/lib/rancher/rke2/server/tls/${f}.crt`)?.startsWith('-----BEGIN CERTIFICATE-----'), f);
      assert.match(spec.files.get(`/var/lib/rancher/rke2/server/tls/${f}.key`) ?? '', /BEGIN PRIVATE KEY/, f);
    }
    assert.match(spec.files.get('/var/lib/rancher/rke2/server/tls/service.key') ?? '', /BEGIN PRIVATE KEY/);
    assert.match(spec.files.get('/var/lib/rancher/rke2/server/manifests/harvester-cloud-provider-config.yaml') ?? '', /clusterName: prod-1/);
  });

  it('a joining server: server: the supervisor URL, the same critical values, no CA files', () => {
    const read = readRke2UserData(renderNodeUserData(node({})));
    assert.ok(read.kind === 'rke2' && !read.spec.problem);
    if (read.kind !== 'rke2') return;
    assert.equal(read.spec.config.server, 'https://10.0.20.10:9345');
    assert.ok(![...read.spec.files.keys()].some((p) => p.startsWith('/var/lib/rancher/rke2/server/tls/')), 'no PKI on a joiner');
  });

  it('an agent: the agent token only (never the server token), server:, rke2-agent started, no tls-san or critical values', () => {
    const text = renderNodeUserData(node({ role: 'agent', token: AGENT_TOKEN, agentToken: undefined, tlsSan: undefined, nodeLabels: { 'example.com/pool': 'gpu' }, nodeTaints: ['gpu=true:NoSchedule'] }));
    assert.ok(!text.includes('serverpassword'), 'an agent VM never holds the server token');
    const read = readRke2UserData(text);
    assert.ok(read.kind === 'rke2' && !read.spec.problem);
    if (read.kind !== 'rke2') return;
    assert.equal(read.spec.role, 'agent');
    assert.equal(read.spec.config.token, AGENT_TOKEN);
    assert.equal(read.spec.config.agentToken, undefined);
    assert.deepEqual(read.spec.config.tlsSan, []);
    assert.deepEqual(read.spec.config.nodeLabels, ['example.com/pool=gpu']);
    assert.deepEqual(read.spec.config.nodeTaints, ['gpu=true:NoSchedule']);
    assert.equal(tokenInUserData(text), AGENT_TOKEN, 'GuestClusterReady reads back the token it carries');
  });

  it('qemu-guest-agent starts first; an image with RKE2 gets no install line', () => {
    const runcmd = (parse(renderNodeUserData(node({ install: { method: 'preinstalled' } })).replace('#cloud-config\n', '')) as { runcmd: string[] }).runcmd;
    assert.equal(runcmd[0], 'systemctl enable --now qemu-guest-agent.service');
    assert.ok(!runcmd.some((c) => c.includes('get.rke2.io')));
    assert.deepEqual(runcmd.slice(1), ['systemctl mask rke2-agent.service || true', 'systemctl enable --now rke2-server.service']);
  });

  it('refuses to render an initialising server without the PKI', () => {
    assert.throws(() => renderNodeUserData(node({ init: true })), /needs the bootstrapFiles/);
  });

  it('the CA hash the tokens pin is k3s\'s hash of the server CA file written', async () => {
    const pki = await generatePki();
    assert.equal(caHashOf(pki.server.cert), hashCa(pki.server.cert));
  });
});
