/**
 * Probing an RKE2 supervisor (port 9345) the way a joining node meets it (docs/design/guest-rke2.md §"Joining",
 * k3s pkg/clientaccess/token.go, pkg/server/router.go): `GET /cacerts` without verifying TLS, its body hashed and
 * compared with the token's CA hash; then a route with basic auth as the role's user — `server` on
 * `/v1-rke2/server-bootstrap`, `node` on `/v1-rke2/config` — where a wrong password answers 401. The supervisor is
 * not a Kubernetes API, so these requests go out directly (node:https), never through provider/client; no password
 * or body is ever put in a message.
 */
import { createHash } from 'node:crypto';
import https from 'node:https';

/** What a probe found. */
export type ProbeResult = { ok: true; status: number; body: string } | { ok: false; error: string };

/** The answer to one GET, TLS unverified (k3s fetches /cacerts the same way before it can verify anything). */
export function probe(url: string, auth?: { user: string; password: string }, timeoutMs = 5000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
    let req: ReturnType<typeof https.get>;
    try {
      req = https.get(url, { rejectUnauthorized: false, headers, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => resolve({ ok: false, error: (err as NodeJS.ErrnoException).code ?? err.message }));
      });
    } catch (err) {
      resolve({ ok: false, error: (err as Error).message });
      return;
    }
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => resolve({ ok: false, error: (err as NodeJS.ErrnoException).code ?? err.message }));
  });
}

/** A parsed secure token (`K10<hash>::<user>:<password>`) or a short one (the password alone). */
export function parseToken(token: string): { caHash: string; password: string } {
  const m = /^K10([0-9a-f]*)::[^:]*:(.+)$/.exec(token);
  return m ? { caHash: m[1], password: m[2] } : { caHash: '', password: token };
}

/** Why a node with `token` (as `role`) cannot join through `supervisorUrl`, or undefined when the supervisor accepts it. */
export async function joinProblem(supervisorUrl: string, role: 'server' | 'agent', token: string): Promise<string | undefined> {
  const base = supervisorUrl.replace(/\/+$/, '');
  const cacerts = await probe(`${base}/cacerts`);
  if (!cacerts.ok) return `[supervisor unreachable] ${base} does not answer (${cacerts.error})`;
  if (cacerts.status !== 200) return `[supervisor unreachable] ${base}/cacerts answers ${cacerts.status}`;
  const { caHash, password } = parseToken(token);
  const served = createHash('sha256').update(cacerts.body, 'utf8').digest('hex');
  if (caHash && caHash !== served) return `[wrong token] its CA hash ${caHash.slice(0, 12)}… is not the hash of the CA the supervisor serves (${served.slice(0, 12)}…); RKE2 refuses it ("token CA hash does not match the Cluster CA certificate hash")`;
  const [user, route] = role === 'server' ? ['server', '/v1-rke2/server-bootstrap'] : ['node', '/v1-rke2/config'];
  const answer = await probe(`${base}${route}`, { user, password });
  if (!answer.ok) return `[supervisor unreachable] ${base} does not answer (${answer.error})`;
  if (answer.status === 401) return `[wrong token] the supervisor refuses its password as user "${user}" (401 Unauthorized), as it refuses the node's join`;
  return undefined;
}

/** The hash of the CA `supervisorUrl` serves, or why it cannot be read. */
export async function servedCaHash(supervisorUrl: string): Promise<{ hash?: string; error?: string }> {
  const r = await probe(`${supervisorUrl.replace(/\/+$/, '')}/cacerts`);
  if (!r.ok) return { error: r.error };
  if (r.status !== 200) return { error: `HTTP ${r.status}` };
  return { hash: createHash('sha256').update(r.body, 'utf8').digest('hex') };
}
