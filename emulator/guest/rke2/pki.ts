/**
 * Certificates of an emulated RKE2 cluster, with @peculiar/x509 (docs/design/guest-rke2.md
 * §"Certificate authorities supplied before the first start"): loading a supplied CA (PEM certificate bundle +
 * its key, RSA or ECDSA, PKCS#1, SEC1 or PKCS#8), generating the CAs the user data did not bring (self-signed ECDSA P-256, CN `rke2-<name>-ca@<unix time>`, as k3s
 * `createSigningCertKey` names them), and issuing leaf certificates signed by a CA: the kube-apiserver serving
 * certificate (k3s `genServerCerts`: CN `kube-apiserver`, serverAuth, the `kubernetes…` names plus the server's
 * SANs) and client certificates (CN = user, O = groups, clientAuth).
 *
 * Validity is taken from the wall clock, not the emulator's: TLS clients check certificates against real time.
 */
import { createPrivateKey, createPublicKey, KeyObject, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { pemCertificates } from './token';

// The library's types name the DOM's Crypto; Node's webcrypto is that implementation.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const DAY = 24 * 3600_000;
type SignAlgorithm = { name: string; hash: string; namedCurve?: string };

/** A CA able to sign: its bundle as written (what `/cacerts` serves), first certificate and key. */
export interface CaSigner {
  bundle: string;
  cert: x509.X509Certificate;
  keyPem: string;
  key: CryptoKey;
  algorithm: SignAlgorithm;
}

/** A certificate (PEM, with the chain when asked) and its private key (PKCS#8 PEM). */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

function algorithmOf(key: KeyObject): SignAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const named = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : curve === 'secp521r1' ? 'P-521' : undefined;
    if (!named) throw new Error(`unsupported EC curve ${curve ?? '?'} (RKE2 signs with RSA or ECDSA P-256/P-384/P-521 keys)`);
    return { name: 'ECDSA', namedCurve: named, hash: named === 'P-256' ? 'SHA-256' : 'SHA-384' };
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? '?'} (RKE2 signs with RSA or ECDSA keys)`);
}

/** Loads a supplied CA; throws when the PEM does not parse, is not a CA, or the key does not belong to the certificate. */
export async function loadCa(bundle: string, keyPem: string): Promise<CaSigner> {
  const blocks = pemCertificates(bundle);
  if (blocks.length === 0) throw new Error('no PEM certificate in the file');
  const cert = new x509.X509Certificate(blocks[0]);
  const basic = cert.getExtension(x509.BasicConstraintsExtension);
  if (basic && !basic.ca) throw new Error(`${cert.subject} is not a CA certificate (basicConstraints CA:FALSE)`);
  const privateKey = createPrivateKey(keyPem);
  const publicDer = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  if (!Buffer.from(cert.publicKey.rawData).equals(publicDer)) throw new Error(`the key does not belong to the certificate ${cert.subject}`);
  const algorithm = algorithmOf(privateKey);
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']);
  return { bundle, cert, keyPem, key, algorithm };
}

async function newKeyPair(): Promise<{ keys: CryptoKeyPair; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { keys, keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f; // a positive INTEGER
  return bytes.toString('hex');
}

/** A fresh self-signed CA (ECDSA P-256, ten years). */
export async function generateCa(commonName: string): Promise<IssuedCertificate> {
  const { keys, keyPem } = await newKeyPair();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3650 * DAY),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem };
}

/** What a leaf certificate says. */
export interface LeafSpec {
  commonName: string;
  organizations?: string[];
  usage: 'server' | 'client';
  /** DNS names and IP addresses (serving certificates). */
  sans?: string[];
  validDays?: number;
}

/** Issues a leaf signed by `ca`; the certificate PEM is followed by the CA bundle, as k3s writes its certificates. */
export async function issueCertificate(ca: CaSigner, spec: LeafSpec): Promise<IssuedCertificate> {
  const { keys, keyPem } = await newKeyPair();
  const now = Date.now();
  const subject = [`CN=${spec.commonName}`, ...(spec.organizations ?? []).map((o) => `O=${o}`)].join(', ');
  const sans = [...new Set(spec.sans ?? [])].map((s) => (isIP(s) ? { type: 'ip' as const, value: s } : { type: 'dns' as const, value: s }));
  const caKeyId = ca.cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([spec.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    caKeyId ? new x509.AuthorityKeyIdentifierExtension(caKeyId) : await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
  ];
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: ca.cert.subjectName,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (spec.validDays ?? 365) * DAY),
    signingAlgorithm: ca.algorithm,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    extensions,
  });
  const chain = ca.bundle.endsWith('\n') ? ca.bundle : `${ca.bundle}\n`;
  return { certPem: `${cert.toString('pem')}\n${chain}`, keyPem };
}

/** The names on kube-apiserver's serving certificate (k3s genServerCerts + the server's SANs). */
export function apiServerSans(o: { clusterDomain: string; serviceIp: string; nodeName: string; nodeIp: string; tlsSan: string[] }): string[] {
  return [
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    `kubernetes.default.svc.${o.clusterDomain}`,
    'localhost',
    o.nodeName,
    '127.0.0.1',
    '::1',
    o.nodeIp,
    o.serviceIp,
    ...o.tlsSan,
  ];
}
