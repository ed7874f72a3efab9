/**
 * The emulator's HTTP(S) API server: the part kubectl and client-node talk to.
 *
 * Request pipeline:
 * 1. journal the request (method, URL, content types, User-Agent — never the Authorization header);
 * 2. route it (router.ts) and resolve the resource against the registry;
 * 3. evaluate fault rules (latency, errors, reset, token expiry, conflicts, watch drops);
 * 4. authenticate: a verified client certificate when the server takes them, else the bearer token (401 Status
 *    when missing/expired; /version and health are public): the emulator's own (admin) tokens, then
 *    service-account tokens;
 * 5. for RBAC-governed users (service accounts, impersonation, certificates outside system:masters): RBAC
 *    authorization (kube-apiserver's 403);
 * 6. answer: version, health, discovery, OpenAPI, or a resource request (resource-handler.ts; 503 first when
 *    `availability` says the storage is down).
 * Every error is a Status body built from StatusError (text/plain only for APF-style 429).
 */
import { randomUUID } from 'node:crypto';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { Clock } from '../clock';
import { StatusError, internalError, methodNotAllowed, pathNotFound } from './errors';
import type { ObjectStore } from './store';
import type { KindInfo } from './types';
import { qualifiedResource } from './types';
import { Authenticated, TokenAuthenticator, TokenTable, authenticate } from './auth';
import { accessReviewKind, answerAccessReview, attributesOf, authorizeRequest, impersonate, RbacContext } from '../rbac/request';
import {
  servesSubresource,
  subresourceVerbs,
  aggregatedContentType,
  aggregatedDiscovery,
  legacyCoreVersions,
  legacyGroup,
  legacyGroupList,
  legacyResourceList,
  negotiateDiscovery,
} from './discovery';
import { send, sendJson, sendStatusError } from './http-io';
import { OpenApiPublisher } from './openapi';
import { handleResource } from './resource-handler';
import { KUBEVIRT_SUBRESOURCE_GROUP, handleKubevirtSubresource, kubevirtVerb } from './kubevirt-subresources';
import { ResourceRoute, Route, isWatchQuery, parseRoute, resourceVerb } from './router';
import type { TlsMaterial } from './tls';
import { DEFAULT_VERSION_INFO, VersionInfo, healthBody } from './version';
import type { WatchStream } from './watch-stream';
import { Faults } from '../faults/controller';
import { faultError } from '../faults/responses';
import type { FaultDecision, FaultRequest } from '../faults/rules';
import { JournalEntry, RequestJournal } from '../faults/journal';

/** Options of an API server instance. */
export interface ApiServerOptions {
  store: ObjectStore;
  clock: Clock;
  tokens: TokenTable;
  faults: Faults;
  journal: RequestJournal;
  /** Serve HTTPS with this material; plain HTTP when omitted (kubectl then sends no token). */
  tls?: TlsMaterial;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Added before every response. */
  latencyMs?: number;
  version?: VersionInfo;
  /** BOOKMARK interval for watches that allow them (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Service-account tokens, asked when a token is not one of `tokens` (emulator/rbac). */
  serviceAccountTokens?: TokenAuthenticator;
  /** RBAC for service accounts and impersonated users; without it every authenticated user may do anything. */
  rbac?: RbacContext;
  /**
   * Client-certificate authentication (kube-apiserver's --client-ca-file): TLS asks for a certificate, and one
   * that chains to `ca` is the identity `identify` gives it (tried before the bearer token, as the apiserver's
   * union authenticator does). Used by the guest RKE2 clusters (emulator/guest/rke2).
   */
  clientCertificates?: { ca: string; identify(cert: PeerCertificate): Authenticated | undefined };
  /** Asked before a resource request is served; a StatusError answers it instead (a guest API without etcd quorum). */
  availability?: () => StatusError | undefined;
}

const PUBLIC_ROUTES = new Set<Route['type']>(['version', 'health']);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An apiserver over the given store, listening on loopback. */
export class ApiServer {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<WatchStream>();
  private readonly openapi: OpenApiPublisher;
  private address: AddressInfo | undefined;

  constructor(private readonly options: ApiServerOptions) {
    this.openapi = new OpenApiPublisher(options.store.registry);
  }

  /** `https://127.0.0.1:PORT` (or http://), once listening. */
  get url(): string {
    if (!this.address) throw new Error('ApiServer.url: the server is not listening yet; await listen() first');
    const host = this.address.family === 'IPv6' ? `[${this.address.address}]` : this.address.address;
    return `${this.options.tls ? 'https' : 'http'}://${host}:${this.address.port}`;
  }

  /** Start listening; resolves with the URL. */
  async listen(): Promise<string> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      void this.handle(req, res);
    };
    const tls = this.options.tls;
    const clientCa = this.options.clientCertificates?.ca;
    const server = tls
      ? https.createServer({ key: tls.key, cert: tls.cert, ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: false } : {}) }, handler)
      : http.createServer(handler);
    // Keep-alive connections from kubectl would otherwise hold close() open.
    server.keepAliveTimeout = 30_000;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.address = server.address() as AddressInfo;
    return this.url;
  }

  /** End every watch, drop every connection and stop listening. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const w of [...this.watches]) w.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private trackWatch(stream: WatchStream): () => void {
    this.watches.add(stream);
    return () => this.watches.delete(stream);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const rawUrl = req.url ?? '/';
    // Concatenate rather than resolve, so a path starting with // is not read as a host.
    const url = new URL(`http://emulator.invalid${rawUrl.startsWith('/') ? '' : '/'}${rawUrl}`);
    const method = (req.method ?? 'GET').toUpperCase();
    const entry = this.options.journal.record({
      method,
      url: rawUrl,
      path: url.pathname,
      requestContentType: req.headers['content-type'],
      accept: req.headers.accept,
      userAgent: req.headers['user-agent'],
    });
    this.instrument(res, entry, started);
    res.setHeader('Audit-Id', randomUUID());
    res.setHeader('Cache-Control', 'no-cache, private');

    try {
      const route = parseRoute(url.pathname);
      const watch = isWatchQuery(url.searchParams);
      let kind: KindInfo | undefined;
      // undefined for a method the resource path does not support (405 after authentication).
      let resourceVerbName: string | undefined;
      const kubevirtSubresource = route.type === 'resource' && route.group === KUBEVIRT_SUBRESOURCE_GROUP;
      if (route.type === 'resource') {
        if (kubevirtSubresource) resourceVerbName = kubevirtVerb(method);
        else {
          kind = this.resolveKind(route);
          resourceVerbName = this.resourceVerbOf(method, route, kind, watch);
        }
        Object.assign(entry, { resource: route.plural, namespace: route.namespace, name: route.name, subresource: route.subresource });
      }
      const verb = resourceVerbName ?? method.toLowerCase();
      entry.verb = verb;

      const decision = this.decideFaults(method, rawUrl, verb, route, kind, req);
      if (decision.applied.length > 0) entry.faults = decision.applied;
      const delay = (this.options.latencyMs ?? 0) + decision.latencyMs;
      if (delay > 0) await sleep(delay);
      if (res.destroyed) return;
      if (decision.expireToken) this.options.tokens.expire();
      const action = decision.action;
      if (action?.type === 'reset') {
        req.socket.destroy();
        return;
      }
      if (action?.type === 'error' || action?.type === 'unauthorized') throw faultError(action);

      let auth = this.certificateIdentity(req) ?? authenticate(req, this.options.tokens, PUBLIC_ROUTES.has(route.type), this.options.serviceAccountTokens);
      const rbac = this.options.rbac;
      if (rbac) {
        // The admin path pays one header lookup; only RBAC-governed users are authorized rule by rule.
        if (req.headers['impersonate-user'] !== undefined || req.headers['impersonate-group'] !== undefined) auth = impersonate(req, auth, rbac);
        if (auth.groups) authorizeRequest(rbac, attributesOf({ user: auth.user, groups: auth.groups }, route, method, watch, url.pathname, url.searchParams));
        const review = accessReviewKind(route, method);
        if (review) {
          await answerAccessReview(req, res, review, auth, rbac);
          return;
        }
      }
      if (route.type === 'resource' && kubevirtSubresource) {
        await handleKubevirtSubresource(req, res, method, route, this.kubevirtDeps());
        return;
      }
      if (route.type === 'resource') {
        if (kind === undefined) throw pathNotFound();
        if (resourceVerbName === undefined) throw methodNotAllowed();
        const unavailable = this.options.availability?.();
        if (unavailable) throw unavailable;
        await handleResource(
          { req, res, query: url.searchParams, route, kind, verb: resourceVerbName, user: auth.user, decision },
          {
            store: this.options.store,
            now: () => this.options.clock.now(),
            bookmarkIntervalMs: this.options.bookmarkIntervalMs,
            trackWatch: (stream) => this.trackWatch(stream),
          },
        );
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
      this.handleNonResource(route, req, res, url);
    } catch (err) {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      if (!(err instanceof StatusError)) {
        // A bug, not a client error: answer like the apiserver (500) and make it visible to whoever runs us.
        process.emitWarning(`emulator API server: ${method} ${url.pathname} failed: ${(err as Error)?.stack ?? String(err)}`, 'EmulatorServerWarning');
      }
      sendStatusError(res, err instanceof StatusError ? err : internalError((err as Error)?.message ?? String(err)));
    }
  }

  /** The identity of a verified client certificate, if the server takes them and the client sent one. */
  private certificateIdentity(req: IncomingMessage): Authenticated | undefined {
    const certificates = this.options.clientCertificates;
    const socket = req.socket as TLSSocket;
    if (!certificates || !socket.authorized) return undefined;
    return certificates.identify(socket.getPeerCertificate());
  }

  /** Fill the journal entry from the response as it goes out. */
  private instrument(res: ServerResponse, entry: JournalEntry, started: number): void {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
      const out = writeHead(...args);
      entry.status = res.statusCode;
      const ct = res.getHeader('content-type');
      if (ct !== undefined) entry.contentType = String(ct);
      return out;
    };
    res.on('close', () => {
      if (entry.status === undefined) entry.status = res.headersSent ? res.statusCode : 0;
      entry.durationMs = Date.now() - started;
    });
  }

  /** The kinds KubeVirt's subresource handlers write (404 for everything when the registry lacks them). */
  private kubevirtDeps(): Parameters<typeof handleKubevirtSubresource>[4] {
    const registry = this.options.store.registry;
    const vm = registry.byKind('kubevirt.io/v1', 'VirtualMachine');
    const vmi = registry.byKind('kubevirt.io/v1', 'VirtualMachineInstance');
    const migration = registry.byKind('kubevirt.io/v1', 'VirtualMachineInstanceMigration');
    if (!vm || !vmi || !migration) throw pathNotFound();
    return { store: this.options.store, vm, vmi, migration };
  }

  private resolveKind(route: ResourceRoute): KindInfo | undefined {
    const kind = this.options.store.registry.byResource(route.group, route.version, route.plural);
    if (!kind) return undefined;
    if (!kind.namespaced && route.namespace !== undefined) return undefined;
    if (kind.namespaced && route.namespace === undefined && route.name !== undefined) return undefined;
    if (route.subresource !== undefined && !servesSubresource(kind, route.subresource)) return undefined;
    return kind;
  }

  /** The verb, or undefined for a method the path does not support (405). */
  private resourceVerbOf(method: string, route: ResourceRoute, kind: KindInfo | undefined, watch: boolean): string | undefined {
    const verb = resourceVerb(method, route, watch);
    if (verb === undefined) return undefined;
    // The all-namespaces path of a namespaced kind serves only list and watch.
    if (kind?.namespaced && route.namespace === undefined && verb !== 'list' && verb !== 'watch') return undefined;
    if (route.subresource !== undefined && !(subresourceVerbs(route.subresource) ?? []).includes(verb)) return undefined;
    return verb;
  }

  private decideFaults(method: string, url: string, verb: string, route: Route, kind: KindInfo | undefined, req: IncomingMessage): FaultDecision {
    const fr: FaultRequest = { method, url, verb, userAgent: req.headers['user-agent'] };
    if (route.type === 'resource') {
      fr.resource = route.plural;
      fr.qualifiedResource = kind ? qualifiedResource(kind) : route.group ? `${route.plural}.${route.group}` : route.plural;
      fr.namespace = route.namespace;
      fr.name = route.name;
      fr.subresource = route.subresource;
    }
    return this.options.faults.decide(fr);
  }

  private handleNonResource(route: Route, req: IncomingMessage, res: ServerResponse, url: URL): void {
    const registry = this.options.store.registry;
    switch (route.type) {
      case 'version':
        sendJson(res, 200, this.options.version ?? DEFAULT_VERSION_INFO);
        return;
      case 'health':
        send(res, 200, healthBody(route.path, url.searchParams.has('verbose')), 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
        return;
      case 'coreVersions':
      case 'groupList': {
        const format = negotiateDiscovery(req.headers.accept);
        const core = route.type === 'coreVersions';
        if (format !== 'legacy') {
          sendJson(res, 200, aggregatedDiscovery(registry, core, format), aggregatedContentType(format), { Vary: 'Accept' });
        } else {
          const host = this.address ? `${this.address.address}:${this.address.port}` : '127.0.0.1:6443';
          sendJson(res, 200, core ? legacyCoreVersions(host) : legacyGroupList(registry), 'application/json', { Vary: 'Accept' });
        }
        return;
      }
      case 'group': {
        const body = legacyGroup(registry, route.group);
        if (!body) throw pathNotFound();
        sendJson(res, 200, body);
        return;
      }
      case 'resourceList': {
        const body = legacyResourceList(registry, route.group, route.version);
        if (!body) throw pathNotFound();
        sendJson(res, 200, body);
        return;
      }
      case 'openapiV3Index':
        sendJson(res, 200, this.openapi.index());
        return;
      case 'openapiV3Document': {
        const doc = this.openapi.document(route.gvPath);
        if (!doc) throw pathNotFound();
        const etag = `"${doc.hash}"`;
        const immutable = url.searchParams.get('hash') === doc.hash;
        const headers = { ETag: etag, 'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private', Vary: 'Accept' };
        if (req.headers['if-none-match'] === etag) {
          for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
          res.writeHead(304);
          res.end();
          return;
        }
        send(res, 200, doc.body, 'application/json', headers);
        return;
      }
      case 'openapiV2':
      case 'notFound':
      case 'resource':
        throw pathNotFound();
    }
  }
}
