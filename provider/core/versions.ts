/**
 * Kubernetes-style release versions as the guest clusters report them: `v1.28.10+rke2r1` (RKE2), `1.28.10+k3s1`,
 * `v0.2.7` (the Harvester cloud provider), ordered by major, minor, patch and RKE2 revision.
 */

/** A parsed `vMAJOR.MINOR.PATCH[+rke2rN]` version. */
export interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
  /** The `rke2rN` revision, when the version is an RKE2 one. */
  rke2Revision?: number;
  /** The distribution suffix (`rke2`, `k3s`, …), if any. */
  distribution?: string;
}

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+([a-z0-9]+?)r?(\d+)?)?$/;

/** parseVersion reads `v1.24.3+rke2r1`, `v0.2.7`, `1.28.10+k3s1`; undefined if it is not one. */
export function parseVersion(text: string): ParsedVersion | undefined {
  const m = VERSION.exec(text.trim());
  if (!m) return undefined;
  const v: ParsedVersion = { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
  if (m[4]) {
    const dist = /^(rke2|k3s)/.exec(m[4])?.[1] ?? m[4];
    v.distribution = dist;
    if (dist === 'rke2') v.rke2Revision = Number(m[5] ?? 0);
  }
  return v;
}

/** compareVersions orders by major, minor, patch, then RKE2 revision. */
export function compareVersions(a: ParsedVersion, b: ParsedVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || (a.rke2Revision ?? 0) - (b.rke2Revision ?? 0);
}
