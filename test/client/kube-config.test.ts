/**
 * Finding and validating the kubeconfig: path or content, $KUBECONFIG, ~/.kube/config; context choice;
 * field-path errors; TLS rules; Rancher detection.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { KubeConfigError } from '../../provider/client/errors';
import { loadKubeConfig, looksLikeContent } from '../../provider/client/kube-config';
import { safeLogger } from '../../provider/client/logger';
import { RANCHER_PATH, RANCHER_SERVER, RecordingLogger, SERVER, kubeconfigYaml, useTempDir } from './helpers';

function second(yaml: string, name: string, server: string): string {
  // Add a second cluster/user/context to a kubeconfig built by kubeconfigYaml.
  return yaml
    .replace('users:\n', `- name: ${name}\n  cluster:\n    server: ${server}\nusers:\n`)
    .replace('contexts:\n', `- name: ${name}-user\n  user:\n    token: other-token-value\ncontexts:\n`)
    .replace('current-context:', `- name: ${name}\n  context:\n    cluster: ${name}\n    user: ${name}-user\n    namespace: team-a\ncurrent-context:`);
}

function expectError(fn: () => unknown, ...patterns: RegExp[]): KubeConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof KubeConfigError, String(err));
    assert.equal(err.code, 'KubeConfigInvalid');
    for (const p of patterns) assert.match(err.message, p);
    return err;
  }
  return assert.fail('expected a KubeConfigError');
}

describe('kubeconfig loading', () => {
  const dir = useTempDir('h5-kc-');

  it('tells content from a path', () => {
    assert.equal(looksLikeContent(kubeconfigYaml()), true);
    assert.equal(looksLikeContent('{"apiVersion":"v1"}'), true);
    assert.equal(looksLikeContent('/home/me/.kube/config'), false);
    assert.equal(looksLikeContent('~/harvester.yaml'), false);
  });

  it('loads content given inline (a Pulumi secret)', () => {
    const loaded = loadKubeConfig({ kubeconfig: kubeconfigYaml(), env: {} });
    assert.equal(loaded.connection.server, SERVER);
    assert.equal(loaded.connection.context, 'harvester');
    assert.equal(loaded.connection.auth, 'token');
    assert.equal(loaded.connection.insecure, false);
    assert.equal(loaded.source, 'inline kubeconfig');
    assert.equal(loaded.kubeConfig.getCurrentCluster()?.server, SERVER);
  });

  it('loads base64-encoded content (as the node driver and the Terraform provider accept it)', () => {
    const encoded = Buffer.from(kubeconfigYaml()).toString('base64');
    assert.equal(looksLikeContent(encoded), true);
    const loaded = loadKubeConfig({ kubeconfig: encoded, env: {} });
    assert.equal(loaded.connection.server, SERVER);
    assert.equal(loaded.source, 'inline kubeconfig (base64)');
    assert.equal(looksLikeContent(Buffer.from('/home/me/.kube/config').toString('base64')), false, 'only base64 of a kubeconfig counts');
    assert.equal(looksLikeContent('/home/user/kube/harvester/config'), false, 'a path that happens to be valid base64 stays a path');
  });

  it('loads a path, with ~ expanded and relative file references resolved', () => {
    fs.writeFileSync(path.join(dir(), 'ca.crt'), 'CA');
    const yaml = kubeconfigYaml().replace(/    certificate-authority-data: .*\n/, '    certificate-authority: ca.crt\n');
    fs.writeFileSync(path.join(dir(), 'kc.yaml'), yaml);
    const loaded = loadKubeConfig({ kubeconfig: '~/kc.yaml', homeDir: dir(), env: {} });
    assert.equal(loaded.source, `file ${path.join(dir(), 'kc.yaml')}`);
    assert.equal(loaded.kubeConfig.getCurrentCluster()?.caFile, path.join(dir(), 'ca.crt'));
  });

  it('falls back to $KUBECONFIG (merged, first wins), then ~/.kube/config', () => {
    const a = path.join(dir(), 'a.yaml');
    const b = path.join(dir(), 'b.yaml');
    fs.writeFileSync(a, kubeconfigYaml());
    fs.writeFileSync(b, second(kubeconfigYaml({ server: 'https://ignored:6443' }), 'guest', 'https://guest:6443'));
    const merged = loadKubeConfig({ env: { KUBECONFIG: [a, path.join(dir(), 'missing.yaml'), b].join(path.delimiter) }, context: 'guest' });
    assert.equal(merged.connection.server, 'https://guest:6443');
    assert.equal(merged.namespace, 'team-a');
    const first = loadKubeConfig({ env: { KUBECONFIG: [a, b].join(path.delimiter) } });
    assert.equal(first.connection.server, SERVER, 'cluster "harvester" from the first file wins');

    fs.mkdirSync(path.join(dir(), '.kube'));
    fs.writeFileSync(path.join(dir(), '.kube', 'config'), kubeconfigYaml({ server: 'https://home:6443' }));
    assert.equal(loadKubeConfig({ env: {}, homeDir: dir() }).connection.server, 'https://home:6443');
  });

  it('says where it looked when there is no kubeconfig at all', () => {
    expectError(() => loadKubeConfig({ env: {}, homeDir: dir() }), /no kubeconfig option, KUBECONFIG is unset and .*\.kube\/config does not exist/);
    expectError(() => loadKubeConfig({ kubeconfig: path.join(dir(), 'nope.yaml'), env: {} }), /file .*nope\.yaml.*does not exist/);
  });

  const broken: Record<string, { edit: (y: string) => string; want: RegExp[] }> = {
    'no server': { edit: (y) => y.replace(/    server: .*\n/, ''), want: [/clusters\[0\]\.cluster\.server is missing/] },
    'server not a URL': { edit: (y) => y.replace(/server: .*/, 'server: harvester:6443x'), want: [/clusters\[0\]\.cluster\.server (is not a URL|has scheme)/] },
    'plain http without insecure': { edit: (y) => y.replace(/server: .*/, 'server: http://10.0.0.1:6443'), want: [/uses plain http/, /https:\/\//] },
    'cluster without name': { edit: (y) => y.replace('- name: harvester\n  cluster:', '- cluster:'), want: [/clusters\[0\]\.name is missing/] },
    'unknown current-context': { edit: (y) => y.replace('current-context: harvester', 'current-context: other'), want: [/current-context "other" is not defined/, /"harvester"/] },
    'context names a missing user': { edit: (y) => y.replace('    user: harvester-user', '    user: ghost'), want: [/contexts\[0\]\.context\.user "ghost" is not defined in users/] },
    'context names a missing cluster': { edit: (y) => y.replace('    cluster: harvester\n', '    cluster: ghost\n'), want: [/contexts\[0\]\.context\.cluster "ghost" is not defined in clusters/] },
    'not a mapping': { edit: () => '- just\n- a list\n', want: [/not a YAML mapping/] },
  };
  for (const [name, c] of Object.entries(broken)) {
    it(`rejects: ${name}`, () => {
      const err = expectError(() => loadKubeConfig({ kubeconfig: c.edit(kubeconfigYaml()), env: {} }), ...c.want);
      assert.ok(err.fix);
    });
  }

  it('the context option overrides current-context and must exist', () => {
    const yaml = second(kubeconfigYaml(), 'guest', 'https://guest:6443');
    assert.equal(loadKubeConfig({ kubeconfig: yaml, context: 'guest', env: {} }).connection.server, 'https://guest:6443');
    expectError(() => loadKubeConfig({ kubeconfig: yaml, context: 'nope', env: {} }), /context "nope" \(from the context option\) is not defined/, /"harvester", "guest"/);
  });

  it('with no current-context, a single context is used and several ask for the option', () => {
    const one = kubeconfigYaml().replace(/current-context: .*\n/, '');
    assert.equal(loadKubeConfig({ kubeconfig: one, env: {} }).connection.context, 'harvester');
    const two = second(kubeconfigYaml(), 'guest', 'https://guest:6443').replace(/current-context: .*\n/, '');
    expectError(() => loadKubeConfig({ kubeconfig: two, env: {} }), /current-context is not set/);
  });

  it('skips TLS verification only when the kubeconfig says so, with a warning', () => {
    const logger = new RecordingLogger();
    const loaded = loadKubeConfig({ kubeconfig: kubeconfigYaml({ insecure: true }), env: {}, logger: safeLogger(logger) });
    assert.equal(loaded.connection.insecure, true);
    assert.equal(loaded.kubeConfig.getCurrentCluster()?.skipTLSVerify, true);
    assert.equal(logger.lines.filter((l) => l.level === 'warn').length, 1);
    assert.match(logger.lines[0].message, /TLS certificate verification for https:\/\/harvester\.test:6443 .* is off/);
  });

  it('keeps verification on when only NODE_TLS_REJECT_UNAUTHORIZED=0 is set, and says it is ignored', async () => {
    const logger = new RecordingLogger();
    const loaded = loadKubeConfig({ kubeconfig: kubeconfigYaml(), env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' }, logger: safeLogger(logger) });
    assert.match(logger.text(), /NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored/);
    const opts: { agent?: { options?: { rejectUnauthorized?: boolean } } } = {};
    await loaded.kubeConfig.applyToHTTPSOptions(opts as never);
    assert.equal(opts.agent?.options?.rejectUnauthorized, true);
  });

  it('recognises Rancher-issued kubeconfigs (token auth through /k8s/clusters/)', () => {
    const loaded = loadKubeConfig({ kubeconfig: kubeconfigYaml({ server: `${RANCHER_SERVER}${RANCHER_PATH}` }), env: {} });
    assert.equal(loaded.connection.rancher, true);
    assert.equal(loaded.connection.server, `${RANCHER_SERVER}${RANCHER_PATH}`);
    const plain = loadKubeConfig({ kubeconfig: kubeconfigYaml({ token: 'plain-service-account-token' }), env: {} });
    assert.equal(plain.connection.rancher, false);
  });
});
