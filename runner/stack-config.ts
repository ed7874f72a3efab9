/**
 * Stack config in `Pulumi.<stack>.yaml` of the program folder, in the Pulumi CLI's layout: a `config:` map of
 * fully qualified keys (`harvester:kubeconfig`, `<project>:userData`) to plain values, or to `{ secure: … }` for
 * secrets. The runner seals a secret with the stack's own key file (`<state>/<stack>.key`, the key that seals the
 * state's secrets; AES-256-GCM, ciphertext `sealed:aes-256-gcm:…`), not with a Pulumi secrets provider: the Pulumi
 * CLI cannot open the runner's `secure:` values, nor the runner the CLI's (`v1:…`); each says so and names the
 * command that sets the value again. Comments and the order of the file are kept when a value is set or removed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Document, isMap, parseDocument } from 'yaml';
import { SecretBox } from './secrets';

/** One config value as the program gets it (PULUMI_CONFIG holds strings; structured values as JSON). */
export interface ConfigEntry {
  key: string;
  /** The value; '' for a secret that was not opened (listing without --show-secrets). */
  value: string;
  secret: boolean;
}

const HEADER = [
  ' Stack config of the harvester-iac local runner (harvester-iac-run config set/get/rm), laid out as the Pulumi',
  ' CLI lays it out. `secure:` values are sealed with the key file of the runner\'s state folder',
  ' (.harvester-run/<stack>.key by default), which the Pulumi CLI cannot read.',
].join('\n');

/** `KEY` of `config set KEY` qualified as Pulumi qualifies it: a key without a namespace belongs to the project. */
export function qualifyKey(key: string, project: string): string {
  if (!key.trim()) throw new Error('a config key cannot be empty');
  const parts = key.split(':');
  if (parts.length > 2 || parts.some((p) => !p)) throw new Error(`config key "${key}": expected NAME or NAMESPACE:NAME (e.g. harvester:kubeconfig)`);
  return parts.length === 2 ? key : `${project}:${key}`;
}

/** The key as `config` lists it: the project's own keys without their namespace, as the Pulumi CLI shows them. */
export function displayKey(key: string, project: string): string {
  return key.startsWith(`${project}:`) ? key.slice(project.length + 1) : key;
}

export class StackConfigFile {
  readonly path: string;

  constructor(
    pwd: string,
    readonly stack: string,
    private readonly box: SecretBox,
  ) {
    this.path = join(pwd, `Pulumi.${stack}.yaml`);
  }

  /** The file of `stack` in `pwd`, sealing with the key file `<stateDir>/<stack>.key`. */
  static of(pwd: string, stateDir: string, stack: string): StackConfigFile {
    return new StackConfigFile(pwd, stack, SecretBox.forKeyFile(join(stateDir, `${stack}.key`)));
  }

  private document(): Document {
    if (!existsSync(this.path)) return new Document({ config: {} });
    const doc = parseDocument(readFileSync(this.path, 'utf8'));
    if (doc.errors.length) throw new Error(`${this.path}: not valid YAML: ${doc.errors[0].message}`);
    if (doc.contents !== null && !isMap(doc.contents)) throw new Error(`${this.path}: expected a map with a \`config:\` key`);
    const config = doc.get('config');
    if (config !== undefined && config !== null && !isMap(config)) throw new Error(`${this.path}: \`config:\` must be a map of KEY: value`);
    return doc;
  }

  /**
   * Every value, qualified keys sorted. Secrets are opened only with `openSecrets` (else their value is ''), so
   * listing needs no key file.
   */
  entries(openSecrets: boolean): ConfigEntry[] {
    const js = (this.document().toJS() ?? {}) as { config?: Record<string, unknown> | null };
    const out: ConfigEntry[] = [];
    for (const [key, plain] of Object.entries(js.config ?? {})) {
      const secure = plain && typeof plain === 'object' && !Array.isArray(plain) && 'secure' in plain ? (plain as { secure: unknown }).secure : undefined;
      if (secure !== undefined) out.push({ key, secret: true, value: openSecrets ? this.open(key, secure) : '' });
      else out.push({ key, secret: false, value: typeof plain === 'string' ? plain : JSON.stringify(plain) });
    }
    return out.sort((a, b) => a.key.localeCompare(b.key));
  }

  private open(key: string, secure: unknown): string {
    if (!SecretBox.isSealed(secure)) {
      throw new Error(
        `${this.path}: the secure value of ${key} was not sealed by harvester-iac-run (the Pulumi CLI's secrets provider seals \`v1:…\`); set it again with \`harvester-iac-run config set --secret ${key}\``,
      );
    }
    const value = this.box.open(secure);
    if (typeof value !== 'string') throw new Error(`${this.path}: the secure value of ${key} does not hold text`);
    return value;
  }

  /** One value, a secret opened. */
  get(key: string): ConfigEntry | undefined {
    const entry = this.entries(false).find((e) => e.key === key);
    if (!entry?.secret) return entry;
    const js = this.document().toJS() as { config: Record<string, { secure: unknown }> };
    return { ...entry, value: this.open(key, js.config[key].secure) };
  }

  /** Sets (or replaces) a value, sealing it when `secret`; writes the file atomically. */
  set(key: string, value: string, secret: boolean): void {
    const doc = this.document();
    if (!existsSync(this.path)) doc.commentBefore = HEADER;
    if (!isMap(doc.get('config'))) doc.set('config', doc.createNode({}, { flow: false }));
    doc.setIn(['config', key], secret ? doc.createNode({ secure: this.box.seal(value) }) : value);
    this.write(doc);
  }

  /** Removes a value; false when there was none. */
  remove(key: string): boolean {
    const doc = this.document();
    if (!doc.hasIn(['config', key])) return false;
    doc.deleteIn(['config', key]);
    this.write(doc);
    return true;
  }

  private write(doc: Document): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, doc.toString({ lineWidth: 0 }), { mode: 0o644 });
    renameSync(tmp, this.path);
  }
}
