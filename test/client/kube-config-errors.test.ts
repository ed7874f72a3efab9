/**
 * Every way a kubeconfig can be wrong gets its own words: which file or option, which field path, and the fix.
 * The exact texts are asserted (they are the user interface); so are the edges of telling content from a path,
 * of the base64 form, and of the TLS warnings.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { KubeConfigError } from '../../provider/client/errors';
import { loadKubeConfig, looksLikeContent } from '../../provider/client/kube-config';
import { safeLogger } from '../../provider/client/logger';
import { REDACTED, redact } from '../../provider/client/redact';
import { RecordingLogger, SERVER, kubeconfigYaml, useTempDir } from './helpers';

function refusal(fn: () => unknown): { summary: string; fix: string | undefined } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof KubeConfigError, String(err));
    assert.equal(err.code, 'KubeConfigInvalid');
    return { summary: err.summary, fix: err.fix };
  }
  return assert.fail('expected a KubeConfigError');
}

const inline = (yaml: string, extra: { context?: string } = {}) => () => loadKubeConfig({ kubeconfig: yaml, env: {}, ...extra });

describe('kubeconfig loading: each refusal in its own words', () => {
  const dir = useTempDir('h5-kce-');

  it('content that is not YAML gives the position only (the line may hold a token)', () => {
    const r = refusal(inline('apiVersion: v1\nclusters: [\n  token: "abc'));
    assert.match(r.summary, /^Kubeconfig \(inline kubeconfig\): it is not valid YAML \(line \d+, column \d+\)\.$/);
    assert.equal(r.fix, 'Fix the YAML syntax, or download the kubeconfig again.');
  });

  it('content that is YAML but not a mapping', () => {
    assert.deepEqual(refusal(inline('- a\n- b\n')), {
      summary: 'Kubeconfig (inline kubeconfig): it is not a YAML mapping (expected apiVersion, clusters, contexts, users).',
      fix: 'Pass a kubeconfig file or its content.',
    });
    assert.match(refusal(inline('apiVersion: v1\n---\n')).summary, /not a YAML mapping|not valid YAML/);
  });

  it('a path that is a directory cannot be read, and says why', () => {
    const r = refusal(() => loadKubeConfig({ kubeconfig: dir(), env: {} }));
    assert.equal(r.summary, `Kubeconfig (file ${dir()}): the file cannot be read (EISDIR).`);
    assert.equal(r.fix, 'Check the path, or pass the kubeconfig content instead.');
  });

  it('a missing path names the file, resolved; an unprintable option is not echoed', () => {
    const r = refusal(() => loadKubeConfig({ kubeconfig: ` ${path.join(dir(), 'nope.yaml')} `, env: {} }));
    assert.equal(r.summary, `Kubeconfig (file ${path.join(dir(), 'nope.yaml')}): the file does not exist (the option is neither kubeconfig content nor an existing path).`);
    assert.equal(r.fix, 'Pass an existing file path, or the kubeconfig content itself.');
    const odd = refusal(() => loadKubeConfig({ kubeconfig: 'secret$value!', env: {} }));
    assert.match(odd.summary, /^Kubeconfig \(the kubeconfig option\): the file does not exist/);
    assert.equal(odd.summary.includes('secret$value'), false);
    const home = refusal(() => loadKubeConfig({ kubeconfig: '~', env: {}, homeDir: path.join(dir(), 'h') }));
    assert.equal(home.summary.startsWith(`Kubeconfig (file ${path.join(dir(), 'h')}): `), true, home.summary);
  });

  it('KUBECONFIG naming only missing files says so; blank entries are skipped', () => {
    const a = path.join(dir(), 'a.yaml');
    const b = path.join(dir(), 'b.yaml');
    const r = refusal(() => loadKubeConfig({ env: { KUBECONFIG: [a, ' ', b].join(path.delimiter) } }));
    assert.equal(r.summary, `Kubeconfig (KUBECONFIG=${[a, b].join(path.delimiter)}): none of the files exists.`);
    assert.equal(r.fix, 'Point KUBECONFIG at an existing file, or pass the kubeconfig option.');
    fs.writeFileSync(b, kubeconfigYaml());
    assert.equal(loadKubeConfig({ env: { KUBECONFIG: [a, ' ', b].join(path.delimiter) } }).source, `file ${b}`);
  });

  it('no kubeconfig anywhere names the default path', () => {
    const r = refusal(() => loadKubeConfig({ env: {}, homeDir: dir() }));
    assert.equal(r.summary, `Kubeconfig (none given): no kubeconfig option, KUBECONFIG is unset and ${path.join(dir(), '.kube', 'config')} does not exist.`);
    assert.equal(r.fix, 'Pass the kubeconfig option (a path or the content), or set KUBECONFIG.');
  });

  it('a section that is not a list, and an entry without its body', () => {
    assert.deepEqual(refusal(inline(kubeconfigYaml().replace('users:\n', 'users: {}\nusersx:\n'))), {
      summary: 'Kubeconfig (inline kubeconfig): users is not a list.',
      fix: 'Make users a YAML list of {name, user} entries.',
    });
    assert.deepEqual(refusal(inline(kubeconfigYaml().replace('  context:\n    cluster: harvester\n    user: harvester-user\n', ''))), {
      summary: 'Kubeconfig (inline kubeconfig): contexts[0].context is missing.',
      fix: 'Add the context section to contexts[0] ("harvester").',
    });
    assert.deepEqual(refusal(inline(kubeconfigYaml().replace('- name: harvester-user\n', '- name: ""\n'))), {
      summary: 'Kubeconfig (inline kubeconfig): users[0].name is missing.',
      fix: 'Give every entry of users a name.',
    });
  });

  it('a file reference that does not exist names the field and the resolved path', () => {
    const yaml = kubeconfigYaml().replace(/    certificate-authority-data: .*\n/, '    certificate-authority: missing-ca.crt\n');
    fs.writeFileSync(path.join(dir(), 'kc.yaml'), yaml);
    const r = refusal(() => loadKubeConfig({ kubeconfig: path.join(dir(), 'kc.yaml'), env: {} }));
    assert.equal(r.summary, `Kubeconfig (file ${path.join(dir(), 'kc.yaml')}): clusters[0].cluster.certificate-authority names file ${path.join(dir(), 'missing-ca.crt')}, which does not exist.`);
    assert.equal(r.fix, 'Fix the path, or embed the data (the -data variant of the field).');
  });

  it('no contexts at all, several without a current one, and a current one that is missing', () => {
    const none = kubeconfigYaml().replace(/contexts:\n[\s\S]*$/, 'contexts: []\n');
    assert.deepEqual(refusal(inline(none)), { summary: 'Kubeconfig (inline kubeconfig): contexts is empty.', fix: 'Add a context that names a cluster and a user.' });
    const several = kubeconfigYaml().replace(/current-context: .*\n/, '').replace('contexts:\n', 'contexts:\n- name: other\n  context:\n    cluster: harvester\n');
    assert.deepEqual(refusal(inline(several)), {
      summary: 'Kubeconfig (inline kubeconfig): current-context is not set.',
      fix: 'Pass the context option: one of "other", "harvester".',
    });
    const emptyCtx = kubeconfigYaml().replace('current-context: harvester', 'current-context: gone').replace(/contexts:\n[\s\S]*?current-context/, 'contexts: []\ncurrent-context');
    assert.deepEqual(refusal(inline(emptyCtx)), {
      summary: 'Kubeconfig (inline kubeconfig): current-context "gone" is not defined in contexts.',
      fix: 'Add the context to the kubeconfig.',
    });
  });

  it('a context without a cluster; a server that is not a URL or not http(s)', () => {
    assert.deepEqual(refusal(inline(kubeconfigYaml().replace('    cluster: harvester\n    user', '    user'))), {
      summary: 'Kubeconfig (inline kubeconfig): contexts[0].context.cluster is missing.',
      fix: 'Name the cluster of context "harvester".',
    });
    assert.deepEqual(refusal(inline(kubeconfigYaml({ server: 'not a url' }))), {
      summary: 'Kubeconfig (inline kubeconfig): clusters[0].cluster.server is not a URL (not a url).',
      fix: 'Use a full URL such as https://10.0.0.10:6443.',
    });
    assert.deepEqual(refusal(inline(kubeconfigYaml({ server: 'ftp://h:6443' }))), {
      summary: 'Kubeconfig (inline kubeconfig): clusters[0].cluster.server has scheme ftp: (ftp://h:6443).',
      fix: 'Use an https:// URL.',
    });
  });

  it('file references of the user name their own field', () => {
    const kc = path.join(dir(), 'kc.yaml');
    const cases: [string, string, string][] = [
      ['    token-file: no-token\n', 'token-file', 'no-token'],
      ['    client-certificate: no-cert.crt\n    client-key-data: S0VZ\n', 'client-certificate', 'no-cert.crt'],
      ['    client-certificate-data: Q0VSVA==\n    client-key: no-key.pem\n', 'client-key', 'no-key.pem'],
    ];
    for (const [body, field, file] of cases) {
      fs.writeFileSync(kc, kubeconfigYaml().replace(/    token: .*\n/, body));
      const r = refusal(() => loadKubeConfig({ kubeconfig: kc, env: {} }));
      assert.equal(r.summary, `Kubeconfig (file ${kc}): users[0].user.${field} names file ${path.join(dir(), file)}, which does not exist.`);
    }
  });

  it('base64 content is named as such; merged KUBECONFIG files are all named', () => {
    const noServer = kubeconfigYaml().replace(/    server: .*\n/, '');
    const r = refusal(inline(Buffer.from(noServer).toString('base64')));
    assert.equal(r.summary.split(':')[0], 'Kubeconfig (inline kubeconfig (base64))');
    const broken = refusal(inline(Buffer.from('apiVersion: v1\nclusters: [\n  x: "').toString('base64')));
    assert.match(broken.summary, /^Kubeconfig \(inline kubeconfig \(base64\)\): it is not valid YAML/);
    const a = path.join(dir(), 'a.yaml');
    const b = path.join(dir(), 'b.yaml');
    fs.writeFileSync(a, 'apiVersion: v1\nkind: Config\ncontexts: []\n');
    fs.writeFileSync(b, kubeconfigYaml().replace(/contexts:\n[\s\S]*$/, ''));
    const merged = refusal(() => loadKubeConfig({ env: { KUBECONFIG: [a, b].join(path.delimiter) } }));
    assert.equal(merged.summary, `Kubeconfig (file ${a}, file ${b}): contexts is empty.`);
  });

  it('a user entry without its user section is a user without credentials, not an error', () => {
    const yaml = kubeconfigYaml().replace(/  user:\n    token: .*\n/, '');
    assert.equal(loadKubeConfig({ kubeconfig: yaml, env: {} }).connection.auth, 'none');
  });

  it('a client certificate without its key', () => {
    const yaml = kubeconfigYaml().replace(/    token: .*\n/, '    client-certificate-data: Q0VSVA==\n');
    assert.deepEqual(refusal(inline(yaml)), {
      summary: 'Kubeconfig (inline kubeconfig): users[0].user has a client certificate but no client-key-data.',
      fix: 'Add the key that belongs to the certificate.',
    });
  });
});

describe('kubeconfig loading: authentication, names and secrets', () => {
  const dir = useTempDir('h5-kca-');

  const withUser = (body: string) => kubeconfigYaml().replace(/  user:\n    token: .*\n/, `  user:\n${body}`);

  it('names the kind of authentication', () => {
    const kinds: [string, string][] = [
      ['    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZLWtleS1kYXRh\n', 'client-certificate'],
      ['    username: admin\n    password: hunter2-secret\n', 'basic'],
      ['    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: get-token\n', 'exec'],
      ['    auth-provider:\n      name: oidc\n', 'auth-provider'],
      ['    {}\n', 'none'],
    ];
    for (const [body, want] of kinds) assert.equal(loadKubeConfig({ kubeconfig: withUser(body), env: {} }).connection.auth, want, body);
    const noUser = kubeconfigYaml().replace('    user: harvester-user\n', '');
    const loaded = loadKubeConfig({ kubeconfig: noUser, env: {} });
    assert.equal(loaded.connection.auth, 'none');
    assert.equal(loaded.kubeConfig.getContextObject(loaded.kubeConfig.getCurrentContext())?.user, '');
    assert.equal(loaded.kubeConfig.getCurrentUser()?.name, '');
  });

  it('reads a token file (trimmed) beside the kubeconfig, and keeps it secret', () => {
    fs.writeFileSync(path.join(dir(), 'token'), 'file-token-abcdef123456\n');
    fs.writeFileSync(path.join(dir(), 'kc.yaml'), withUser('    token-file: token\n'));
    const loaded = loadKubeConfig({ kubeconfig: path.join(dir(), 'kc.yaml'), env: {} });
    assert.equal(loaded.kubeConfig.getCurrentUser()?.token, 'file-token-abcdef123456');
    assert.equal(loaded.connection.auth, 'token');
    assert.equal(redact('sent file-token-abcdef123456'), `sent ${REDACTED}`);
  });

  it('registers basic credentials as a pair, and the kubeconfig text but not each of its lines', () => {
    const yaml = withUser('    username: admin-user-x\n    password: pw-0123456789\n');
    loadKubeConfig({ kubeconfig: yaml, env: {} });
    assert.equal(redact('admin-user-x:pw-0123456789'), REDACTED);
    assert.equal(redact(`server: ${SERVER}`).includes(SERVER), true, 'a line of the kubeconfig is not a secret');
    fs.writeFileSync(path.join(dir(), 'kc.yaml'), kubeconfigYaml({ server: 'https://file-server.test:6443' }));
    loadKubeConfig({ kubeconfig: path.join(dir(), 'kc.yaml'), env: {} });
    assert.equal(redact('    server: https://file-server.test:6443').includes('file-server.test'), true);
    const b64 = Buffer.from(kubeconfigYaml({ server: 'https://b64-server.test:6443' })).toString('base64');
    loadKubeConfig({ kubeconfig: b64, env: {} });
    assert.equal(redact('    server: https://b64-server.test:6443').includes('b64-server.test'), true);
  });

  it('keeps the context namespace, the server without its trailing slash, and a Rancher token', () => {
    const yaml = kubeconfigYaml({ server: `${SERVER}/`, token: 'kubeconfig-u-abc12:abcdefghijklmnopqrstuvwxyz0123' }).replace('    user: harvester-user\n', '    user: harvester-user\n    namespace: team-b\n');
    const loaded = loadKubeConfig({ kubeconfig: yaml, env: {} });
    assert.equal(loaded.namespace, 'team-b');
    assert.equal(loaded.connection.server, SERVER);
    assert.equal(loaded.connection.rancher, true, 'a Rancher API token marks the kubeconfig as Rancher-issued');
    assert.equal(loadKubeConfig({ kubeconfig: kubeconfigYaml({ token: 'token-abcde:abcdefghijklmnop' }), env: {} }).connection.rancher, true);
    assert.equal(loadKubeConfig({ kubeconfig: kubeconfigYaml({ token: 'xkubeconfig-u-1:abc' }), env: {} }).connection.rancher, false);
  });
});

describe('kubeconfig content or path', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('content: several lines, JSON, or one line starting with a kubeconfig key', () => {
    for (const key of ['apiVersion', 'kind', 'clusters', 'contexts', 'users', 'current-context']) {
      assert.equal(looksLikeContent(`${key}: x`), true, key);
      assert.equal(looksLikeContent(`${key} : x`), true, `${key} with a space`);
    }
    assert.equal(looksLikeContent('a\nb'), true);
    assert.equal(looksLikeContent('  {"a":1}'), true);
    assert.equal(looksLikeContent('./apiVersion: x'), false, 'a key must start the text');
    assert.equal(looksLikeContent('apiVersion-x: y'), false);
  });

  it('base64 counts only when it decodes to a kubeconfig start, however it is wrapped', () => {
    const doc = kubeconfigYaml();
    assert.equal(looksLikeContent(b64(doc).replace(/(.{60})/g, '$1\n')), true, 'wrapped at 60 columns');
    assert.equal(looksLikeContent(b64(`  \n${doc}`)), true, 'leading blank lines');
    assert.equal(looksLikeContent(b64('preferences: {}\n')), true);
    assert.equal(looksLikeContent(b64('{"apiVersion":"v1"}')), true);
    assert.equal(looksLikeContent(b64('xx apiVersion: v1 and more')), false, 'the key must come first');
    assert.equal(looksLikeContent(b64('apiVersionX: v1 and more text')), false);
    assert.equal(looksLikeContent(b64('apiVersion\t\u0001: v1 and more')), false, 'control characters are binary noise');
    assert.equal(looksLikeContent(b64('apiVersion: v1').slice(0, 12)), false, 'too short to be a kubeconfig');
    assert.equal(looksLikeContent(`${b64('apiVersion: v1 and some more')}=`), false, 'length not a multiple of 4');
    assert.equal(looksLikeContent(`*${b64('apiVersion: v1 and some mor')}`), false, 'a character outside the alphabet first');
    assert.equal(looksLikeContent(`${b64('apiVersion: v1 and some mor')}*`), false, 'or last');
  });

  it('loads base64 content as `base64` prints it (wrapped at 76 columns) or padded with blanks', () => {
    const encoded = b64(kubeconfigYaml());
    for (const given of [encoded, encoded.replace(/(.{76})/g, '$1\n'), ` ${encoded}\n`]) {
      assert.equal(loadKubeConfig({ kubeconfig: given, env: {} }).source, 'inline kubeconfig (base64)', JSON.stringify(given.slice(0, 90)));
    }
  });

  it('a path with a kubeconfig key inside is still a path', () => {
    assert.equal(looksLikeContent('/tmp/apiVersion: x'), false);
  });
});

describe('kubeconfig TLS warnings', () => {
  it('warns about insecure-skip-tls-verify only for https, and about NODE_TLS_REJECT_UNAUTHORIZED only when verifying', () => {
    const insecureHttp = kubeconfigYaml({ insecure: true, server: 'http://harvester.test:8080' });
    const logger = new RecordingLogger();
    const loaded = loadKubeConfig({ kubeconfig: insecureHttp, env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' }, logger: safeLogger(logger) });
    assert.equal(loaded.connection.insecure, true);
    assert.deepEqual(logger.lines, [], 'plain http with insecure-skip-tls-verify: nothing to verify, nothing to warn');
    const secure = new RecordingLogger();
    loadKubeConfig({ kubeconfig: kubeconfigYaml(), env: { NODE_TLS_REJECT_UNAUTHORIZED: '1' }, logger: safeLogger(secure) });
    assert.deepEqual(secure.lines, []);
  });

  it('one keep-alive agent per cluster and options, verification pinned to the kubeconfig', async () => {
    const loaded = loadKubeConfig({ kubeconfig: kubeconfigYaml(), env: {} });
    const a: { agent?: unknown } = {};
    const b: { agent?: unknown } = {};
    await loaded.kubeConfig.applyToHTTPSOptions(a as never);
    await loaded.kubeConfig.applyToHTTPSOptions(b as never);
    assert.ok(a.agent);
    assert.equal(a.agent, b.agent, 'the agent is reused');
    const options = (a.agent as { options: { keepAlive?: boolean; rejectUnauthorized?: boolean } }).options;
    assert.equal(options.keepAlive, true);
    assert.equal(options.rejectUnauthorized, true);
    const other = loadKubeConfig({ kubeconfig: kubeconfigYaml({ insecure: true }), env: {} });
    const c: { agent?: { options: { rejectUnauthorized?: boolean } } } = {};
    await other.kubeConfig.applyToHTTPSOptions(c as never);
    assert.equal(c.agent?.options.rejectUnauthorized, false);
  });
});
