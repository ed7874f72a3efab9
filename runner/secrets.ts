/**
 * Secrets as the engine handles them. The SDK sends a secret as the signature object
 * `{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value }`; the dynamic-provider host
 * does not accept secrets (docs/design/dynamic-host-contract.md §"Secrets"), so the engine unwraps them before a
 * call and marks the same properties secret again in what it records and returns. In the state file (and in
 * Pulumi.<stack>.yaml) a secret value is sealed with AES-256-GCM under a key kept beside the state (mode 0600), so no
 * file holds it in plain text.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const SECRET_SIG_KEY = '4dabf18193072939515e22adb298388d';
export const SECRET_SIG_VALUE = '1b47061264138c4ac30d75fd1eb44270';

type Raw = Record<string, unknown>;

export function isSecretValue(v: unknown): v is { value: unknown } {
  return typeof v === 'object' && v !== null && (v as Raw)[SECRET_SIG_KEY] === SECRET_SIG_VALUE;
}

export function secretValue(value: unknown): Raw {
  return { [SECRET_SIG_KEY]: SECRET_SIG_VALUE, value };
}

/** Removes secret wrappers anywhere in `value`; a top-level property holding one (at any depth) is reported secret. */
export function unwrapSecrets(props: Raw): { plain: Raw; secretKeys: string[] } {
  const secretKeys = new Set<string>();
  const strip = (v: unknown, top: string): unknown => {
    if (isSecretValue(v)) {
      secretKeys.add(top);
      return strip(v.value, top);
    }
    if (Array.isArray(v)) return v.map((x) => strip(x, top));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x, top)]));
    return v;
  };
  const plain = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, strip(v, k)]));
  return { plain, secretKeys: [...secretKeys].sort() };
}

/** Wraps the named top-level properties as secrets (what the engine returns to the program). */
export function wrapSecrets(props: Raw, secretKeys: readonly string[]): Raw {
  const out: Raw = { ...props };
  for (const key of secretKeys) if (key in out && out[key] !== undefined) out[key] = secretValue(out[key]);
  return out;
}

const SEALED = 'sealed:aes-256-gcm:';

/**
 * Seals and opens secret values of the state file and of Pulumi.<stack>.yaml with the stack's key file. The key is
 * made on the first seal, never before: a stack that has sealed nothing (a preview, a failed first run) leaves no
 * key file behind.
 */
export class SecretBox {
  private key: Buffer | undefined;

  private constructor(readonly keyFile: string) {}

  /** The box of a key file, which need not exist yet. */
  static forKeyFile(path: string): SecretBox {
    return new SecretBox(path);
  }

  private keyBytes(create: boolean): Buffer {
    if (this.key) return this.key;
    if (!existsSync(this.keyFile)) {
      if (!create) {
        throw new Error(`${this.keyFile} does not exist: the values sealed with it cannot be opened (was the state folder moved or deleted?). Set secret config again with \`harvester-iac-run config set --secret\`.`);
      }
      mkdirSync(dirname(this.keyFile), { recursive: true });
      writeFileSync(this.keyFile, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    const key = Buffer.from(readFileSync(this.keyFile, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${this.keyFile} does not hold a 32-byte base64 key; delete it only if nothing was sealed with it`);
    this.key = key;
    return key;
  }

  /** True when `value` is a value this box seals (it may still belong to another key). */
  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(SEALED);
  }

  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyBytes(true), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): unknown {
    if (!sealed.startsWith(SEALED)) throw new Error('not a sealed value');
    const raw = Buffer.from(sealed.slice(SEALED.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.keyBytes(false), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    let text: string;
    try {
      text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`a sealed value does not open with ${this.keyFile}: it was sealed with another key, or altered`);
    }
    return JSON.parse(text);
  }

  /** Seals the named top-level properties. */
  sealProps(props: Raw, secretKeys: readonly string[]): Raw {
    const out: Raw = { ...props };
    for (const key of secretKeys) if (out[key] !== undefined) out[key] = this.seal(out[key]);
    return out;
  }

  openProps(props: Raw, secretKeys: readonly string[]): Raw {
    const out: Raw = { ...props };
    for (const key of secretKeys) if (typeof out[key] === 'string') out[key] = this.open(out[key] as string);
    return out;
  }
}
