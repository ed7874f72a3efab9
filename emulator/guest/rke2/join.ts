/**
 * The checks a joining RKE2 node makes against the supervisor it reached, in k3s's order (docs/design/guest-rke2.md
 * §"Joining"; k3s-io/k3s pkg/clientaccess/token.go, pkg/cluster/bootstrap.go, pkg/agent):
 *
 * 1. the token parses (`invalid token format`, `invalid token CA hash length`);
 * 2. its CA hash, if any, matches `/cacerts` (`token CA hash does not match the Cluster CA certificate hash`);
 *    a short token skips this with k3s's warning;
 * 3. a server compares its critical configuration with the cluster's (`GET /v1-rke2/config` as user `node` with
 *    its agent token, or its token): a mismatch fails `critical configuration value mismatch between servers`,
 *    naming each key. When that request is refused (401) k3s skips the comparison with a warning; the emulator
 *    warns the same but still compares, agent-token included, as rke2-docs lists it among the values that must match;
 * 4. a server fetches `/v1-rke2/server-bootstrap` as user `server` with its token's password (401 when wrong);
 *    an agent authenticates as user `node` with its token's password (401 when wrong).
 *
 * Every message is what the node's journal shows; a failure means the node never registers.
 */
import { criticalMismatches, criticalValues } from './config';
import type { Rke2Cluster } from './cluster';
import type { Rke2Role } from './install';
import { hashCa, nodePassword, parseToken } from './token';
import type { Rke2NodeSpec } from './user-data';

/** The outcome of one join attempt: the warnings along the way and, on failure, the error. */
export interface JoinResult {
  ok: boolean;
  warnings: string[];
  error?: string;
}

/** Checks a node of `role` with `spec` joining `cluster` through `url` (the node's `server:`). */
export function checkJoin(role: Rke2Role, spec: Rke2NodeSpec, cluster: Rke2Cluster, url: string): JoinResult {
  const warnings: string[] = [];
  const token = spec.config.token ?? '';
  const base = url.replace(/\/+$/, '');
  let parsed;
  try {
    parsed = parseToken(token);
  } catch (err) {
    return { ok: false, warnings, error: role === 'server' ? `failed to validate token: ${(err as Error).message}` : (err as Error).message };
  }
  const actual = hashCa(cluster.serverCa.bundle);
  if (!parsed.caHash) {
    warnings.push('Cluster CA certificate is not trusted by the host CA bundle, but the token does not include a CA hash. Use the full token from the server\'s node-token file to enable Cluster CA validation.');
  } else if (parsed.caHash !== actual) {
    const msg = `token CA hash does not match the Cluster CA certificate hash: ${parsed.caHash} != ${actual}`;
    return { ok: false, warnings, error: role === 'server' ? `failed to validate token: ${msg}` : msg };
  }
  if (role === 'agent') {
    if (parsed.password !== cluster.nodePassword) return { ok: false, warnings, error: `${base}/v1-rke2/serving-kubelet.crt: 401 Unauthorized` };
    return { ok: true, warnings };
  }
  const asNode = nodePassword(token, spec.config.agentToken);
  // k3s skips the comparison when /config refuses the node password; rke2-docs still lists agent-token as a
  // value every server must share, so the emulator fails the join on it (our reading, see the design doc).
  if (asNode !== cluster.nodePassword) warnings.push(`Skipping cluster configuration validation: ${base}/v1-rke2/config: 401 Unauthorized`);
  // Without an agent-token of its own the joiner has nothing to compare: only a differing one is a mismatch.
  const ours = criticalValues(spec.config, spec.config.agentToken === undefined ? cluster.nodePassword : asNode);
  const mismatched = criticalMismatches(ours, cluster.critical);
  if (mismatched.length > 0) {
    for (const key of mismatched) warnings.push(`critical configuration mismatched: ${key}`);
    return { ok: false, warnings, error: 'failed to validate server configuration: critical configuration value mismatch between servers' };
  }
  if (parsed.password !== cluster.serverPassword) return { ok: false, warnings, error: `${base}/v1-rke2/server-bootstrap: 401 Unauthorized` };
  return { ok: true, warnings };
}
