/**
 * Loads and validates a kubeconfig, the way kubectl finds it: the `kubeconfig` option (a file path, or the YAML
 * itself, e.g. a Pulumi secret, also base64-encoded), else $KUBECONFIG (several files merged, first one wins), else ~/.kube/config.
 * Problems are reported with the field path (`clusters[0].cluster.server is missing`) and never quote the
 * document, since it holds credentials. Secret values found in it are registered with redact.ts.
 *
 * TLS: verification is on unless the selected cluster itself says `insecure-skip-tls-verify: true` (then a
 * warning is logged); NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment does not turn it off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import YAML from 'yaml';
import { KubeConfigError } from './errors';
import { SafeLogger } from './logger';
import { registerSecret } from './redact';
import { sharedAgent } from './agents';

/** How the selected user authenticates. */
export type AuthKind = 'token' | 'client-certificate' | 'basic' | 'exec' | 'auth-provider' | 'none';

/** Where requests go and as whom; used in error messages (never holds a secret). */
export interface ConnectionInfo {
  /** API server URL, e.g. https://10.0.0.10:6443 or https://rancher.example.com/k8s/clusters/c-m-x1. */
  server: string;
  /** The kubeconfig context in use. */
  context: string;
  auth: AuthKind;
  /** The kubeconfig looks Rancher-issued (a /k8s/clusters/ server path or a Rancher API token). */
  rancher: boolean;
  /** TLS verification is off because the kubeconfig says insecure-skip-tls-verify. */
  insecure: boolean;
}

/** A validated kubeconfig, ready for client-node. */
export interface LoadedKubeConfig {
  kubeConfig: KubeConfig;
  connection: ConnectionInfo;
  /** The context's default namespace, if it names one. */
  namespace?: string;
  /** "inline kubeconfig" or the file path(s) it came from. */
  source: string;
}

/** Inputs of loadKubeConfig. */
export interface KubeConfigOptions {
  /** A path to a kubeconfig file, or the kubeconfig YAML/JSON itself. Unset: $KUBECONFIG, then ~/.kube/config. */
  kubeconfig?: string;
  /** Context to use instead of current-context. */
  context?: string;
  logger?: SafeLogger;
  /** For tests: the environment and home directory to resolve defaults from. */
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

type Doc = Record<string, unknown>;
interface Part {
  doc: Doc;
  /** Directory relative file references resolve against (undefined for inline content). */
  dir?: string;
  source: string;
}

function fail(source: string, problem: string, fix: string): never {
  throw new KubeConfigError({ code: 'KubeConfigInvalid', summary: `Kubeconfig (${source}): ${problem}`, fix });
}

function looksLikeDocument(value: string): boolean {
  const t = value.trim();
  return t.includes('\n') || t.startsWith('{') || /^(apiVersion|kind|clusters|contexts|users|current-context)\s*:/.test(t);
}

/** The kubeconfig inside a base64 string (the node driver and the Terraform provider accept that form), if it is one. */
function fromBase64(value: string): string | undefined {
  const t = value.replace(/\s+/g, '');
  if (t.length < 16 || t.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(t)) return undefined;
  const text = Buffer.from(t, 'base64').toString('utf8');
  // A path can also be valid base64: only text that starts like a kubeconfig counts (no binary noise).
  if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)) return undefined;
  return /^\s*(\{|(apiVersion|kind|clusters|contexts|users|current-context|preferences)\s*:)/.test(text) ? text : undefined;
}

/** True when the option holds kubeconfig content (YAML, JSON, or either in base64) rather than a path. */
export function looksLikeContent(value: string): boolean {
  return looksLikeDocument(value) || fromBase64(value) !== undefined;
}

function parseDoc(text: string, source: string): Doc {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    // The parser's message quotes the offending line, which may hold a token: keep only the position.
    const pos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    fail(source, `it is not valid YAML${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`, 'Fix the YAML syntax, or download the kubeconfig again');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) fail(source, 'it is not a YAML mapping (expected apiVersion, clusters, contexts, users)', 'Pass a kubeconfig file or its content');
  return doc as Doc;
}

function readFile(file: string, source: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unreadable';
    fail(source, `the file cannot be read (${code})`, 'Check the path, or pass the kubeconfig content instead');
  }
}

function expandHome(p: string, home: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(home, p.slice(1)) : p;
}

/** A kubeconfig file read, its content registered as a secret, and parsed; relative references resolve beside it. */
function filePart(file: string, source = `file ${file}`): Part {
  const text = readFile(file, source);
  registerSecret(text, { lines: false });
  return { doc: parseDoc(text, source), dir: path.dirname(file), source };
}

function collectParts(options: KubeConfigOptions): Part[] {
  const env = options.env ?? process.env;
  const home = options.homeDir ?? os.homedir();
  const given = options.kubeconfig;
  if (given !== undefined && given.trim() !== '') {
    if (looksLikeContent(given)) {
      registerSecret(given, { lines: false });
      // base64 first: `base64` wraps its output at 76 columns, and the line breaks make it look like a document.
      const decoded = fromBase64(given);
      if (decoded === undefined) return [{ doc: parseDoc(given, 'inline kubeconfig'), source: 'inline kubeconfig' }];
      registerSecret(decoded, { lines: false });
      return [{ doc: parseDoc(decoded, 'inline kubeconfig (base64)'), source: 'inline kubeconfig (base64)' }];
    }
    const file = path.resolve(expandHome(given.trim(), home));
    const shown = /^[\w~./\\: -]{1,4096}$/.test(given.trim()) ? `file ${file}` : 'the kubeconfig option';
    if (!fs.existsSync(file)) fail(shown, 'the file does not exist (the option is neither kubeconfig content nor an existing path)', 'Pass an existing file path, or the kubeconfig content itself');
    return [filePart(file, shown)];
  }
  const fromEnv = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f.trim() !== '');
  if (fromEnv.length > 0) {
    // kubectl skips missing files in KUBECONFIG; an empty result is an error.
    const parts = fromEnv
      .map((f) => path.resolve(expandHome(f, home)))
      .filter((f) => fs.existsSync(f))
      .map((f) => filePart(f));
    if (parts.length === 0) fail(`KUBECONFIG=${fromEnv.join(path.delimiter)}`, 'none of the files exists', 'Point KUBECONFIG at an existing file, or pass the kubeconfig option');
    return parts;
  }
  const def = path.join(home, '.kube', 'config');
  if (!fs.existsSync(def)) {
    fail('none given', `no kubeconfig option, KUBECONFIG is unset and ${def} does not exist`, 'Pass the kubeconfig option (a path or the content), or set KUBECONFIG');
  }
  return [filePart(def)];
}

interface Named {
  name: string;
  body: Doc;
  index: number;
  part: Part;
}

/** Entries of `key` across parts, first definition of each name winning (kubectl's merge rule). */
function entries(parts: Part[], key: 'clusters' | 'contexts' | 'users', bodyKey: 'cluster' | 'context' | 'user'): Map<string, Named> {
  const out = new Map<string, Named>();
  for (const part of parts) {
    const list = part.doc[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) fail(part.source, `${key} is not a list`, `Make ${key} a YAML list of {name, ${bodyKey}} entries`);
    list.forEach((item: unknown, i: number) => {
      const it = (item ?? {}) as Doc;
      if (typeof it.name !== 'string' || it.name === '') fail(part.source, `${key}[${i}].name is missing`, `Give every entry of ${key} a name`);
      const body = it[bodyKey];
      if (bodyKey !== 'user' && (!body || typeof body !== 'object')) fail(part.source, `${key}[${i}].${bodyKey} is missing`, `Add the ${bodyKey} section to ${key}[${i}] ("${it.name}")`);
      if (!out.has(it.name)) out.set(it.name, { name: it.name, body: (body ?? {}) as Doc, index: i, part });
    });
  }
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function fileRef(v: unknown, part: Part, field: string): string | undefined {
  const f = str(v);
  if (!f) return undefined;
  const abs = part.dir && !path.isAbsolute(f) ? path.join(part.dir, f) : f;
  // "<field> names file …", not "<field>: file …": redaction would take "client-key: file" for a secret value.
  if (!fs.existsSync(abs)) fail(part.source, `${field} names file ${abs}, which does not exist`, 'Fix the path, or embed the data (the -data variant of the field)');
  return abs;
}

/** Load, validate and select a context. Throws KubeConfigError naming the field path on any problem. */
export function loadKubeConfig(options: KubeConfigOptions = {}): LoadedKubeConfig {
  const parts = collectParts(options);
  const source = parts.map((p) => p.source).join(', ');
  const clusters = entries(parts, 'clusters', 'cluster');
  const contexts = entries(parts, 'contexts', 'context');
  const users = entries(parts, 'users', 'user');
  const current = parts.map((p) => str(p.doc['current-context'])).find((c) => c !== undefined);

  const names = [...contexts.keys()];
  let contextName = options.context ?? current;
  if (contextName === undefined && names.length === 1) contextName = names[0];
  if (contextName === undefined) {
    fail(source, names.length === 0 ? 'contexts is empty' : 'current-context is not set', names.length === 0 ? 'Add a context that names a cluster and a user' : `Pass the context option: one of ${names.map((n) => `"${n}"`).join(', ')}`);
  }
  const ctx = contexts.get(contextName);
  if (!ctx) {
    const where = options.context ? `context "${contextName}" (from the context option)` : `current-context "${contextName}"`;
    fail(source, `${where} is not defined in contexts`, names.length ? `Use one of ${names.map((n) => `"${n}"`).join(', ')}` : 'Add the context to the kubeconfig');
  }
  const ctxPath = `contexts[${ctx.index}].context`;
  const clusterName = str(ctx.body.cluster);
  if (!clusterName) fail(ctx.part.source, `${ctxPath}.cluster is missing`, `Name the cluster of context "${contextName}"`);
  const cl = clusters.get(clusterName);
  if (!cl) fail(source, `${ctxPath}.cluster "${clusterName}" is not defined in clusters`, `Add a clusters entry named "${clusterName}"`);
  const clPath = `clusters[${cl.index}].cluster`;
  const server = str(cl.body.server);
  if (!server) fail(cl.part.source, `${clPath}.server is missing`, 'Add the API server URL (https://<harvester-vip>:6443, or the Rancher URL …/k8s/clusters/<id>)');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    fail(cl.part.source, `${clPath}.server is not a URL (${server})`, 'Use a full URL such as https://10.0.0.10:6443');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(cl.part.source, `${clPath}.server has scheme ${url.protocol} (${server})`, 'Use an https:// URL');
  const insecure = cl.body['insecure-skip-tls-verify'] === true;
  if (url.protocol === 'http:' && !insecure) {
    fail(cl.part.source, `${clPath}.server uses plain http (${server}) without insecure-skip-tls-verify`, 'Use the https:// URL of the API server');
  }
  const caFile = fileRef(cl.body['certificate-authority'], cl.part, `${clPath}.certificate-authority`);

  const userName = str(ctx.body.user);
  let user: User = { name: userName ?? '' };
  let auth: AuthKind = 'none';
  let token: string | undefined;
  if (userName) {
    const u = users.get(userName);
    if (!u) fail(source, `${ctxPath}.user "${userName}" is not defined in users`, `Add a users entry named "${userName}"`);
    const uPath = `users[${u.index}].user`;
    const b = u.body;
    const tokenFile = fileRef(b['token-file'], u.part, `${uPath}.token-file`);
    token = str(b.token) ?? (tokenFile ? fs.readFileSync(tokenFile, 'utf8').trim() : undefined);
    for (const secret of [token, str(b.password), str(b['client-key-data'])]) registerSecret(secret);
    if (str(b.username) && str(b.password)) registerSecret(`${b.username}:${b.password}`);
    user = {
      name: userName,
      token,
      certData: str(b['client-certificate-data']),
      certFile: fileRef(b['client-certificate'], u.part, `${uPath}.client-certificate`),
      keyData: str(b['client-key-data']),
      keyFile: fileRef(b['client-key'], u.part, `${uPath}.client-key`),
      username: str(b.username),
      password: str(b.password),
      exec: b.exec as User['exec'],
      authProvider: b['auth-provider'] as User['authProvider'],
      impersonateUser: str(b.as),
    };
    if ((user.certData || user.certFile) && !(user.keyData || user.keyFile)) {
      fail(u.part.source, `${uPath} has a client certificate but no client-key-data`, 'Add the key that belongs to the certificate');
    }
    auth = token ? 'token' : user.certData || user.certFile ? 'client-certificate' : user.username ? 'basic' : user.exec ? 'exec' : user.authProvider ? 'auth-provider' : 'none';
  }

  const rancher = /\/k8s\/clusters\//.test(url.pathname) || /^(kubeconfig-[a-z0-9-]+|token-[a-z0-9]+):/.test(token ?? '');
  const cluster: Cluster = {
    name: clusterName,
    server: server.replace(/\/$/, ''),
    caData: str(cl.body['certificate-authority-data']),
    caFile,
    skipTLSVerify: insecure,
    tlsServerName: str(cl.body['tls-server-name']),
    proxyUrl: str(cl.body['proxy-url']),
  };
  const context: Context = { name: contextName, cluster: clusterName, user: userName ?? '', namespace: str(ctx.body.namespace) };
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [cluster], users: [user], contexts: [context], currentContext: contextName });
  configureAgents(kc);

  const connection: ConnectionInfo = { server: cluster.server, context: contextName, auth, rancher, insecure };
  if (insecure && url.protocol === 'https:') {
    options.logger?.warn(
      `TLS certificate verification for ${cluster.server} (kubeconfig context "${contextName}") is off because the kubeconfig ` +
        'sets insecure-skip-tls-verify: true; the connection can be intercepted. Prefer certificate-authority-data.',
    );
  }
  if (!insecure && (options.env ?? process.env).NODE_TLS_REJECT_UNAUTHORIZED === '0') {
    options.logger?.warn('NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored for the Harvester API: TLS verification stays on unless the kubeconfig sets insecure-skip-tls-verify.');
  }
  return { kubeConfig: kc, connection, namespace: context.namespace, source };
}

/** Route client-node's per-request agent creation (API calls and watches) to the process-wide shared agents. */
function configureAgents(kc: KubeConfig): void {
  const target = kc as unknown as { createAgent?: (cluster: Cluster | null, opts: Record<string, unknown>) => unknown };
  const original = target.createAgent;
  if (typeof original !== 'function') return;
  target.createAgent = (cluster, opts) => sharedAgent((c, o) => original.call(kc, c, o), cluster, opts);
}
