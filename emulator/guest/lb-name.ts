/**
 * The name harvester-cloud-provider gives the Harvester LoadBalancer of a guest Service
 * (pkg/cloud-controller-manager/loadbalancer.go `loadBalancerName`; docs/design/guest-cloud-provider.md
 * §"The load balancer it makes"):
 * `<cluster>-<svc namespace>-<svc name>-` (cluster prefixed with `a` when not a DNS-1035 label), then the
 * CRC32 (IEEE) of that base + the Service UID as 8 hex digits, computed before the base is cut to 55
 * characters so the whole name stays ≤ 63.
 */
import { crc32 } from '../util/hashing';

const MAX_NAME = 63;
const SUFFIX = 8;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The LoadBalancer name for a guest Service. */
export function loadBalancerName(clusterName: string, serviceNamespace: string, serviceName: string, serviceUid: string): string {
  const cluster = DNS1035.test(clusterName) && clusterName.length <= 63 ? clusterName : `a${clusterName}`;
  let base = `${cluster}-${serviceNamespace}-${serviceName}-`;
  const suffix = crc32(base + serviceUid).toString(16).padStart(SUFFIX, '0');
  if (base.length > MAX_NAME - SUFFIX) base = base.slice(0, MAX_NAME - SUFFIX);
  return base + suffix;
}
