/**
 * check's pure rules for an image, so what Harvester's image webhook (docs/design/harvester-images.md
 * §"Admission rules") or the apiserver would refuse is refused at preview, on its field: the display name a label
 * value (V1, and the apiserver's label check after the mutator copies it into a label), not empty (V2); a URL Go's
 * url.Parse takes (V6), and one Longhorn can download (http or https, a host); label keys and values the apiserver
 * takes, none of the keys Harvester or we set. The rules needing the cluster (V3 a display name taken, the storage
 * class, the namespace, a name we do not own) run in handlers.ts.
 */
import { formatPath } from '../../core/input-errors';
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { SECRET_INPUTS, imageSchema } from './model';

type Obj = Record<string, unknown>;

/** Label key prefixes that belong to Harvester or to harvester-iac, never to the user's `labels`. */
export const RESERVED_LABEL_PREFIXES = ['harvesterhci.io/', 'harvester-iac.io/', 'app.kubernetes.io/managed-by'] as const;

const QUALIFIED_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why `url` cannot be downloaded by Harvester (its webhook or Longhorn refusing it), or undefined. */
export function urlProblem(url: string): string | undefined {
  // What Go's url.Parse refuses (the webhook's V6) and the WHATWG parser would silently accept.
  if (/[\x00-\x1f\x7f]/.test(url)) return 'holds a control character (Harvester\'s webhook refuses it: "net/url: invalid control character in URL")';
  const escape = /%(?![0-9A-Fa-f]{2})/.exec(url);
  if (escape) return `holds "${url.slice(escape.index, escape.index + 3)}", which is not a %-escape (Harvester's webhook refuses it: "invalid URL escape"): write "%25" for a literal "%"`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL: write it as http(s)://host/path, e.g. "https://cloud-images.ubuntu.com/jammy/current/jammy-server-cloudimg-amd64.img"';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `uses ${parsed.protocol.slice(0, -1)}: Harvester downloads over http or https only`;
  const host = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#]*@)?(\[[^\]]*\]|[^/:?#]*)/i.exec(url)?.[1] ?? '';
  if (!host) return 'has no host: write it as http(s)://host/path';
  if (!/^\[[0-9A-Fa-f:.]+\]$/.test(host) && !/^[A-Za-z0-9.-]+$/.test(host)) return `has host ${JSON.stringify(host)}, which is not a host name (Harvester's webhook refuses it: "invalid character … in host name")`;
  return undefined;
}

/** Why a label key is refused (the apiserver's qualified-name rule, or one of the reserved keys). */
function labelKeyProblem(key: string): string | undefined {
  if (RESERVED_LABEL_PREFIXES.some((p) => key.startsWith(p))) return `${key} is set by Harvester or by harvester-iac: use imageType / osType, or another key`;
  const slash = key.lastIndexOf('/');
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : ['', key];
  if (slash >= 0 && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return `${JSON.stringify(key)} has a prefix that is not a DNS subdomain, e.g. "example.com/tier"`;
  if (!name || name.length > 63 || !QUALIFIED_NAME.test(name)) return `${JSON.stringify(key)} is not a label key: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  return undefined;
}

export function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (path: PropertyKey[], reason: string) => out.push({ property: formatPath(path), reason });
  if (typeof user.url === 'string' && !isUnknown(user.url)) {
    const problem = urlProblem(user.url);
    if (problem) fail(['url'], problem);
  }
  const labels = user.labels;
  if (labels && typeof labels === 'object' && !Array.isArray(labels)) {
    for (const [key, value] of Object.entries(labels as Obj)) {
      const keyProblem = labelKeyProblem(key);
      if (keyProblem) fail(['labels', key], keyProblem);
      else if (typeof value === 'string' && !isUnknown(value) && (value.length > 63 || !LABEL_VALUE.test(value))) {
        fail(['labels', key], `${JSON.stringify(value)} is not a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`);
      }
    }
  }
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(imageSchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}
