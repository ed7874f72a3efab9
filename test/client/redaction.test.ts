/**
 * No secret (token, kubeconfig, userdata, Secret data, private keys) ever appears in an error or a log
 * line, however the server or the kubeconfig quotes it back.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import nock from 'nock';
import { WaitTimeoutError } from '../../provider/await/errors';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { REDACTED, clearRegisteredSecrets, redact, redactObject, registerSecret } from '../../provider/client/redact';
import { LB, RecordingLogger, SERVER, TOKEN, kubeconfigYaml, lb, status, testClient, useNock } from './helpers';

const TOKEN_SECRET_PART = TOKEN.split(':')[1];
const USERDATA = '#cloud-config\npassword: hunter2-very-secret\nchpasswd: { expire: False }\nssh_pwauth: True\n';
const SCRIPT_USERDATA = '#!/bin/bash\necho "joining with key K3S-JOIN-KEY-0123456789abcdef" > /etc/join\n';

/** Every rendering of an error a user or a log could see. */
function renderings(err: unknown): string {
  const e = err as Error & Record<string, unknown>;
  return [String(e), e.message, e.stack, inspect(e, { depth: 10 }), JSON.stringify(e), JSON.stringify(e.causes ?? []), String(e.fix ?? '')].join('\n');
}

function assertClean(text: string, secrets: string[]): void {
  for (const s of secrets) assert.ok(!text.includes(s), `leaked ${JSON.stringify(s.slice(0, 12))}… in:\n${text}`);
}

describe('redaction: no secret in errors or logs', () => {
  useNock();
  afterEach(() => clearRegisteredSecrets());

  const secrets = [TOKEN, TOKEN_SECRET_PART, 'hunter2-very-secret', 'K3S-JOIN-KEY-0123456789abcdef'];

  it('401 (token auth): the message names the context and server, never the token', async () => {
    const logger = new RecordingLogger();
    const { client } = await testClient({ logger });
    nock(SERVER).get(`${LB}/lb1`).reply(401, status(401, 'Unauthorized', 'Unauthorized'));
    const err = await client.loadBalancers.get('lb1').catch((e) => e);
    assert.equal(err.code, 'TokenExpired');
    assertClean(renderings(err) + logger.text(), secrets);
  });

  it('server messages that echo the token, an Authorization header or userdata are scrubbed', async () => {
    const logger = new RecordingLogger();
    const { client } = await testClient({ logger, maxAttempts: 2 });
    registerSecret(SCRIPT_USERDATA);
    nock(SERVER)
      .patch(`${LB}/lb1`)
      .query(true)
      .reply(500, status(500, 'InternalError', `Internal error occurred: proxy said Authorization: Bearer ${TOKEN} was odd`));
    nock(SERVER)
      .patch(`${LB}/lb1`)
      .query(true)
      .reply(
        422,
        status(422, 'Invalid', `VirtualMachine.kubevirt.io "vm" is invalid: spec.template.spec.volumes[1].cloudInitNoCloud.userData: Invalid value: ${JSON.stringify(USERDATA)}: too long`, {
          causes: [
            { reason: 'FieldValueInvalid', field: 'spec.template.spec.volumes[1].cloudInitNoCloud.userData', message: `Invalid value: ${JSON.stringify(USERDATA)}: too long` },
            { reason: 'FieldValueInvalid', field: 'spec.x', message: `script ${SCRIPT_USERDATA} token: ${TOKEN}` },
          ],
        }),
      );
    const err = await client.loadBalancers.mergePatch('lb1', { spec: {} }).catch((e) => e);
    assert.equal(err.code, 'Invalid');
    assert.match(err.message, /userData: Invalid value: \[redacted\]/);
    assertClean(renderings(err) + logger.text(), secrets);
  });

  it('a kubeconfig that fails to parse is reported by position, not by quoting it', async () => {
    const broken = kubeconfigYaml().replace('users:\n', 'users:\n  - : : [\n');
    const err = await HarvesterClient.connect({ kubeconfig: broken }).catch((e) => e);
    assert.equal(err.code, 'KubeConfigInvalid');
    assert.match(err.message, /not valid YAML \(line \d+, column \d+\)/);
    assertClean(renderings(err), [...secrets, 'certificate-authority-data']);
  });

  it('kubeconfig validation errors name the field path, never the content', async () => {
    const noServer = kubeconfigYaml().replace(/    server: .*\n/, '');
    const err = await HarvesterClient.connect({ kubeconfig: noServer }).catch((e) => e);
    assert.match(err.message, /clusters\[0\]\.cluster\.server is missing/);
    assertClean(renderings(err), secrets);
  });

  it('retry and TLS warnings in the log carry no token', async () => {
    const logger = new RecordingLogger();
    const client = await HarvesterClient.connect({ kubeconfig: kubeconfigYaml({ insecure: true }), logger, sleep: async () => {} });
    nock(SERVER).get(`${LB}/lb1`).reply(503, status(503, 'ServiceUnavailable', `unavailable for token ${TOKEN}`));
    nock(SERVER).get(`${LB}/lb1`).reply(200, lb('lb1'));
    await client.loadBalancers.get('lb1');
    assert.ok(logger.lines.some((l) => l.level === 'warn' && /insecure-skip-tls-verify/.test(l.message)));
    assert.ok(logger.lines.some((l) => /retrying/.test(l.message)));
    assertClean(logger.text(), secrets);
  });

  it('a wait timeout keeps the last objects seen, with Secret data and userdata redacted', () => {
    const err = new WaitTimeoutError({
      what: 'secret default/cloud-init to exist',
      object: 'Secret default/cloud-init',
      timeoutMs: 1000,
      lastSeen: [
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cloud-init', namespace: 'default' }, data: { userdata: Buffer.from(USERDATA).toString('base64') } },
        { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'vm' }, spec: { template: { spec: { volumes: [{ cloudInitNoCloud: { userData: USERDATA } }] } } } },
      ],
    });
    const text = renderings(err) + JSON.stringify(err.lastSeen);
    assertClean(text, [...secrets, Buffer.from(USERDATA).toString('base64')]);
    assert.equal((err.lastSeen[0] as unknown as { data: { userdata: string } }).data.userdata, REDACTED);
  });
});

describe('redact()', () => {
  afterEach(() => clearRegisteredSecrets());
  const cases: Record<string, { given: string; gone: string[]; kept?: string[] }> = {
    'bearer header': { given: 'Authorization: Bearer abc.def-ghi_123456', gone: ['abc.def-ghi_123456'], kept: ['Authorization: Bearer'] },
    'JSON token field': { given: '{"token":"sha256~AbCdEf0123456789","server":"https://x"}', gone: ['sha256~AbCdEf0123456789'], kept: ['https://x'] },
    'YAML kubeconfig fields': {
      given: 'users:\n- name: u\n  user:\n    client-key-data: LS0tLS1CRUdJTiBSU0Eg\n    password: p4ssw0rd!\n',
      gone: ['LS0tLS1CRUdJTiBSU0Eg', 'p4ssw0rd!'],
      kept: ['client-key-data:'],
    },
    'Rancher API token': { given: 'failed with token-abcde:0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij', gone: ['0123456789abcdefghij'] },
    'JWT': { given: 'sa eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl rest', gone: ['eyJzdWIiOiJzeXN0ZW06c2EifQ'], kept: ['rest'] },
    'PEM private key': { given: 'key -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- end', gone: ['MIIEow'], kept: ['end'] },
    'cloud-config in a quoted value': { given: 'value: "#cloud-config\\npasswd: x" tail', gone: ['passwd: x'], kept: ['tail'] },
    'YAML userData block': { given: 'userData: |\n  #!/bin/sh\n  echo secret-thing\nnext: 1', gone: ['secret-thing'], kept: ['next: 1'] },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const out = redact(c.given);
      for (const g of c.gone) assert.ok(!out.includes(g), `${g} still in ${out}`);
      for (const k of c.kept ?? []) assert.ok(out.includes(k), `${k} lost from ${out}`);
    });
  }

  it('registered values and their base64 are removed wherever they appear', () => {
    registerSecret('my-join-token-value');
    const b64 = Buffer.from('my-join-token-value').toString('base64');
    assert.equal(redact(`a my-join-token-value b ${b64} c`), `a ${REDACTED} b ${REDACTED} c`);
  });

  it('leaves ordinary messages alone', () => {
    const msg = 'loadbalancers.loadbalancer.harvesterhci.io "lb1" not found; kubeconfig-default-token-ttl-minutes (Rancher ≥ 2.8)';
    assert.equal(redact(msg), msg);
  });

  it('matches a secret field in key position only: an object named x-token is no field', () => {
    // A progress line naming a Secret whose name ends in -token printed "x-token: [redacted] for …" (issue 33).
    for (const line of [
      'Secret default/x-token: waiting for the token controller to fill token and ca.crt',
      'Secret default/guest-1-token: holds no token',
      'field spec.user.password-policy: unset',
    ]) assert.equal(redact(line), line);
    assert.equal(redact('token: abc123def456'), `token: ${REDACTED}`, 'a field of its own is still hidden');
    assert.equal(redact('{"user": {"token": "abc123def456"}}'), `{"user": {"token": ${REDACTED}}}`);
    assert.equal(redact('a=1&password=hunter22'), `a=1&password=${REDACTED}`);
  });

  it('redactObject hides every field named like a secret, whole, whatever its value looks like', () => {
    const keys = ['userData', 'userdata', 'user-data', 'networkData', 'networkdata', 'network-data', 'token', 'password', 'client-key-data'];
    const given = Object.fromEntries(keys.map((k) => [k, 'plain words']));
    assert.deepEqual(redactObject({ spec: { ...given, other: 'plain words' } }), { spec: { ...Object.fromEntries(keys.map((k) => [k, REDACTED])), other: 'plain words' } });
  });

  it('a quoted cloud-config is cut at its closing quote; every quoted invalid userData value is hidden', () => {
    assert.equal(redact('value: "#cloud-config\\npasswd: x" tail'), `value: "#cloud-config ${REDACTED}" tail`);
    const twice = 'a.userData: Invalid value: "one"; b.userData: Invalid value: "two"';
    assert.equal(redact(twice), `a.userData: Invalid value: ${REDACTED}; b.userData: Invalid value: ${REDACTED}`);
  });

  it('redactObject hides Secret data and userdata fields but keeps structure', () => {
    const out = redactObject({ kind: 'Secret', metadata: { name: 's' }, data: { a: 'c2VjcmV0' }, stringData: { b: 'x' } });
    assert.deepEqual(out, { kind: 'Secret', metadata: { name: 's' }, data: { a: REDACTED }, stringData: { b: REDACTED } });
  });
});
