/**
 * check's pure rules for a VM network, mirroring what Harvester's network webhook refuses
 * (docs/design/harvester-networks.md §"NAD rules": N7, N12-N14, N19) plus what the apiserver refuses on labels,
 * each on its input with the fix. The zod model holds the VLAN range (N7) and the cluster network's name length
 * (N13: the bridge name `<clusterNetwork>-br` is at most 15). Rules needing the cluster run in handlers.ts.
 */
import { formatPath } from '../../core/input-errors';
import { parseCidr, parseIPv4 } from '../../core/ipv4';
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { LABEL_VALUE_PATTERN } from '../../client/ownership';
import { RESERVED_LABEL_PREFIXES, SECRET_INPUTS, networkSchema } from './model';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function labelFailures(labels: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const at = formatPath(['labels', key]);
    const fail = (reason: string) => out.push({ property: at, reason });
    const reserved = RESERVED_LABEL_PREFIXES.find((p) => key.startsWith(p));
    if (reserved) {
      fail(`keys starting with "${reserved}" belong to Harvester's network controller or to this provider: use another key`);
      continue;
    }
    const [prefix, name] = key.includes('/') ? [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)] : [undefined, key];
    if ((prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) || name.length > 63 || !LABEL_NAME.test(name)) {
      fail('is not a valid label key (an optional DNS-subdomain prefix and "/", then at most 63 of a-z, A-Z, 0-9, "-", "_", "." starting and ending alphanumeric)');
    }
    if (typeof value === 'string' && (value.length > 63 || !LABEL_VALUE_PATTERN.test(value))) {
      fail(`${JSON.stringify(value)} is not a valid label value (at most 63 of a-z, A-Z, 0-9, "-", "_", "." starting and ending alphanumeric)`);
    }
  }
  return out;
}

/** N19 and the route's shape: manual needs a CIDR and a gateway; auto learns them; untagged networks have no route. */
function routeFailures(route: Obj, tagged: boolean): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (field: string, reason: string) => out.push({ property: `route.${field}`, reason });
  const mode = route.mode ?? 'auto';
  if (isUnknown(mode)) return out;
  if (!tagged) {
    if (mode === 'manual' || route.cidr !== undefined || route.gateway !== undefined || route.dhcpServer !== undefined) {
      const field = mode === 'manual' ? 'mode' : (['cidr', 'gateway', 'dhcpServer'] as const).find((k) => route[k] !== undefined) ?? 'cidr';
      fail(field, 'a route applies to VLAN networks only (Harvester drops the route of an untagged network): set vlan, or leave route out');
    }
    return out;
  }
  if (mode === 'manual') {
    if (route.cidr === undefined) fail('cidr', 'is required for mode "manual": the VLAN\'s subnet, e.g. "192.168.20.0/24"');
    else if (!isUnknown(route.cidr) && (!parseCidr(route.cidr) || parseCidr(route.cidr)!.prefix === 0)) {
      fail('cidr', `${JSON.stringify(route.cidr)} is not an IPv4 CIDR with a non-zero prefix (Harvester refuses it: "the CIDR … is invalid"), e.g. "192.168.20.0/24"`);
    }
    if (route.gateway === undefined) fail('gateway', 'is required for mode "manual": the VLAN\'s gateway, e.g. "192.168.20.1"');
    else if (!isUnknown(route.gateway) && parseIPv4(route.gateway) === undefined) {
      fail('gateway', `${JSON.stringify(route.gateway)} is not an IPv4 address (Harvester refuses it: "the gateway … is invalid"), e.g. "192.168.20.1"`);
    }
    if (route.dhcpServer !== undefined) fail('dhcpServer', 'applies to mode "auto" only: leave it out, or set mode "auto"');
  } else {
    for (const field of ['cidr', 'gateway'] as const) {
      if (route[field] !== undefined) fail(field, `applies to mode "manual" only (in mode "auto" Harvester learns it by DHCP): leave it out, or set mode "manual"`);
    }
    if (route.dhcpServer !== undefined && !isUnknown(route.dhcpServer) && parseIPv4(route.dhcpServer) === undefined) {
      fail('dhcpServer', `${JSON.stringify(route.dhcpServer)} is not an IPv4 address, e.g. "192.168.20.2"`);
    }
  }
  return out;
}

function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  if (isObj(user.labels)) out.push(...labelFailures(user.labels));
  if (isObj(user.route) && !isUnknown(user.vlan)) out.push(...routeFailures(user.route, user.vlan !== undefined));
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(networkSchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}
