/**
 * check's pure rules for a guest cluster identity, every failure at once, none repeating its property: the networks
 * are IPv4 CIDRs that do not overlap (pods and services are routed apart), the DNS address is inside the service
 * network, the endpoint is an address or a DNS name, and no agent pool runs ahead of the servers or too far behind
 * (provider/core/rke2/versions.ts). A version change against the recorded one is checked by the handlers (it needs the
 * recorded state).
 */
import { cidrContains, cidrSize, formatIPv4, parseCidr, parseIPv4 } from '../../core/ipv4';
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { agentSkewProblem } from '../../core/rke2/versions';
import { SECRET_INPUTS, guestClusterIdentitySchema } from './model';

type Obj = Record<string, unknown>;
const known = (v: unknown): v is string => typeof v === 'string' && !isUnknown(v);
const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i;

/** The cluster DNS address RKE2 takes when none is given: the tenth address of the service network. */
export function clusterDnsOf(serviceCidr: string, clusterDns?: string): string {
  if (clusterDns) return clusterDns;
  const c = parseCidr(serviceCidr);
  return c ? formatIPv4(c.network + 10) : '10.43.0.10';
}

export function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (property: string, reason: string) => out.push({ property, reason });
  const cidrs: Record<string, ReturnType<typeof parseCidr>> = {};
  for (const key of ['clusterCidr', 'serviceCidr']) {
    const v = user[key];
    if (!known(v)) continue;
    const c = parseCidr(v);
    if (!c) fail(key, `${JSON.stringify(v)} is not an IPv4 CIDR: write it as "a.b.c.d/n", e.g. "10.42.0.0/16"`);
    else if (formatIPv4(c.network) !== v.split('/')[0]) fail(key, `${v} has bits set beyond its /${c.prefix} prefix: write its network address, ${formatIPv4(c.network)}/${c.prefix}`);
    else cidrs[key] = c;
  }
  const pods = cidrs.clusterCidr;
  const services = cidrs.serviceCidr ?? (user.serviceCidr === undefined ? parseCidr('10.43.0.0/16') : undefined);
  const podsOrDefault = pods ?? (user.clusterCidr === undefined ? parseCidr('10.42.0.0/16') : undefined);
  if (podsOrDefault && services && (cidrContains(podsOrDefault, services.network) || cidrContains(services, podsOrDefault.network))) {
    fail('serviceCidr', `overlaps clusterCidr (${formatIPv4(podsOrDefault.network)}/${podsOrDefault.prefix}): pods and services need separate networks`);
  }
  if (known(user.clusterDns)) {
    const ip = parseIPv4(user.clusterDns);
    if (ip === undefined) fail('clusterDns', `${JSON.stringify(user.clusterDns)} is not an IPv4 address`);
    else if (services && !cidrContains(services, ip)) fail('clusterDns', `${user.clusterDns} is outside serviceCidr (${formatIPv4(services.network)}/${services.prefix}): the DNS Service takes an address of the service network`);
    else if (services && (ip === services.network || ip === services.network + cidrSize(services) - 1)) fail('clusterDns', `${user.clusterDns} is the network or broadcast address of serviceCidr`);
  }
  if (known(user.endpoint) && parseIPv4(user.endpoint) === undefined && !DNS_NAME.test(user.endpoint)) {
    fail('endpoint', `${JSON.stringify(user.endpoint)} is neither an IPv4 address nor a DNS name: give the control-plane load balancer's address`);
  }
  const agents = user.agentVersions;
  if (known(user.kubernetesVersion) && agents && typeof agents === 'object' && !isUnknown(agents)) {
    for (const [pool, version] of Object.entries(agents as Obj)) {
      if (!known(version)) continue;
      const problem = agentSkewProblem(user.kubernetesVersion, version);
      if (problem) fail(`agentVersions.${pool}`, problem);
    }
  }
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(guestClusterIdentitySchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}
