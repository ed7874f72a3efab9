/**
 * A preload (`NODE_OPTIONS=--require …/loopback-dial.js`) for the processes a test spawns — the runner, the program
 * and the dynamic-provider host — that keeps every connection on this machine: a TCP connection to an IPv4
 * address outside 127.0.0.0/8 is sent to where the emulator serves that address (the `<address>:<port>` → url
 * map of its guest RKE2 endpoints, docs/emulator.md §"Guest RKE2 clusters", read from the JSON file named by
 * HARVESTER_IAC_TEST_DIAL_MAP at each connection); a connection to any other host that is not this machine is
 * refused, as an address nothing listens on answers (a load balancer before its first backend, a stopped server),
 * and written to `<map file>.refused` for the test to check that it was an address of the emulator's. Only the
 * socket's destination changes: TLS still checks the certificate against the address dialled,
 * exactly as `kubectl --server <url> --tls-server-name <address>` does. So a program whose kubeconfig names
 * `https://10.0.20.10:6443` reaches the emulated guest cluster, and no emulated address is ever dialled.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import net from 'node:net';

const MAP_ENV = 'HARVESTER_IAC_TEST_DIAL_MAP';

/** Where the emulator serves `<address>:<port>` now (`{ host, port }`), from the map file. */
function servedAt(address: string, port: number): { host: string; port: number } | undefined {
  const file = process.env[MAP_ENV];
  if (!file) return undefined;
  let map: Record<string, string | null>;
  try {
    map = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string | null>;
  } catch {
    return undefined;
  }
  const url = map[`${address}:${port}`];
  if (!url) return undefined;
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

/** This machine: no host (Node's default, localhost), `localhost`, 127.0.0.0/8, ::1. */
const isLocal = (host: unknown): boolean => host === undefined || host === null || host === '' || host === 'localhost' || host === '::1' || (typeof host === 'string' && net.isIPv4(host) && host.startsWith('127.'));

type ConnectOptions = { host?: string; port?: number | string };

/**
 * The destination of `socket.connect(...)`: Node passes an options object (tls.connect), a normalised argument
 * array whose first item is the options (net.connect), or (port, host).
 */
function rewrite(args: unknown[]): { args: unknown[]; refused?: string } {
  const first = args[0];
  const options = (Array.isArray(first) ? first[0] : first) as ConnectOptions | undefined;
  if (options && typeof options === 'object') {
    if (isLocal(options.host) || typeof options.host !== 'string') return { args };
    const to = servedAt(options.host, Number(options.port));
    if (!to) return { args, refused: `${options.host}:${options.port}` };
    const moved = { ...options, host: to.host, port: to.port };
    if (Array.isArray(first)) first[0] = moved; // keeps the array's marker of normalised arguments
    else args[0] = moved;
    return { args };
  }
  if ((typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) && typeof args[1] === 'string' && !isLocal(args[1])) {
    const to = servedAt(args[1], Number(first));
    if (!to) return { args, refused: `${args[1]}:${first}` };
    return { args: [to.port, to.host, ...args.slice(2)] };
  }
  return { args };
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const r = rewrite(args);
  if (r.refused) {
    const file = process.env[MAP_ENV];
    if (file) appendFileSync(`${file}.refused`, `${r.refused}\n`);
    // As an address nothing listens on answers (a load balancer before its first backend, a stopped server).
    const err = Object.assign(new Error(`connect ECONNREFUSED ${r.refused} (not served by the emulator now)`), { code: 'ECONNREFUSED', syscall: 'connect' });
    process.nextTick(() => this.destroy(err));
    return this;
  }
  return (connect as (...a: unknown[]) => net.Socket).apply(this, r.args);
} as typeof net.Socket.prototype.connect;
