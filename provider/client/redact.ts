/**
 * Keeps secrets out of error messages and log lines. Two layers:
 *  1. exact values registered at run time (the kubeconfig's token, password, key data, the kubeconfig text
 *     itself, cloud-init userdata handed to a resource) are replaced wherever they appear;
 *  2. shapes that are secret whatever their value (bearer tokens, Rancher API tokens, JWTs, PEM private keys,
 *     `token:`/`password:`/`client-key-data:` fields, `userData` fields, `#cloud-config` documents).
 * Every HarvesterError runs its text through `redact`, and the client's logger does the same for each line.
 */

/** What a removed secret is replaced with. */
export const REDACTED = '[redacted]';

const registry = new Set<string>();
/** Shorter values are not registered: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 6;

/**
 * Remember a secret value so that `redact` removes it (and its base64 form) from any text. With `lines` (the
 * default) each line of 16+ characters of a multi-line value is registered too, for messages that quote a part
 * of userdata; pass false for documents whose other lines are not secret (a kubeconfig's server URL).
 */
export function registerSecret(value: string | undefined | null, options: { lines?: boolean } = {}): void {
  if (typeof value !== 'string') return;
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_LENGTH) return;
  registry.add(trimmed);
  registry.add(Buffer.from(trimmed, 'utf8').toString('base64'));
  // Multi-line values (kubeconfigs, userdata) can be quoted in part: register each substantial line too.
  if (options.lines !== false && trimmed.includes('\n')) {
    for (const line of trimmed.split('\n')) {
      const l = line.trim();
      if (l.length >= 16) registry.add(l);
    }
  }
}

/** Forget every registered secret (tests only). */
export function clearRegisteredSecrets(): void {
  registry.clear();
}

const SECRET_FIELD = String.raw`(?:token|id-token|refresh-token|access-token|password|client-key-data|client-key|userdata|userData|user-data|networkdata|networkData|network-data)`;

/** Order matters: whole blocks first, then fields, then free-standing token shapes. */
const PATTERNS: [RegExp, string | ((m: string, ...groups: string[]) => string)][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // A cloud-config document quoted inside a message: up to the closing (unescaped) quote, or the end.
  [/#cloud-config(?:[^"\\]|\\.)*/g, `#cloud-config ${REDACTED}`],
  [/\b(authorization)(["']?\s*[:=]\s*["']?)(bearer|basic)\s+[^\s"',}]+/gi, (_m, h, sep, scheme) => `${h}${sep}${scheme} ${REDACTED}`],
  [/\b(bearer)\s+[A-Za-z0-9._~+/=:-]{6,}/gi, (_m, scheme) => `${scheme} ${REDACTED}`],
  // `"token":"…"`, `token: …`, `password=…` (JSON, YAML, query strings): the field in key position only, a whole key,
  // not the end of a longer name ("Secret x-token: waiting for …" names an object and quotes no secret).
  [
    new RegExp(String.raw`((?<![\w./-])["']?${SECRET_FIELD}["']?\s*[:=]\s*)(?!(?:Invalid|Required|Unsupported|Forbidden|Duplicate) value)("(?:[^"\\]|\\.)*"|'[^']*'|[|>][-+]?\s*\n(?:[ \t]+.*(?:\n|$))+|[^\s,}\]]+)`, 'g'),
    (_m, key) => `${key}${REDACTED}`,
  ],
  // An apiserver validation message that quotes a userdata value: `…userData: Invalid value: "…"`.
  [
    new RegExp(String.raw`((?<![\w/-])${SECRET_FIELD}: (?:Invalid|Forbidden|Unsupported|Duplicate) value: )"(?:[^"\\]|\\.)*"`, 'g'),
    (_m, prefix) => `${prefix}${REDACTED}`,
  ],
  // Rancher API tokens (`kubeconfig-u-abc12:xyz…`, `token-abcde:xyz…`).
  [/\b(?:kubeconfig-[a-z0-9-]+|token-[a-z0-9]{5}):[A-Za-z0-9]{16,}\b/g, REDACTED],
  // JWTs (service-account tokens).
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, REDACTED],
];

/** Replace every registered secret and every secret-shaped substring of `text`. */
export function redact(text: string, extraSecrets: Iterable<string> = []): string {
  let out = text;
  const values = [...registry, ...[...extraSecrets].filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)];
  // Longest first, so a secret that contains another is removed whole.
  values.sort((a, b) => b.length - a.length);
  for (const v of values) {
    if (out.includes(v)) out = out.split(v).join(REDACTED);
  }
  for (const [re, replacement] of PATTERNS) {
    out = out.replace(re, replacement as never);
  }
  return out;
}

const SECRET_KEYS = new Set(['userData', 'userdata', 'user-data', 'networkData', 'networkdata', 'network-data', 'token', 'password', 'client-key-data']);

/**
 * A deep copy of `value` that is safe to log: Secret `data`/`stringData` values and fields named like
 * userdata, tokens or passwords become REDACTED, and strings go through `redact`.
 */
export function redactObject<T>(value: T): T {
  return walk(value, false) as T;
}

function walk(value: unknown, secretValues: boolean): unknown {
  if (typeof value === 'string') return secretValues ? REDACTED : redact(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, secretValues));
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const isSecret = obj.kind === 'Secret';
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const hide = secretValues || SECRET_KEYS.has(k) || (isSecret && (k === 'data' || k === 'stringData'));
      out[k] = walk(v, hide);
    }
    return out;
  }
  return value;
}
