/**
 * RKE2's join token, as k3s parses and checks it (k3s-io/k3s pkg/clientaccess/token.go at 0566d45,
 * pkg/passwd/passwd.go; docs/design/guest-rke2.md §"Tokens"):
 *
 * - secure form `K10<CA hash>::<user>:<password>`; short form: the password alone (no CA check; the node only warns);
 * - the CA hash is the SHA-256 (hex) of the server CA bundle as `/cacerts` serves it: of the file's bytes when it
 *   holds one certificate, of the DER of the bundle's root when it holds a chain;
 * - a joining node checks the hash first (`token CA hash does not match the Cluster CA certificate hash: X != Y`),
 *   then authenticates with the password as user `server` (servers) or `node` (agents): the user written in the
 *   token is replaced by the role's user;
 * - the server side's passwords: `server` = the `token` value with a `K10…::server:` prefix removed; `node` = the
 *   `agent-token` value with a `K10…::node:` prefix removed, or, without an agent token, the password of `token`.
 */
import { createHash, X509Certificate } from 'node:crypto';

const PREFIX = 'K10';
const HASH_LENGTH = 64;

/** A parsed token: the CA hash it pins (may be empty) and its credentials. */
export interface ParsedToken {
  caHash: string;
  username: string;
  password: string;
}

/** Parses a token as k3s `parseToken` does; throws k3s's messages. Bootstrap tokens (`id.secret`) are not supported. */
export function parseToken(token: string): ParsedToken {
  if (token.length === 0) throw new Error('token must not be empty');
  let rest = token.startsWith(PREFIX) ? token : `${PREFIX}:::${token}`;
  rest = rest.slice(PREFIX.length);
  let caHash = '';
  const sep = rest.indexOf('::');
  if (sep >= 0) {
    caHash = rest.slice(0, sep);
    if (caHash.length > 0 && caHash.length !== HASH_LENGTH) throw new Error('invalid token CA hash length');
    rest = rest.slice(sep + 2);
  }
  const colon = rest.indexOf(':');
  if (colon < 0 || colon === rest.length - 1) throw new Error('invalid token format');
  return { caHash, username: rest.slice(0, colon), password: rest.slice(colon + 1) };
}

/** Splits a PEM bundle into its certificates (PEM blocks). */
export function pemCertificates(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

/** k3s `hashCA`: sha256 of the bundle bytes for one certificate, of the root's DER for a verifiable chain. */
export function hashCa(bundle: string): string {
  const blocks = pemCertificates(bundle);
  let bytes: Buffer = Buffer.from(bundle, 'utf8');
  if (blocks.length > 1) {
    const certs = blocks.map((b) => new X509Certificate(b));
    let current = certs[0];
    const seen = new Set<X509Certificate>([current]);
    for (;;) {
      const issuer = certs.find((c) => !seen.has(c) && current.checkIssued(c) && current.verify(c.publicKey));
      if (!issuer) break;
      seen.add(issuer);
      current = issuer;
    }
    // Only a chain that ends in a self-signed root is hashed by its root; otherwise the bytes, as k3s falls back.
    if (current !== certs[0] && current.checkIssued(current)) bytes = current.raw;
  }
  return createHash('sha256').update(bytes).digest('hex');
}

/** The password the server keeps for `user` from a configured token value (k3s passwd.EnsureUser). */
export function serverSidePassword(value: string, user: 'server' | 'node'): string {
  const marker = `::${user}:`;
  const at = value.indexOf(marker);
  return value.startsWith(PREFIX) && at > 0 ? value.slice(at + marker.length) : value;
}

/** The `node` password of a cluster from its init server's `token` and `agent-token` (k3s deps.go getNodePass). */
export function nodePassword(token: string, agentToken: string | undefined): string {
  if (agentToken) return serverSidePassword(agentToken, 'node');
  try {
    return parseToken(token).password;
  } catch {
    return token;
  }
}
