/**
 * `/version` and the health endpoints.
 *
 * The minor version matters: kubectl on these machines is the Google Cloud SDK dispatcher, which reads
 * `/version` and then runs the bundled kubectl of the server's minor (docs/design/kube-api.md §8). Reporting "32"
 * keeps the kubectl 1.32 whose discovery Accept headers and behaviour the emulator was checked against.
 */

/** The body of GET /version (k8s.io/apimachinery/pkg/version.Info). */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** What Harvester v1.5's RKE2 reports. */
export const DEFAULT_VERSION_INFO: VersionInfo = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4+rke2r1',
  gitCommit: '59526cd4867447956156ae3a602fcbac5a3e8a0d',
  gitTreeState: 'clean',
  buildDate: '2025-04-23T03:02:09Z',
  goVersion: 'go1.23.8 X:boringcrypto',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** Health endpoints answer `ok` as text/plain; `?verbose` lists the checks like the real server. */
export function healthBody(path: string, verbose: boolean): string {
  if (!verbose) return 'ok';
  const name = path.replace(/^\//, '');
  return `[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-emulator ok\n${name} check passed\n`;
}
