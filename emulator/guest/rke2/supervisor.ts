/**
 * The RKE2 supervisor (port 9345) of an emulated cluster, with the routes a joining node and a diagnosing
 * provider use (k3s-io/k3s pkg/server/router.go, pkg/server/auth/auth.go; docs/design/guest-rke2.md
 * §"The supervisor"):
 *
 * - `GET /cacerts` (no auth): the server CA bundle exactly as written — what a joining node hashes against its
 *   token's CA hash; `GET /ping`: `pong`;
 * - `/v1-rke2/config`, `/v1-rke2/client-ca.crt`, `/v1-rke2/server-ca.crt`: basic auth as user `node` with the
 *   agent password; `/v1-rke2/server-bootstrap`: user `server` with the server password. A wrong password is
 *   401 (k8s' basic-auth authenticator fails the request), a valid user without the route's role 403.
 *
 * `/v1-rke2/config` answers the cluster's critical values without the agent token (not k3s's full control config) and
 * `/v1-rke2/server-bootstrap` an empty JSON object: the emulator hands out no key material.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TlsMaterial } from '../../api/tls';
import type { Rke2Cluster } from './cluster';

const PREFIX = '/v1-rke2';

function send(res: ServerResponse, code: number, body: string, type = 'text/plain'): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function basicAuth(req: IncomingMessage): { user: string; password: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Handles one supervisor request for `cluster`. */
export function handleSupervisor(cluster: Rke2Cluster, req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'https://supervisor.invalid').pathname;
  if (path === '/cacerts') return send(res, 200, cluster.serverCa.bundle);
  if (path === '/ping') return send(res, 200, 'pong');
  const routes: Record<string, 'node' | 'server'> = {
    [`${PREFIX}/config`]: 'node',
    [`${PREFIX}/client-ca.crt`]: 'node',
    [`${PREFIX}/server-ca.crt`]: 'node',
    [`${PREFIX}/server-bootstrap`]: 'server',
  };
  const role = routes[path];
  if (!role) return send(res, 404, '404 page not found\n');
  const creds = basicAuth(req);
  const valid = creds && ((creds.user === 'node' && creds.password === cluster.nodePassword) || (creds.user === 'server' && creds.password === cluster.serverPassword));
  if (!valid) return send(res, 401, 'not authorized');
  if (creds.user !== role) return send(res, 403, 'forbidden');
  switch (path) {
    case `${PREFIX}/config`: {
      // Tokens are never part of it (k3s tags them json:"-").
      const { 'agent-token': _secret, ...values } = cluster.critical;
      return send(res, 200, JSON.stringify(values), 'application/json');
    }
    case `${PREFIX}/client-ca.crt`:
      return send(res, 200, cluster.clientCa.bundle);
    case `${PREFIX}/server-ca.crt`:
      return send(res, 200, cluster.serverCa.bundle);
    default:
      return send(res, 200, '{}', 'application/json');
  }
}

/** A listening supervisor. */
export interface SupervisorServer {
  port: number;
  close(): Promise<void>;
}

/** Serves the supervisor of `cluster` on host:port with `tls`. */
export async function startSupervisor(cluster: Rke2Cluster, host: string, port: number, tls: TlsMaterial): Promise<SupervisorServer> {
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => handleSupervisor(cluster, req, res));
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
