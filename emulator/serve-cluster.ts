/**
 * One served cluster endpoint: TLS material, a token table, fault rules, a request journal, an API server
 * over a store, and the kubeconfig pointing at it. Shared by the Harvester API and the guest cluster API.
 */
import type { Clock } from './clock';
import { TokenTable } from './api/auth';
import { rbacKinds } from './rbac/authorizer';
import { serviceAccountAuthenticator } from './rbac/service-account-tokens';
import { buildKubeconfig, writeKubeconfig } from './api/kubeconfig';
import { ApiServer, ApiServerOptions } from './api/server';
import type { ObjectStore } from './api/store';
import { createTlsMaterial, TlsMaterial } from './api/tls';
import type { VersionInfo } from './api/version';
import { Faults } from './faults/controller';
import { RequestJournal } from './faults/journal';
import type { FaultRule } from './faults/rules';

/** The parts shared by the Harvester and guest API servers: TLS, tokens, kubeconfig, faults, journal. */
export interface ServedCluster {
  server: ApiServer;
  tokens: TokenTable;
  faults: Faults;
  journal: RequestJournal;
  tls?: TlsMaterial;
  url: string;
  kubeconfig(): string;
  /**
   * One more listener over the same store, tokens, faults and journal (a guest cluster's API on each server's
   * address and behind each load balancer), with its own serving certificate. Close it with `close()`.
   */
  listen(o: { host: string; port: number; tls: TlsMaterial }): Promise<ApiServer>;
}

/** Start an API server over `store` with its own token, kubeconfig, faults and journal. */
export async function serveCluster(o: {
  store: ObjectStore;
  clock: Clock;
  port?: number;
  host?: string;
  tls: boolean;
  tokenTtlMs?: number;
  faults?: FaultRule[];
  seed?: number;
  latencyMs?: number;
  bookmarkIntervalMs?: number;
  version?: VersionInfo;
  kubeconfigPath?: string;
  contextName: string;
  /** Serve with this material instead of a fresh throwaway CA (a guest cluster's own server CA). */
  tlsMaterial?: TlsMaterial;
  clientCertificates?: ApiServerOptions['clientCertificates'];
  availability?: ApiServerOptions['availability'];
}): Promise<ServedCluster> {
  const tls = o.tlsMaterial ?? (o.tls ? await createTlsMaterial(o.host && o.host !== '127.0.0.1' && o.host !== 'localhost' ? [o.host] : []) : undefined);
  const tokens = new TokenTable(o.clock);
  tokens.issue({ ttlMs: o.tokenTtlMs });
  const faults = new Faults({ seed: o.seed, rules: o.faults });
  const journal = new RequestJournal();
  // A store serving ServiceAccounts and RBAC (the Harvester one) authenticates their tokens and enforces RBAC.
  const kinds = rbacKinds(o.store.registry);
  const shared: ApiServerOptions = {
    serviceAccountTokens: serviceAccountAuthenticator(o.store),
    rbac: kinds ? { store: o.store, kinds } : undefined,
    store: o.store,
    clock: o.clock,
    tokens,
    faults,
    journal,
    latencyMs: o.latencyMs,
    bookmarkIntervalMs: o.bookmarkIntervalMs,
    version: o.version,
    clientCertificates: o.clientCertificates,
    availability: o.availability,
  };
  const server = new ApiServer({ ...shared, tls, host: o.host, port: o.port });
  const url = await server.listen();
  let kubeconfig = '';
  const render = (): void => {
    kubeconfig = buildKubeconfig({ server: url, token: tokens.current(), caCert: tls?.caCert, name: o.contextName });
    if (o.kubeconfigPath) writeKubeconfig(o.kubeconfigPath, kubeconfig);
  };
  try {
    render();
  } catch (err) {
    await server.close();
    throw err;
  }
  faults.attach({
    expireToken: () => tokens.expire(),
    rotateToken: (opts) => {
      const token = tokens.rotate({ ttlMs: opts.ttlMs ?? o.tokenTtlMs, expireOld: opts.expireOld });
      render();
      return token;
    },
    compact: () => o.store.compact(),
  });
  const listen = async (l: { host: string; port: number; tls: TlsMaterial }): Promise<ApiServer> => {
    const extra = new ApiServer({ ...shared, tls: l.tls, host: l.host, port: l.port });
    await extra.listen();
    return extra;
  };
  return { server, tokens, faults, journal, tls, url, kubeconfig: () => kubeconfig, listen };
}

/** What both emulator handles (Harvester and guest) expose about their endpoint; kubeconfig and token follow rotation. */
export interface ClusterEndpoint {
  /** The current kubeconfig (YAML); changes when the token is rotated. */
  readonly kubeconfig: string;
  readonly kubeconfigPath?: string;
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The current bearer token. */
  readonly token: string;
  readonly faults: Faults;
  readonly journal: RequestJournal;
}

/** `handle` with the live endpoint fields of `served` defined on it (getters stay getters). */
export function withEndpoint<T extends object>(served: ServedCluster, kubeconfigPath: string | undefined, handle: T): T & ClusterEndpoint {
  const endpoint: ClusterEndpoint = {
    get kubeconfig() {
      return served.kubeconfig();
    },
    kubeconfigPath,
    url: served.url,
    get token() {
      return served.tokens.current();
    },
    faults: served.faults,
    journal: served.journal,
  };
  return Object.defineProperties(handle, Object.getOwnPropertyDescriptors(endpoint)) as T & ClusterEndpoint;
}
