/** RKE2 tokens (k3s clientaccess/token.go, passwd.go) and config.yaml reading (emulator/guest/rke2/token.ts, config.ts). */
import { strict as assert } from 'node:assert';
import { createHash, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { hashCa, nodePassword, parseToken, serverSidePassword } from '../../../../emulator/guest/rke2/token';
import { criticalMismatches, criticalValues, parseNodeTaint, readRke2Config } from '../../../../emulator/guest/rke2/config';
import { generateCa, issueCertificate, loadCa } from '../../../../emulator/guest/rke2/pki';

const HASH = 'a'.repeat(64);

describe('rke2 tokens', () => {
  it('parses secure and short tokens as k3s does', () => {
    assert.deepEqual(parseToken(`K10${HASH}::server:pw:with:colons`), { caHash: HASH, username: 'server', password: 'pw:with:colons' });
    assert.deepEqual(parseToken('just-a-password'), { caHash: '', username: '', password: 'just-a-password' });
    assert.throws(() => parseToken('K10abc::server:pw'), /invalid token CA hash length/);
    assert.throws(() => parseToken(`K10${HASH}::nopassword`), /invalid token format/);
    assert.throws(() => parseToken(''), /token must not be empty/);
  });

  it('keeps the server and node passwords as passwd.EnsureUser and getNodePass do', () => {
    assert.equal(serverSidePassword(`K10${HASH}::server:s3cret`, 'server'), 's3cret');
    assert.equal(serverSidePassword('s3cret', 'server'), 's3cret');
    assert.equal(serverSidePassword(`K10${HASH}::node:a`, 'server'), `K10${HASH}::node:a`, 'only the user\'s own prefix is stripped');
    assert.equal(nodePassword(`K10${HASH}::server:s3cret`, undefined), 's3cret', 'without an agent token, the server password');
    assert.equal(nodePassword('x', `K10${HASH}::node:agentpw`), 'agentpw');
    assert.equal(nodePassword('x', 'agentpw'), 'agentpw');
  });

  it('hashes a one-certificate bundle by its bytes and a chain by its root DER', async () => {
    const root = await generateCa('root');
    assert.equal(hashCa(root.certPem), createHash('sha256').update(root.certPem).digest('hex'));
    const rootSigner = await loadCa(root.certPem, root.keyPem);
    // An intermediate CA signed by the root: the bundle is intermediate + root.
    const intermediate = await issueCertificate(rootSigner, { commonName: 'intermediate', usage: 'server' });
    const leafPem = intermediate.certPem.split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----\n';
    const bundle = leafPem + root.certPem;
    assert.equal(hashCa(bundle), createHash('sha256').update(new X509Certificate(root.certPem).raw).digest('hex'));
    assert.notEqual(hashCa(bundle), createHash('sha256').update(bundle).digest('hex'));
    // Unrelated certificates: no chain, so the bytes.
    const other = await generateCa('other');
    assert.equal(hashCa(root.certPem + other.certPem), createHash('sha256').update(root.certPem + other.certPem).digest('hex'));
  });
});

describe('rke2 config.yaml', () => {
  const files = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it('merges drop-ins in order, the last value winning and lists replaced', () => {
    const c = readRke2Config(files({
      '/etc/rancher/rke2/config.yaml': 'token: a\nnode-label: [x=1, y=2]\ntls-san: lb.example,10.0.0.5\n',
      '/etc/rancher/rke2/config.yaml.d/20-b.yaml': 'node-label:\n  - z=3\n',
      '/etc/rancher/rke2/config.yaml.d/10-a.yaml': 'token: b\ncni: multus,canal\n',
      '/etc/rancher/rke2/other.yaml': 'token: ignored\n',
    }))!;
    assert.equal(c.token, 'b');
    assert.deepEqual(c.nodeLabels, ['z=3']);
    assert.deepEqual(c.tlsSan, ['lb.example', '10.0.0.5']);
    assert.deepEqual(c.cni, ['multus', 'canal']);
    assert.equal(readRke2Config(files({ '/etc/x': 'a: b' })), undefined);
    assert.throws(() => readRke2Config(files({ '/etc/rancher/rke2/config.yaml': '- a\n' })), /not a YAML mapping/);
  });

  it('compares critical values after defaults, and harvester implies disable-cloud-controller', () => {
    const base = readRke2Config(files({ '/etc/rancher/rke2/config.yaml': 'token: t\n' }))!;
    const explicit = readRke2Config(files({ '/etc/rancher/rke2/config.yaml': 'cluster-cidr: 10.42.0.0/16\nservice-cidr: 10.43.0.0/16\ncluster-dns: 10.43.0.10\n' }))!;
    assert.deepEqual(criticalMismatches(criticalValues(base, 'p'), criticalValues(explicit, 'p')), []);
    const other = readRke2Config(files({ '/etc/rancher/rke2/config.yaml': 'service-cidr: 10.53.0.0/16\ncloud-provider-name: harvester\n' }))!;
    assert.deepEqual(criticalMismatches(criticalValues(base, 'p'), criticalValues(other, 'q')), ['agent-token', 'cluster-dns', 'disable-cloud-controller', 'service-cidr']);
    assert.equal(criticalValues(other, 'q')['cluster-dns'], '10.53.0.10');
  });

  it('parses node taints as the kubelet does', () => {
    assert.deepEqual(parseNodeTaint('CriticalAddonsOnly=true:NoExecute'), { key: 'CriticalAddonsOnly', value: 'true', effect: 'NoExecute' });
    assert.deepEqual(parseNodeTaint('dedicated:NoSchedule'), { key: 'dedicated', effect: 'NoSchedule' });
    assert.throws(() => parseNodeTaint('a=b'), /invalid node-taint/);
  });
});

describe('rke2 pki', () => {
  it('loads RSA PKCS#1 and ECDSA CAs, refuses a key of another certificate and a non-CA', async () => {
    const keys = (await x509.cryptoProvider.get().subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify'])) as import('node:crypto').webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name: 'CN=rsa-ca', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000), keys, signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, extensions: [new x509.BasicConstraintsExtension(true, undefined, true)] });
    const { createPrivateKey } = await import('node:crypto');
    const pkcs8 = Buffer.from(await x509.cryptoProvider.get().subtle.exportKey('pkcs8', keys.privateKey));
    const pkcs1 = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs1', format: 'pem' }).toString();
    assert.match(pkcs1, /BEGIN RSA PRIVATE KEY/);
    const rsa = await loadCa(cert.toString('pem'), pkcs1);
    const leaf = await issueCertificate(rsa, { commonName: 'kube-apiserver', usage: 'server', sans: ['10.0.0.5', 'lb.example'] });
    const [leafPem] = leaf.certPem.split(/(?<=-----END CERTIFICATE-----\n)/);
    const parsed = new X509Certificate(leafPem);
    assert.ok(parsed.verify(new X509Certificate(cert.toString('pem')).publicKey));
    assert.equal(parsed.subjectAltName, 'IP Address:10.0.0.5, DNS:lb.example');
    const ec = await generateCa('ec');
    await assert.rejects(loadCa(ec.certPem, pkcs1), /the key does not belong to the certificate/);
    const ecSigner = await loadCa(ec.certPem, ec.keyPem);
    const notCa = await issueCertificate(ecSigner, { commonName: 'leaf', usage: 'client' });
    await assert.rejects(loadCa(notCa.certPem, notCa.keyPem), /is not a CA certificate/);
  });
});
