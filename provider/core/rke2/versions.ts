/**
 * RKE2 versions and the rules a guest cluster's version changes must keep (docs/design/guest-rke2.md §"Rolling"):
 *
 * - a version is `vMAJOR.MINOR.PATCH+rke2rN`, what INSTALL_RKE2_VERSION takes and a Node reports as its kubelet
 *   version;
 * - an upgrade must not skip a minor version (rke2-docs upgrades/manual: "the Kubernetes version skew policy
 *   applies. Ensure that your plan does not skip intermediate minor versions"; in an HA control plane the newest
 *   and oldest kube-apiserver must be within one minor version while servers roll);
 * - RKE2 has no downgrade of a minor version (etcd and the API's stored versions move forward only);
 * - a kubelet must not be newer than the kube-apiserver, and may be at most three minor versions older
 *   (kubernetes.io version-skew-policy; two for kubelets below 1.25): agent pools never run ahead of the servers.
 */
import { compareVersions, parseVersion, type ParsedVersion } from '../versions';

/** What an RKE2 version looks like, for the inputs' pattern and its message. */
export const RKE2_VERSION_PATTERN = /^v\d+\.\d+\.\d+\+rke2r\d+$/;
export const RKE2_VERSION_EXAMPLE = 'v1.32.5+rke2r1';

/** The parsed RKE2 version, or undefined when `text` is not one. */
export function parseRke2Version(text: string): ParsedVersion | undefined {
  if (!RKE2_VERSION_PATTERN.test(text)) return undefined;
  return parseVersion(text);
}

const minorOf = (v: ParsedVersion) => `v${v.major}.${v.minor}`;

/** Why moving the servers from `from` to `to` is refused, or undefined when RKE2 supports it. */
export function upgradeProblem(from: string, to: string): string | undefined {
  const a = parseRke2Version(from);
  const b = parseRke2Version(to);
  if (!a || !b || compareVersions(a, b) === 0) return undefined;
  if (b.major !== a.major) return `${from} → ${to} changes the major version, which RKE2 does not upgrade in place`;
  if (b.minor > a.minor + 1) {
    return `${from} → ${to} skips ${b.minor - a.minor - 1} minor version(s): RKE2 upgrades one minor version at a time (Kubernetes' version skew policy). Upgrade to the latest v${a.major}.${a.minor + 1} release first, then to ${to}`;
  }
  if (b.minor < a.minor) return `${from} → ${to} is a downgrade of the minor version, which RKE2 does not support: a cluster only moves forward (rebuild it to go back)`;
  return undefined;
}

/** Why agents at `agent` may not join servers at `server`, or undefined when the kubelet skew policy allows it. */
export function agentSkewProblem(server: string, agent: string): string | undefined {
  const s = parseRke2Version(server);
  const a = parseRke2Version(agent);
  if (!s || !a) return undefined;
  if (compareVersions(a, s) > 0) return `${agent} is newer than the servers' ${server}: a kubelet must not be newer than the API server. Upgrade the servers first (kubernetesVersion), then the agents`;
  const allowed = a.minor < 25 ? 2 : 3;
  if (a.major !== s.major || s.minor - a.minor > allowed) return `${agent} is more than ${allowed} minor versions older than the servers' ${server} (${minorOf(a)} kubelets may be at most ${allowed} older): upgrade the agents first`;
  return undefined;
}
