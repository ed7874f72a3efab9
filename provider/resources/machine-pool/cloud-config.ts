/**
 * Cloud-init user data for the pool's VMs. Harvester learns a bridged VM's IP address only from
 * qemu-guest-agent, and the node driver stopped injecting it in v0.6.3 (docs/design/harvester-vms.md §"Cloud-init",
 * §"Readiness"; harvester/harvester#7018), so by default we make sure the cloud-config installs and starts it.
 *
 * The merge works on the parsed YAML document (packages, runcmd, ssh_authorized_keys), never by string
 * append, and keeps the user's comments and order. Messages never quote the user data: it is secret.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, type YAMLSeq } from 'yaml';

/** The package we make sure is installed. */
export const GUEST_AGENT_PACKAGE = 'qemu-guest-agent';
/** The runcmd entry we add; the list form avoids shell quoting. */
export const GUEST_AGENT_RUNCMD = ['systemctl', 'enable', '--now', 'qemu-guest-agent.service'];

/** What kind of cloud-init user data a text is, judged by its first line (cloud-init's own rule). */
export type UserDataKind = 'empty' | 'cloud-config' | 'jinja-cloud-config' | 'shell-script' | 'mime-multipart' | 'include' | 'boothook' | 'unknown';

/** classifyUserData reads the first line(s) the way cloud-init picks a handler. */
export function classifyUserData(text: string | undefined): UserDataKind {
  if (text === undefined || text.trim() === '') return 'empty';
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const first = lines[0].trim();
  if (/^## template:\s*jinja\s*$/i.test(first)) return lines[1]?.trim() === '#cloud-config' ? 'jinja-cloud-config' : 'unknown';
  if (first === '#cloud-config') return 'cloud-config';
  if (first.startsWith('#!')) return 'shell-script';
  if (/^content-type:/i.test(first) || /^mime-version:/i.test(first)) return 'mime-multipart';
  if (first.startsWith('#include')) return 'include';
  if (first.startsWith('#cloud-boothook')) return 'boothook';
  return 'unknown';
}

const KIND_NAMES: Record<UserDataKind, string> = {
  empty: 'empty',
  'cloud-config': 'a #cloud-config document',
  'jinja-cloud-config': 'a jinja-templated #cloud-config document',
  'shell-script': 'a shell script (it starts with "#!")',
  'mime-multipart': 'a MIME multi-part archive',
  include: 'an #include list',
  boothook: 'a #cloud-boothook',
  unknown: 'not a #cloud-config document (its first line is not "#cloud-config")',
};

/** CloudConfigError is a problem with user data, phrased for the `userData` input; never quotes it. */
export class CloudConfigError extends Error {
  readonly code: 'UserDataNotCloudConfig' | 'UserDataInvalidYaml' | 'UserDataInvalidShape' | 'GuestCredentialsInvalid';
  constructor(code: CloudConfigError['code'], message: string) {
    super(message);
    this.name = code;
    this.code = code;
  }
}

/** Options for {@link renderUserData}. */
export interface RenderOptions {
  userData?: string;
  guestAgent: 'install' | 'none';
  /** OpenSSH public keys of the pool's KeyPairs, added to ssh_authorized_keys. */
  sshPublicKeys?: readonly string[];
  /** The guestCredentials input (a GuestClusterCredentials' cloudInit): its write_files are merged in. */
  guestCredentials?: string;
}

/**
 * guestCredentialFiles reads the `write_files` entries of the guestCredentials input (a GuestClusterCredentials'
 * cloudInit output): a #cloud-config mapping whose write_files is a list of entries each naming a path. Never quotes it.
 */
export function guestCredentialFiles(text: string | undefined): Record<string, unknown>[] {
  if (text === undefined) return [];
  const invalid = (why: string) => new CloudConfigError('GuestCredentialsInvalid', `guestCredentials ${why}: give it the cloudInit output of a GuestClusterCredentials.`);
  if (classifyUserData(text) !== 'cloud-config') throw invalid('is not a #cloud-config document');
  const doc = parseDocument(text);
  const value = doc.errors.length ? undefined : (doc.toJS() as Record<string, unknown> | null);
  const files = value && typeof value === 'object' ? value.write_files : undefined;
  if (!Array.isArray(files) || files.length === 0) throw invalid('holds no write_files list');
  if (!files.every((f) => f !== null && typeof f === 'object' && typeof (f as Record<string, unknown>).path === 'string')) throw invalid('has a write_files entry without a path');
  return files as Record<string, unknown>[];
}

/**
 * renderUserData returns the user data the VMs receive: the user's cloud-config with qemu-guest-agent
 * (unless guestAgent is "none") and the key pairs' public keys merged in. User data that is not a
 * cloud-config passes through untouched only when nothing needs merging; otherwise it is refused with
 * an explanation of why and what to do.
 */
export function renderUserData(options: RenderOptions): string {
  const keys = options.sshPublicKeys ?? [];
  const files = guestCredentialFiles(options.guestCredentials);
  const kind = classifyUserData(options.userData);
  const needsMerge = options.guestAgent === 'install' || keys.length > 0 || files.length > 0;
  if (kind !== 'empty' && kind !== 'cloud-config' && kind !== 'jinja-cloud-config') {
    if (!needsMerge) return options.userData as string;
    const why = options.guestAgent === 'install'
      ? 'With guestAgent "install" (the default) the pool merges qemu-guest-agent into the parsed cloud-config, because Harvester ' +
        'learns a bridged VM\'s IP only from the agent; that merge needs a #cloud-config document.'
      : files.length > 0
        ? 'The write_files of guestCredentials are merged into the cloud-config, which needs a #cloud-config document.'
        : 'The key pairs in sshKeys are added to ssh_authorized_keys, which needs a #cloud-config document.';
    throw new CloudConfigError(
      'UserDataNotCloudConfig',
      `userData is ${KIND_NAMES[kind]}. ${why} Rewrite it as #cloud-config (put script lines under runcmd or write_files), ` +
        `or${options.guestAgent === 'install' ? ' set guestAgent: "none" if the image or your script already installs and starts qemu-guest-agent' : ' remove sshKeys and add the keys in your script'}.`,
    );
  }
  const text = options.userData ?? '#cloud-config\n';
  const doc = parseUserData(text);
  if (options.guestAgent === 'install') ensureGuestAgent(doc);
  if (keys.length) appendUnique(seqAt(doc, 'ssh_authorized_keys'), keys);
  if (files.length) mergeWriteFiles(doc, files);
  let body = doc.toString({ lineWidth: 0 });
  if (!/^(## template:[^\n]*\n)?#cloud-config/.test(body)) body = `#cloud-config\n${body}`;
  return body;
}

/** userDataProblem returns the message `check` reports for the user data, or undefined if it renders. */
export function userDataProblem(userData: string | undefined, guestAgent: 'install' | 'none', withKeys: boolean, guestCredentials?: string): string | undefined {
  try {
    renderUserData({ userData, guestAgent, sshPublicKeys: withKeys ? ['ssh-ed25519 AAAA check'] : [], guestCredentials });
    return undefined;
  } catch (error) {
    if (error instanceof CloudConfigError) return error.message;
    throw error;
  }
}

function parseUserData(text: string): Document {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    // yaml's own message quotes the offending source line; userData is secret, so only the position is given.
    throw new CloudConfigError('UserDataInvalidYaml', `userData is not valid YAML (${e.code}${where}). Fix the document so it parses as YAML.`);
  }
  if (doc.contents === null) (doc as Document).contents = doc.createNode({});
  if (!isMap(doc.contents)) {
    throw new CloudConfigError('UserDataInvalidShape', 'userData must be a #cloud-config mapping of modules (e.g. "packages:", "runcmd:"), not a list or a scalar.');
  }
  return doc;
}

function seqAt(doc: Document, key: string): YAMLSeq {
  const node = doc.get(key, true);
  if (node === undefined || (isScalar(node) && node.value === null)) {
    const seq = doc.createNode([]) as YAMLSeq;
    doc.set(key, seq);
    return seq;
  }
  if (!isSeq(node)) throw new CloudConfigError('UserDataInvalidShape', `userData's "${key}" must be a list.`);
  return node;
}

/** Adds the entries to write_files, each replacing a user entry of the same path (the credentials win). */
function mergeWriteFiles(doc: Document, files: Record<string, unknown>[]): void {
  const seq = seqAt(doc, 'write_files');
  const paths = new Set(files.map((f) => f.path));
  seq.items = seq.items.filter((item) => !(isMap(item) && paths.has(String(item.get('path')))));
  for (const f of files) seq.add(doc.createNode(f));
}

function appendUnique(seq: YAMLSeq, values: readonly string[]): void {
  const present = new Set(seq.items.map((item) => (isScalar(item) ? String(item.value).trim() : '')));
  for (const v of values) if (!present.has(v.trim())) seq.add(v);
}

/** The commands of a runcmd entry: a string is split at shell separators, a list is one command. */
function commandsOf(item: unknown): string[][] {
  if (isScalar(item)) {
    return String(item.value).split(/&&|\|\||;|\n/).map((part) => part.trim().split(/\s+/).filter(Boolean)).filter((w) => w.length > 0);
  }
  if (isSeq(item)) return [item.items.map((i) => (isScalar(i) ? String(i.value) : ''))];
  return [];
}

const AGENT_UNITS = new Set([GUEST_AGENT_PACKAGE, `${GUEST_AGENT_PACKAGE}.service`]);

/**
 * startsGuestAgent says whether one command starts qemu-guest-agent: `systemctl start|restart <unit>` or
 * `systemctl enable --now <unit>` (optionally under sudo), the forms the docs' snippet uses.
 */
export function startsGuestAgent(words: readonly string[]): boolean {
  const args = words[0] === 'sudo' ? words.slice(1) : [...words];
  if (args.length === 0 || !/(^|\/)systemctl$/.test(args[0])) return false;
  const rest = args.slice(1).map((a) => a.replace(/^['"]|['"]$/g, ''));
  if (!rest.some((a) => AGENT_UNITS.has(a))) return false;
  return rest.includes('start') || rest.includes('restart') || (rest.includes('enable') && rest.includes('--now'));
}

function ensureGuestAgent(doc: Document): void {
  const packages = seqAt(doc, 'packages');
  const installed = packages.items.some((item) => {
    if (isScalar(item)) return String(item.value).trim() === GUEST_AGENT_PACKAGE;
    if (isSeq(item)) return isScalar(item.items[0]) && String(item.items[0].value) === GUEST_AGENT_PACKAGE;
    return false;
  });
  if (!installed) packages.add(GUEST_AGENT_PACKAGE);
  const runcmd = seqAt(doc, 'runcmd');
  if (!runcmd.items.some((item) => commandsOf(item).some(startsGuestAgent))) {
    runcmd.add(doc.createNode([...GUEST_AGENT_RUNCMD], { flow: true }));
  }
}

/**
 * guestAgentIn says whether rendered user data installs and starts qemu-guest-agent (used by readiness
 * errors to explain a missing IP). Non-cloud-config data is reported as unknown.
 */
export function guestAgentIn(userData: string | undefined): 'yes' | 'no' | 'unknown' {
  const kind = classifyUserData(userData);
  if (kind === 'empty') return 'no';
  if (kind !== 'cloud-config' && kind !== 'jinja-cloud-config') return 'unknown';
  let doc: Document;
  try {
    doc = parseUserData(userData as string);
  } catch {
    return 'unknown';
  }
  const packages = doc.get('packages', true);
  const runcmd = doc.get('runcmd', true);
  const installs = isSeq(packages) && packages.items.some((i) => (isScalar(i) ? String(i.value) === GUEST_AGENT_PACKAGE : isSeq(i) && isScalar(i.items[0]) && String(i.items[0].value) === GUEST_AGENT_PACKAGE));
  const starts = isSeq(runcmd) && runcmd.items.some((i) => commandsOf(i).some(startsGuestAgent));
  return installs && starts ? 'yes' : 'no';
}

/** networkDataProblem checks network data parses as a YAML mapping (message never quotes it). */
export function networkDataProblem(networkData: string | undefined): string | undefined {
  if (networkData === undefined || networkData.trim() === '') return undefined;
  const doc = parseDocument(networkData);
  if (doc.errors.length) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    return `networkData is not valid YAML (${e.code}${where}). Fix it so it parses as cloud-init network config (version 1 or 2).`;
  }
  const value = doc.toJS() as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'networkData must be a cloud-init network config mapping ("version: 2" with "ethernets:", or "version: 1" with "config:").';
  }
  const root = (value as Record<string, unknown>).network ?? value;
  const version = (root as Record<string, unknown>).version;
  if (version !== 1 && version !== 2) {
    return `networkData must declare "version: 1" or "version: 2" (got ${version === undefined ? 'no version' : 'another version'}).`;
  }
  return undefined;
}
