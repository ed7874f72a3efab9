/** An RKE2 user data read as a first boot, and the checks of a join (emulator/guest/rke2/user-data.ts, join.ts). */
import { strict as assert } from 'node:assert';
import { stringify } from 'yaml';
import { ccmChartValues, readRke2UserData } from '../../../../emulator/guest/rke2/user-data';
import { checkJoin } from '../../../../emulator/guest/rke2/join';
import { criticalValues } from '../../../../emulator/guest/rke2/config';
import { planCcm } from '../../../../emulator/guest/rke2/ccm';
import type { Rke2Cluster } from '../../../../emulator/guest/rke2/cluster';
import { generateCa } from '../../../../emulator/guest/rke2/pki';
import { hashCa } from '../../../../emulator/guest/rke2/token';

function userData(config: Record<string, unknown> | undefined, runcmd: unknown[], extraFiles: Record<string, unknown>[] = []): string {
  const files = [...(config ? [{ path: '/etc/rancher/rke2/config.yaml', content: stringify(config) }] : []), ...extraFiles];
  return `## template: jinja\n#cloud-config\n${stringify({ write_files: files, runcmd })}`;
}

const START_SERVER = ['curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION=v1.32.5+rke2r1 sh -', 'systemctl enable --now rke2-server'];
const START_AGENT = ['curl -sfL https://get.rke2.io | INSTALL_RKE2_TYPE=agent sh -', 'systemctl enable --now rke2-agent'];

describe('rke2 user data', () => {
  it('is not RKE2 without its config or services, and not a cloud-config without the header', () => {
    assert.equal(readRke2UserData('#cloud-config\npackages: [nginx]\n').kind, 'not-rke2');
    assert.equal(readRke2UserData('#!/bin/sh\ncurl -sfL https://get.rke2.io | sh -\n').kind, 'not-rke2');
    assert.equal(readRke2UserData(undefined).kind, 'not-rke2');
  });

  it('reads role, install, config and files of a server', () => {
    const r = readRke2UserData(userData({ token: 't', 'tls-san': ['10.0.0.9'] }, START_SERVER, [{ path: '/var/lib/rancher/rke2/server/tls/server-ca.crt', encoding: 'b64', content: Buffer.from('PEM').toString('base64') }]));
    assert.equal(r.kind, 'rke2');
    if (r.kind !== 'rke2') return;
    assert.equal(r.spec.role, 'server');
    assert.deepEqual(r.spec.install, { version: 'v1.32.5+rke2r1', channel: 'stable', artifactPath: undefined });
    assert.deepEqual(r.spec.config.tlsSan, ['10.0.0.9']);
    assert.equal(r.spec.files.get('/var/lib/rancher/rke2/server/tls/server-ca.crt'), 'PEM');
    assert.equal(r.spec.problem, undefined);
  });

  it('names the problem that keeps the service from starting', () => {
    const problem = (config: Record<string, unknown> | undefined, runcmd: unknown[]) => {
      const r = readRke2UserData(userData(config, runcmd));
      return r.kind === 'rke2' ? r.spec.problem : 'not-rke2';
    };
    assert.match(problem({ token: 't' }, START_AGENT)!, /^--server is required/);
    assert.match(problem({ server: 'https://10.0.0.1:9345' }, START_AGENT)!, /^--token is required/);
    assert.equal(problem({ server: 'https://10.0.0.1:9345' }, START_SERVER), 'token is required to join a cluster');
    assert.match(problem({ token: 't', 'node-taint': ['broken'] }, START_SERVER)!, /^invalid node-taint "broken"/);
    assert.match(problem({ token: 't' }, [...START_SERVER, 'systemctl start rke2-agent'])!, /starts both rke2-server and rke2-agent/);
    assert.match(problem({ token: 't' }, [START_SERVER[0]])!, /never starts rke2-server or rke2-agent/);
    assert.match(problem({ token: 't', 'cloud-provider-config': '/x' }, START_SERVER)!, /cloud-provider-name is not/);
  });

  it('finds the bundled cloud provider chart values in a HelmChartConfig manifest', () => {
    const manifest = [
      stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
      stringify({ apiVersion: 'helm.cattle.io/v1', kind: 'HelmChartConfig', metadata: { name: 'harvester-cloud-provider', namespace: 'kube-system' }, spec: { valuesContent: stringify({ cloudConfigPath: '/etc/kubernetes/cloud-config', global: { cattle: { clusterName: 'prod' } } }) } }),
    ].join('---\n');
    const files = new Map([['/var/lib/rancher/rke2/server/manifests/ccm.yaml', manifest]]);
    assert.deepEqual(ccmChartValues(files), { clusterName: 'prod', cloudConfigPath: '/etc/kubernetes/cloud-config' });
    const kubeconfig = stringify({ 'current-context': 'c', contexts: [{ name: 'c', context: { user: 'u', namespace: 'guests' } }], users: [{ name: 'u', user: { token: 'tok' } }] });
    files.set('/etc/kubernetes/cloud-config', kubeconfig);
    const plan = planCcm({ tlsSan: [], nodeLabels: [], nodeTaints: [], cni: [], disable: [], raw: {}, cloudProviderName: 'harvester' }, files, true);
    assert.deepEqual([plan.mode, plan.clusterName, plan.credentials], ['harvester', 'prod', { token: 'tok', namespace: 'guests' }]);
  });
});

describe('rke2 join checks', () => {
  let cluster: Rke2Cluster;
  let hash: string;
  const spec = (config: Record<string, unknown>) => {
    const r = readRke2UserData(userData(config, config.role === 'agent' ? START_AGENT : START_SERVER));
    if (r.kind !== 'rke2') throw new Error('not rke2');
    return r.spec;
  };
  const URL = 'https://10.0.0.1:9345';

  before(async () => {
    const ca = await generateCa('rke2-server-ca@1');
    hash = hashCa(ca.certPem);
    const base = spec({ token: 'sp' }).config;
    cluster = { serverCa: { bundle: ca.certPem }, serverPassword: 'sp', nodePassword: 'np', critical: criticalValues(base, 'np') } as unknown as Rke2Cluster;
  });

  it('accepts the right tokens, short ones with k3s\'s warning', () => {
    assert.deepEqual(checkJoin('server', spec({ server: URL, token: `K10${hash}::server:sp`, 'agent-token': 'np' }), cluster, URL), { ok: true, warnings: [] });
    assert.deepEqual(checkJoin('agent', spec({ server: URL, token: `K10${hash}::node:np` }), cluster, URL), { ok: true, warnings: [] });
    const short = checkJoin('agent', spec({ server: URL, token: 'np' }), cluster, URL);
    assert.equal(short.ok, true);
    assert.match(short.warnings[0], /does not include a CA hash/);
  });

  it('checks the CA hash before the password', () => {
    const other = 'b'.repeat(64);
    assert.equal(checkJoin('agent', spec({ server: URL, token: `K10${other}::node:wrong` }), cluster, URL).error, `token CA hash does not match the Cluster CA certificate hash: ${other} != ${hash}`);
    assert.equal(checkJoin('agent', spec({ server: URL, token: `K10${hash}::node:wrong` }), cluster, URL).error, `${URL}/v1-rke2/serving-kubelet.crt: 401 Unauthorized`);
    assert.equal(checkJoin('server', spec({ server: URL, token: `K10${hash}::server:wrong` }), cluster, URL).error, `${URL}/v1-rke2/server-bootstrap: 401 Unauthorized`);
    assert.equal(checkJoin('server', spec({ server: URL, token: 'K10abc::server:sp' }), cluster, URL).error, 'failed to validate token: invalid token CA hash length');
  });

  it('an agent given the server token authenticates as node with the server password', () => {
    // The cluster has a separate agent password: the server token's password is not it.
    assert.equal(checkJoin('agent', spec({ server: URL, token: `K10${hash}::server:sp` }), cluster, URL).ok, false);
  });

  it('refuses a server whose critical values or agent token differ, naming them', () => {
    const r = checkJoin('server', spec({ server: URL, token: `K10${hash}::server:sp`, 'agent-token': 'other', 'service-cidr': '10.99.0.0/16' }), cluster, URL);
    assert.equal(r.error, 'failed to validate server configuration: critical configuration value mismatch between servers');
    assert.deepEqual(r.warnings, [
      `Skipping cluster configuration validation: ${URL}/v1-rke2/config: 401 Unauthorized`,
      'critical configuration mismatched: agent-token',
      'critical configuration mismatched: cluster-dns',
      'critical configuration mismatched: service-cidr',
    ]);
  });
});
