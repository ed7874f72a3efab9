/**
 * The cloud-init user data of a guest cluster's node, in the contract of docs/design/guest-rke2.md §"The user-data
 * contract" (RKE2's own files and commands; the emulator reads exactly this):
 *
 * - `#cloud-config` with qemu-guest-agent installed and started first: Harvester learns the VM's address only from
 *   it, and the load balancer selects its backends by that address;
 * - `/etc/rancher/rke2/config.yaml` (0600): `token` (servers: the server token; agents: the agent token — an agent
 *   never holds the server token), `agent-token` on servers, `server:` on every node but the initialising server,
 *   `tls-san` on servers, the cluster's critical values identical on every server, `cloud-provider-name: harvester`
 *   and its config path, the pool's `node-label`/`node-taint`;
 * - the initialising server alone: the CA files and service.key (bootstrapFiles of GuestClusterIdentity);
 * - servers: the HelmChartConfig giving the bundled Harvester cloud provider the cluster's name
 *   (`global.cattle.clusterName`, its `--cluster-name`);
 * - runcmd: install the version (get.rke2.io with INSTALL_RKE2_VERSION, or the air-gap script with its artifacts,
 *   or nothing for an image that has RKE2), mask the other unit, `systemctl enable --now` the role's unit.
 *
 * The cloud provider's kubeconfig file is not written here: a machine pool merges it from GuestClusterCredentials'
 * cloudInit (its guestCredentials input). Pure; every value is secret where it holds a token or key.
 */
import { parse, stringify } from 'yaml';
import { CCM_CHART_CONFIG_PATH, CLOUD_PROVIDER_CONFIG_PATH, RKE2_CONFIG_PATH, type WriteFile } from './files';

/** The values every server of a cluster must share (RKE2's critical configuration), as config.yaml spells them. */
export interface ClusterNetworking {
  cni: string;
  clusterCidr: string;
  serviceCidr: string;
  clusterDns: string;
  clusterDomain: string;
  disableKubeProxy: boolean;
}

/** How RKE2 gets onto the VM. */
export type Rke2Install = { method: 'script' } | { method: 'airgap'; artifactPath: string; scriptPath: string } | { method: 'preinstalled' };

/** One node's user data. */
export interface NodeUserData {
  role: 'server' | 'agent';
  /** The server that initialises the cluster (no `server:`, brings the PKI). */
  init?: boolean;
  version: string;
  /** `https://<control-plane address>:9345`. */
  supervisorUrl: string;
  /** Servers: the server token; agents: the agent token. */
  token: string;
  /** Servers: the agent token (what agents present as user `node`). */
  agentToken?: string;
  /** Servers: the addresses the API's serving certificate must be valid for (the control-plane address first). */
  tlsSan?: string[];
  networking: ClusterNetworking;
  /** Services of RKE2 not to deploy (config.yaml `disable`), e.g. rke2-ingress-nginx. */
  disable?: string[];
  clusterName: string;
  nodeLabels?: Record<string, string>;
  /** `key=value:Effect` or `key:Effect`. */
  nodeTaints?: string[];
  /** The initialising server: bootstrapFiles of GuestClusterIdentity (a YAML list of write_files entries). */
  bootstrapFiles?: string;
  install: Rke2Install;
}

/** config.yaml of a node. */
export function rke2Config(n: NodeUserData): Record<string, unknown> {
  const config: Record<string, unknown> = { token: n.token };
  if (n.role === 'server') {
    if (n.agentToken) config['agent-token'] = n.agentToken;
    if (!n.init) config.server = n.supervisorUrl;
    if (n.tlsSan?.length) config['tls-san'] = [...n.tlsSan];
    config.cni = n.networking.cni;
    config['cluster-cidr'] = n.networking.clusterCidr;
    config['service-cidr'] = n.networking.serviceCidr;
    config['cluster-dns'] = n.networking.clusterDns;
    config['cluster-domain'] = n.networking.clusterDomain;
    if (n.networking.disableKubeProxy) config['disable-kube-proxy'] = true;
    if (n.disable?.length) config.disable = [...n.disable];
  } else {
    config.server = n.supervisorUrl;
  }
  config['cloud-provider-name'] = 'harvester';
  config['cloud-provider-config'] = CLOUD_PROVIDER_CONFIG_PATH;
  const labels = Object.entries(n.nodeLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  if (labels.length) config['node-label'] = labels;
  if (n.nodeTaints?.length) config['node-taint'] = [...n.nodeTaints];
  return config;
}

/** The HelmChartConfig giving the bundled Harvester cloud provider chart the cluster's name. */
export function ccmChartConfig(clusterName: string): string {
  return stringify({
    apiVersion: 'helm.cattle.io/v1',
    kind: 'HelmChartConfig',
    metadata: { name: 'harvester-cloud-provider', namespace: 'kube-system' },
    spec: { valuesContent: stringify({ global: { cattle: { clusterName } }, cloudConfigPath: CLOUD_PROVIDER_CONFIG_PATH }) },
  });
}

/** The install command of the role, with the version pinned. */
function installCommand(n: NodeUserData): string | undefined {
  const type = n.role === 'agent' ? ' INSTALL_RKE2_TYPE="agent"' : '';
  switch (n.install.method) {
    case 'script':
      return `curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION="${n.version}"${type} sh -`;
    case 'airgap':
      return `INSTALL_RKE2_ARTIFACT_PATH="${n.install.artifactPath}" INSTALL_RKE2_VERSION="${n.version}"${type} sh ${n.install.scriptPath}`;
    case 'preinstalled':
      return undefined;
  }
}

/** The node's #cloud-config. */
export function renderNodeUserData(n: NodeUserData): string {
  const files: WriteFile[] = [{ path: RKE2_CONFIG_PATH, content: stringify(rke2Config(n), { lineWidth: 0 }), owner: 'root:root', permissions: '0600' }];
  if (n.role === 'server') files.push({ path: CCM_CHART_CONFIG_PATH, content: ccmChartConfig(n.clusterName), owner: 'root:root', permissions: '0600' });
  if (n.role === 'server' && n.init) {
    const pki = parse(n.bootstrapFiles ?? '') as WriteFile[] | null;
    if (!Array.isArray(pki) || pki.length === 0) throw new Error('the initialising server needs the bootstrapFiles of GuestClusterIdentity');
    files.push(...pki);
  }
  const other = n.role === 'server' ? 'agent' : 'server';
  const install = installCommand(n);
  const runcmd = [
    'systemctl enable --now qemu-guest-agent.service',
    ...(install ? [install] : []),
    `systemctl mask rke2-${other}.service || true`,
    `systemctl enable --now rke2-${n.role}.service`,
  ];
  return `#cloud-config\n${stringify({ packages: ['qemu-guest-agent'], write_files: files, runcmd }, { lineWidth: 0 })}`;
}
