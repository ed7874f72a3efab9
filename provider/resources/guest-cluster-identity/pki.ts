/**
 * The guest cluster's PKI, made before any VM exists (docs/design/guest-rke2.md §"Certificate authorities supplied
 * before the first start"), with @peculiar/x509 over Node's WebCrypto — no hand-made ASN.1:
 *
 * - five CAs RKE2 takes as given when their files exist at the first server's first start: server, client,
 *   request-header, etcd server and etcd peer. Each self-signed, ECDSA P-256, ten years, CA:TRUE, keyCertSign and
 *   cRLSign, named as k3s names the CAs it generates (`<prefix>-ca@<unix time>`, k3s createSigningCertKey);
 * - the service-account signing key `service.key` (a key, no certificate), ECDSA P-256 in PKCS#8 PEM;
 * - the admin client certificate: CN the user, O `system:masters` (unrestricted in the guest's RBAC), clientAuth,
 *   signed by the client CA, which is what the admin kubeconfig presents.
 *
 * Keys are exported as PKCS#8 PEM; every certificate is one PEM block ending in a newline, so the server CA file's
 * bytes — what the token's CA hash pins — are exactly what `caCertificate` holds.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { ClusterPki, KeyPairPem } from '../../core/rke2/files';

export type { ClusterPki, KeyPairPem };

// The library's types name the DOM's Crypto; Node's webcrypto is that implementation.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const DAY = 24 * 3600_000;
const CA_VALIDITY_DAYS = 3650;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** The CAs of a cluster (every key of ClusterPki but the service key). */
export type ClusterCas = Omit<ClusterPki, 'serviceKey'>;

/** The prefix of each CA's common name, as k3s names the CAs it generates itself. */
const CA_PREFIXES: Record<keyof ClusterCas, string> = {
  server: 'rke2-server',
  client: 'rke2-client',
  requestHeader: 'rke2-request-header',
  etcdServer: 'etcd-server',
  etcdPeer: 'etcd-peer',
};

async function newKeyPair(): Promise<{ keys: CryptoKeyPair; pem: string }> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { keys, pem: `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n` };
}

/** A random positive serial number (RFC 5280: at most 20 octets, positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

const pemOf = (cert: x509.X509Certificate) => `${cert.toString('pem')}\n`;

async function selfSignedCa(prefix: string, now: number): Promise<KeyPairPem> {
  const { keys, pem } = await newKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${prefix}-ca@${Math.floor(now / 1000)}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + CA_VALIDITY_DAYS * DAY),
    signingAlgorithm: SIGNING,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: pemOf(cert), key: pem };
}

/** A new PKI: the five CAs and the service-account key. */
export async function generatePki(now = Date.now()): Promise<ClusterPki> {
  const names = Object.keys(CA_PREFIXES) as (keyof ClusterCas)[];
  const cas = await Promise.all(names.map((n) => selfSignedCa(CA_PREFIXES[n], now)));
  const serviceKey = (await newKeyPair()).pem;
  return { ...(Object.fromEntries(names.map((n, i) => [n, cas[i]])) as unknown as ClusterCas), serviceKey };
}

/** The admin client certificate: CN `user`, O system:masters, clientAuth, signed by the client CA, `days` long. */
export async function issueAdminCertificate(clientCa: KeyPairPem, user: string, days: number, now = Date.now()): Promise<KeyPairPem> {
  const caCert = new x509.X509Certificate(clientCa.cert);
  const pkcs8 = createPrivateKey(clientCa.key).export({ type: 'pkcs8', format: 'der' });
  const signingKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, EC, false, ['sign']);
  const { keys, pem } = await newKeyPair();
  const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${user}, O=system:masters`,
    issuer: caCert.subjectName,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + days * DAY),
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      caKeyId ? new x509.AuthorityKeyIdentifierExtension(caKeyId) : await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { cert: pemOf(cert), key: pem };
}

/** When a PEM certificate expires (ISO 8601). */
export function expiryOf(certPem: string): string {
  return new x509.X509Certificate(certPem).notAfter.toISOString();
}

/**
 * The CA hash a secure token pins: the SHA-256 (hex) of the server CA file's bytes, which is what `/cacerts`
 * serves and k3s hashes when the file holds one certificate (k3s pkg/clientaccess/token.go hashCA).
 */
export function caHashOf(serverCaPem: string): string {
  return createHash('sha256').update(serverCaPem, 'utf8').digest('hex');
}

/** Whether `key` is the private key of `cert` (both PEM): a Secret edited by hand is caught before it is trusted. */
export function keyMatches(pair: KeyPairPem): boolean {
  try {
    const cert = new x509.X509Certificate(pair.cert);
    const publicDer = createPublicKey(createPrivateKey(pair.key)).export({ type: 'spki', format: 'der' });
    return Buffer.from(cert.publicKey.rawData).equals(publicDer);
  } catch {
    return false;
  }
}
