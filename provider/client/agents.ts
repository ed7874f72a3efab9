/**
 * One keep-alive HTTP(S) agent per connection identity, shared by every KubeConfig of the process.
 *
 * client-node 1.4 asks KubeConfig.createAgent for a new agent on every request and watch, and the handlers
 * connect a new HarvesterClient (a new KubeConfig) per operation: without sharing, every read of a refresh
 * pays a TCP and TLS handshake. The identity is everything that decides where a socket goes and what it
 * trusts or presents — server, proxy, CA, client certificate and key, verification, server name, the other
 * TLS options client-node passes — so two kubeconfigs share sockets only when either could have opened them.
 * Tokens and basic auth travel in request headers, never in the socket, and are not part of the identity.
 * The key is a SHA-256 digest, so the map holds no credential text.
 */
import { createHash } from 'node:crypto';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Agent } from 'node:http';
import type { Cluster } from '@kubernetes/client-node';

type AgentFactory = (cluster: Cluster | null, options: Record<string, unknown>) => unknown;

/** More distinct connections than this in one process is unusual: the oldest one's idle sockets are closed. */
const MAX_AGENTS = 16;
const agents = new Map<string, unknown>();

/** The digest naming a connection: the cluster's routing fields and every agent option, in a fixed order. */
function identity(cluster: Cluster | null, options: Record<string, unknown>): string {
  const hash = createHash('sha256');
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    hash.update(name).update('\0');
    if (Buffer.isBuffer(value)) hash.update(value);
    else if (Array.isArray(value)) for (const v of value) add(`${name}[]`, v);
    else hash.update(typeof value === 'string' ? value : JSON.stringify(value));
    hash.update('\0');
  };
  add('server', cluster?.server);
  add('proxy', cluster?.proxyUrl);
  for (const name of Object.keys(options).sort()) add(name, options[name]);
  return hash.digest('hex');
}

/** What tls.createSecureContext takes of the options client-node hands createAgent. */
const CONTEXT_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'ciphers', 'honorCipherOrder', 'ecdhCurve', 'crl', 'dhparam', 'secureOptions', 'secureProtocol', 'sessionIdContext'];

/**
 * Without a `secureContext`, every new TLS connection (16 writes in flight open 16) parses the CA and the client
 * key pair again: build it once per agent. Direct https only; a proxy agent gets client-node's options unchanged.
 */
function withSecureContext(cluster: Cluster | null, options: Record<string, unknown>): Record<string, unknown> {
  if (!cluster?.server?.startsWith('https:') || cluster.proxyUrl) return options;
  const context: Record<string, unknown> = {};
  for (const name of CONTEXT_OPTIONS) if (options[name] !== undefined) context[name] = options[name];
  try {
    return { ...options, secureContext: createSecureContext(context as SecureContextOptions) };
  } catch {
    return options; // unusable TLS material: each connection reports it, mapped as before
  }
}

/** Close the idle sockets of an agent that leaves the cache; sockets in use finish their request first. */
function retire(agent: unknown): void {
  const free = (agent as Partial<Agent>).freeSockets ?? {};
  for (const sockets of Object.values(free)) for (const socket of sockets ?? []) socket.destroy();
}

/**
 * The shared agent for `cluster` and client-node's `options`, made by `create` the first time. Verification is
 * pinned to the kubeconfig's choice (client-node leaves `rejectUnauthorized` unset otherwise, which lets
 * NODE_TLS_REJECT_UNAUTHORIZED=0 turn it off) and sockets are kept alive (idle ones are unref'd by Node and
 * never hold a process open).
 */
export function sharedAgent(create: AgentFactory, cluster: Cluster | null, opts: Record<string, unknown>): unknown {
  const options = { ...opts, rejectUnauthorized: !(cluster?.skipTLSVerify ?? false), keepAlive: true };
  const key = identity(cluster, options);
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = create(cluster, withSecureContext(cluster, options));
    if (agents.size >= MAX_AGENTS) {
      const [oldest, old] = agents.entries().next().value as [string, unknown];
      agents.delete(oldest);
      retire(old);
    }
  } else {
    agents.delete(key); // re-inserted below: the map's order is least recently used first
  }
  agents.set(key, agent);
  return agent;
}
