/**
 * Per-run TLS material: a throwaway CA and a serving certificate for 127.0.0.1/localhost signed by it.
 *
 * kubectl only sends the bearer token over https (docs/design/kube-api.md §16), so the emulator serves
 * TLS by default and puts the CA into the kubeconfig as certificate-authority-data. Nothing is cached on disk:
 * every emulator run makes fresh keys (EC P-256, ~50 ms), so no stale CA can ever be trusted by accident.
 */
import { generate } from 'selfsigned';

/** PEM-encoded CA certificate plus the serving key pair. */
export interface TlsMaterial {
  /** CA certificate (PEM); goes into the kubeconfig as certificate-authority-data. */
  caCert: string;
  /** Serving certificate (PEM), SANs 127.0.0.1, ::1 and localhost. */
  cert: string;
  /** Serving private key (PEM). */
  key: string;
}

/** Make a fresh CA and a serving certificate for the loopback names (and any `extraHosts`). */
export async function createTlsMaterial(extraHosts: string[] = []): Promise<TlsMaterial> {
  const now = new Date();
  const notBeforeDate = new Date(now.getTime() - 60_000); // tolerate small clock skew between processes
  const notAfterDate = new Date(now.getTime() + 365 * 24 * 3600_000);
  const ca = await generate([{ name: 'commonName', value: 'harvester-emulator-ca' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const altNames: { type: 2 | 7; value?: string; ip?: string }[] = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  for (const host of extraHosts) {
    altNames.push(/^[\d.]+$|:/.test(host) ? { type: 7, ip: host } : { type: 2, value: host });
  }
  const leaf = await generate([{ name: 'commonName', value: 'kube-apiserver' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { caCert: ca.cert, cert: leaf.cert, key: leaf.private };
}
