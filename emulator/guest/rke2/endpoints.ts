/**
 * Where an emulated RKE2 cluster can be reached in the simulated network (docs/design/guest-rke2.md
 * §"Reaching the guest API"): each running server at `<its address>:6443` (kube-apiserver) and `:9345`
 * (supervisor), and each Harvester LoadBalancer whose running backends include a running server, at
 * `<LB address>:<listener port>` for its listeners whose backendPort is 6443 or 9345 (the LB forwards to a
 * healthy backend; health probes are not simulated, see controllers/lb-backends.ts). Nothing here dials anything:
 * addresses are data.
 */
import { isIP } from 'node:net';
import { KubeObject, StoreReader } from '../../api/types';
import { HarvesterKinds } from '../../controllers/kinds';
import { backendAddresses } from '../../controllers/lb-backends';
import { field } from '../../util/objects';
import type { Rke2Cluster } from './cluster';

export const API_PORT = 6443;
export const SUPERVISOR_PORT = 9345;

/** What endpoint resolution needs to know of a server node. */
export interface ServingNode {
  /** `namespace/vm`. */
  key: string;
  ip: string;
  cluster: Rke2Cluster;
}

/** One address:port a cluster is reachable at, and whose serving certificate answers there. */
export interface DesiredEndpoint {
  address: string;
  port: number;
  kind: 'api' | 'supervisor';
  cluster: Rke2Cluster;
  /** The server (`namespace/vm`) whose certificate is served. */
  certOf: string;
}

interface Listener {
  port?: number;
  backendPort?: number;
}

function lbAddress(lb: KubeObject): string | undefined {
  return field<string>(lb, 'status', 'address') || field<string>(lb, 'status', 'allocatedAddress', 'ip') || undefined;
}

/** The servers behind an LB's running backends, by name for a stable choice. */
function serversBehind(lb: KubeObject, servers: ServingNode[], store: StoreReader, kinds: HarvesterKinds): ServingNode[] {
  const ips = new Set(backendAddresses(store, kinds, lb));
  return servers.filter((s) => ips.has(s.ip)).sort((a, b) => a.key.localeCompare(b.key));
}

/** Every endpoint that should be open now. */
export function desiredEndpoints(servers: ServingNode[], store: StoreReader, kinds: HarvesterKinds): DesiredEndpoint[] {
  const out: DesiredEndpoint[] = [];
  for (const s of servers) {
    out.push({ address: s.ip, port: API_PORT, kind: 'api', cluster: s.cluster, certOf: s.key });
    out.push({ address: s.ip, port: SUPERVISOR_PORT, kind: 'supervisor', cluster: s.cluster, certOf: s.key });
  }
  for (const lb of store.listShared(kinds.loadBalancer).items) {
    const address = lbAddress(lb);
    if (!address || isIP(address) !== 4) continue;
    const behind = serversBehind(lb, servers, store, kinds);
    if (behind.length === 0) continue;
    for (const l of field<Listener[]>(lb, 'spec', 'listeners') ?? []) {
      const kind = l.backendPort === API_PORT ? 'api' : l.backendPort === SUPERVISOR_PORT ? 'supervisor' : undefined;
      if (!kind || typeof l.port !== 'number') continue;
      out.push({ address, port: l.port, kind, cluster: behind[0].cluster, certOf: behind[0].key });
    }
  }
  // One listener per address:port (two LBs cannot share an address; a VM's address is its own).
  const seen = new Set<string>();
  return out.filter((e) => {
    const key = `${e.address}:${e.port}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What a join's first request (`GET https://<server>/cacerts`) reaches, or the error a real client would get. */
export function resolveSupervisor(url: string, servers: ServingNode[], store: StoreReader, kinds: HarvesterKinds): { target: ServingNode } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: `Invalid server url, failed to parse: ${url}` };
  }
  if (parsed.protocol !== 'https:') return { error: `only https:// URLs are supported, invalid scheme: ${url}` };
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = Number(parsed.port || 443);
  const dial = `Get "https://${parsed.host}/cacerts": dial tcp ${host}:${port}`;
  if (!isIP(host)) return { error: `failed to get CA certs: ${dial}: lookup ${host}: no such host (the emulator has no DNS: use an IP address)` };
  const reachable = desiredEndpoints(servers, store, kinds).find((e) => e.address === host && e.port === port && e.kind === 'supervisor');
  if (!reachable) return { error: `failed to get CA certs: ${dial}: connect: connection refused` };
  const target = servers.find((s) => s.key === reachable.certOf);
  return target ? { target } : { error: `failed to get CA certs: ${dial}: connect: connection refused` };
}
