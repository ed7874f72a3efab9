/**
 * GuestClusterIdentity's pure parts: the PKI (CAs, the admin certificate of system:masters signed by the client CA),
 * the Secret and the state as two ways back to the same material, the kubeconfig, and the rules of check.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { parse } from 'yaml';
import { generatePki, issueAdminCertificate, keyMatches } from '../../../../../provider/resources/guest-cluster-identity/pki';
import {
  adminNeedsRenewal, desiredSecret, materialFromOutputs, materialOf, renderKubeconfig, toOutputs, RENEW_BEFORE_MS, type IdentityMaterial,
} from '../../../../../provider/resources/guest-cluster-identity/plan';
import { guestClusterIdentitySchema } from '../../../../../provider/resources/guest-cluster-identity/model';
import { clusterDnsOf, validateInputs } from '../../../../../provider/resources/guest-cluster-identity/validate';

const inputs = guestClusterIdentitySchema.parse({ clusterName: 'prod-1', endpoint: '10.0.20.10', kubernetesVersion: 'v1.32.5+rke2r1' });

describe('GuestClusterIdentity PKI and plan', () => {
  let material: IdentityMaterial;
  before(async () => {
    const pki = await generatePki();
    material = { pki, serverPassword: 's'.repeat(32), agentPassword: 'a'.repeat(32), admin: await issueAdminCertificate(pki.client, 'prod-1-admin', 365) };
  });

  it('five self-signed CAs (CA:TRUE) with their keys, and the admin certificate of system:masters signed by the client CA', () => {
    for (const name of ['server', 'client', 'requestHeader', 'etcdServer', 'etcdPeer'] as const) {
      const cert = new X509Certificate(material.pki[name].cert);
      assert.ok(cert.ca, `${name} is a CA`);
      assert.ok(cert.checkIssued(cert), `${name} is self-signed`);
      assert.ok(keyMatches(material.pki[name]), `${name}'s key is its certificate's`);
    }
    const admin = new X509Certificate(material.admin.cert);
    const client = new X509Certificate(material.pki.client.cert);
    assert.ok(admin.checkIssued(client) && admin.verify(client.publicKey), 'signed by the client CA');
    assert.equal(admin.ca, false);
    assert.match(admin.subject, /CN=prod-1-admin/);
    assert.match(admin.subject, /O=system:masters/);
    assert.ok(!admin.checkIssued(new X509Certificate(material.pki.server.cert)), 'not by the server CA');
  });

  it('the Secret and the recorded outputs give back the same material; a key not its certificate\'s is refused', () => {
    const secret = desiredSecret(inputs, material);
    assert.deepEqual(materialOf(secret).material, material);
    const outs = toOutputs(inputs, material);
    assert.deepEqual(materialFromOutputs(outs), material);
    assert.match(outs.serverToken, /^K10[0-9a-f]{64}::server:s{32}$/);
    assert.match(outs.agentToken, /^K10[0-9a-f]{64}::node:a{32}$/);
    const swapped = { ...secret, data: { ...secret.data, 'client-ca.key': secret.data!['server-ca.key'] } };
    assert.match(String(materialOf(swapped).problem), /client-ca is not its certificate's/);
    const { ['service.key']: _gone, ...rest } = secret.data!;
    assert.match(String(materialOf({ ...secret, data: rest }).problem), /lacks service\.key/);
  });

  it('the kubeconfig trusts the server CA at https://<endpoint>:6443 and presents the admin certificate', () => {
    const kc = parse(renderKubeconfig('prod-1', '10.0.20.10', material)) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[]; 'current-context': string };
    assert.equal(kc.clusters[0].cluster.server, 'https://10.0.20.10:6443');
    assert.equal(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), material.pki.server.cert);
    assert.equal(Buffer.from(kc.users[0].user['client-certificate-data'], 'base64').toString(), material.admin.cert);
    assert.equal(kc['current-context'], 'prod-1');
  });

  it('renews the admin certificate within 30 days of its expiry', async () => {
    const now = Date.now();
    assert.equal(adminNeedsRenewal(material.admin, now), false);
    assert.equal(adminNeedsRenewal(material.admin, now + 365 * 24 * 3600_000 - RENEW_BEFORE_MS + 3600_000), true);
  });
});

describe('GuestClusterIdentity check rules', () => {
  const problems = (raw: Record<string, unknown>) => validateInputs({ clusterName: 'c', endpoint: '10.0.0.1', kubernetesVersion: 'v1.32.5+rke2r1', ...raw }).failures;

  it('networks that overlap, a DNS address outside the services, an endpoint that is no address', () => {
    assert.deepEqual(problems({ clusterCidr: '10.43.0.0/16', serviceCidr: '10.43.0.0/16' }).map((f) => f.property), ['serviceCidr']);
    assert.deepEqual(problems({ clusterDns: '10.99.0.10' }).map((f) => f.property), ['clusterDns']);
    assert.deepEqual(problems({ endpoint: 'not an address!' }).map((f) => f.property), ['endpoint']);
    assert.deepEqual(problems({ clusterCidr: '10.42.0.1/16' }).map((f) => f.reason), ['10.42.0.1/16 has bits set beyond its /16 prefix: write its network address, 10.42.0.0/16']);
    assert.deepEqual(problems({}), []);
  });

  it('agents never newer than the servers, nor more than three minors older; a reason never repeats its property', () => {
    const f = problems({ agentVersions: { new: 'v1.33.0+rke2r1', old: 'v1.28.9+rke2r1', ok: 'v1.30.1+rke2r1' } });
    assert.deepEqual(f.map((x) => x.property), ['agentVersions.new', 'agentVersions.old']);
    for (const x of f) assert.ok(!x.reason.startsWith(x.property), x.reason);
  });

  it('the cluster DNS address defaults to the tenth of the service network', () => {
    assert.equal(clusterDnsOf('10.43.0.0/16'), '10.43.0.10');
    assert.equal(clusterDnsOf('192.168.0.0/20', '192.168.0.53'), '192.168.0.53');
  });
});
