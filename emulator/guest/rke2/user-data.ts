/**
 * A VM's user data read as an RKE2 node's first boot (docs/design/guest-rke2.md §"The user-data contract"): the
 * config file and its drop-ins, the CA files an initialising server brings, the cloud-provider credentials file,
 * the bundled cloud provider's chart values, and the service `runcmd` installs and starts.
 */
import { parseAllDocuments, parse } from 'yaml';
import { readCloudInit } from './cloud-init';
import { parseNodeLabel, parseNodeTaint, readRke2Config, Rke2Config } from './config';
import { installSteps, Rke2Role } from './install';

/** Where RKE2 keeps its server certificates (k3s pkg/daemons/control/deps/deps.go, data dir /var/lib/rancher/rke2/server). */
export const TLS_DIR = '/var/lib/rancher/rke2/server/tls/';
/** The CA files RKE2 uses as given when they exist before the first start (rke2-docs security/certificates.md). */
export const CA_FILES = {
  server: 'server-ca',
  client: 'client-ca',
  requestHeader: 'request-header-ca',
  etcdServer: 'etcd/server-ca',
  etcdPeer: 'etcd/peer-ca',
} as const;
export type CaName = keyof typeof CA_FILES;
/** The service-account signing key (a key, no certificate). */
export const SERVICE_KEY_FILE = `${TLS_DIR}service.key`;
/** Where Rancher, Harvester's generator and the bundled chart's default put the cloud provider's kubeconfig. */
export const DEFAULT_CLOUD_PROVIDER_CONFIG = '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config';
/** Manifests (HelmChartConfig among them) RKE2 applies from a server's disk. */
export const MANIFESTS_DIR = '/var/lib/rancher/rke2/server/manifests/';
/** The bundled Harvester cloud provider chart, configurable through a HelmChartConfig of this name in kube-system. */
export const CCM_CHART = 'harvester-cloud-provider';

/** How RKE2 gets onto the node: the install script (version or channel), or the image already has it. */
export interface Rke2Install {
  version?: string;
  channel: string;
  artifactPath?: string;
}

/** What a node's first boot runs. `problem` set: the service never runs, and the journal says why. */
export interface Rke2NodeSpec {
  role?: Rke2Role;
  install?: Rke2Install;
  /** The unit was started before the install step (works only if the image has RKE2). */
  startedBeforeInstall: boolean;
  config: Rke2Config;
  files: Map<string, string>;
  problem?: string;
}

/** The outcome of reading a user data. */
export type Rke2UserData = { kind: 'not-rke2' } | { kind: 'rke2'; spec: Rke2NodeSpec };

const EMPTY_CONFIG: Rke2Config = { tlsSan: [], nodeLabels: [], nodeTaints: [], cni: [], disable: [], raw: {} };

function problemOf(role: Rke2Role, config: Rke2Config): string | undefined {
  try {
    config.nodeLabels.forEach(parseNodeLabel);
    config.nodeTaints.forEach(parseNodeTaint);
  } catch (err) {
    return (err as Error).message;
  }
  if (config.cloudProviderConfig && !config.cloudProviderName) return 'cloud-provider-config is set but cloud-provider-name is not: RKE2 passes the file only to a named cloud provider';
  if (role === 'agent' && !config.server) return '--server is required: an agent needs the supervisor URL (server: https://<address>:9345)';
  if (role === 'agent' && !config.token) return '--token is required: an agent needs the cluster token (token: …)';
  if (role === 'server' && config.server && !config.token) return 'token is required to join a cluster';
  return undefined;
}

/** Reads a user data; `not-rke2` when it neither writes RKE2's config nor starts an RKE2 service. */
export function readRke2UserData(userData: string | undefined): Rke2UserData {
  const read = readCloudInit(userData);
  if (read.kind !== 'cloud-config') return { kind: 'not-rke2' };
  const { files, commands } = read.doc;
  const steps = installSteps(commands);
  let config: Rke2Config | undefined;
  let configProblem: string | undefined;
  try {
    config = readRke2Config(files);
  } catch (err) {
    configProblem = (err as Error).message;
  }
  const starts = steps.filter((s) => s.type === 'start');
  if (!config && !configProblem && steps.length === 0) return { kind: 'not-rke2' };
  const installIndex = steps.findIndex((s) => s.type === 'install');
  const install = installIndex >= 0 ? steps[installIndex] : undefined;
  const roles = [...new Set(starts.map((s) => s.role))];
  const spec: Rke2NodeSpec = {
    role: roles.length === 1 ? roles[0] : undefined,
    install: install?.type === 'install' ? { version: install.version, channel: install.channel, artifactPath: install.artifactPath } : undefined,
    startedBeforeInstall: installIndex >= 0 && steps.findIndex((s) => s.type === 'start') < installIndex,
    config: config ?? EMPTY_CONFIG,
    files,
  };
  const enabled = steps.find((s) => s.type === 'enable');
  if (configProblem) spec.problem = configProblem;
  else if (roles.length > 1) spec.problem = 'runcmd starts both rke2-server and rke2-agent; a node runs one of them (mask the other)';
  else if (!spec.role && enabled?.type === 'enable') spec.problem = `rke2-${enabled.role}.service is enabled but not started: it would start at the next boot (use systemctl enable --now)`;
  else if (!spec.role) spec.problem = 'runcmd never starts rke2-server or rke2-agent (systemctl start or enable --now)';
  else spec.problem = problemOf(spec.role, spec.config);
  return { kind: 'rke2', spec };
}

/** Values of the bundled Harvester cloud provider chart set by a HelmChartConfig manifest the user data writes. */
export interface CcmChartValues {
  clusterName?: string;
  cloudConfigPath?: string;
}

/** The `harvester-cloud-provider` HelmChartConfig among the manifests in `files` (its valuesContent), if any. */
export function ccmChartValues(files: Map<string, string>): CcmChartValues {
  for (const [path, content] of files) {
    if (!path.startsWith(MANIFESTS_DIR) || !/\.(ya?ml)$/.test(path)) continue;
    for (const doc of parseAllDocuments(content)) {
      const o = doc.toJS() as { kind?: string; metadata?: { name?: string }; spec?: { valuesContent?: string } } | null;
      if (o?.kind !== 'HelmChartConfig' || o.metadata?.name !== CCM_CHART || typeof o.spec?.valuesContent !== 'string') continue;
      try {
        const values = (parse(o.spec.valuesContent) ?? {}) as { clusterName?: unknown; cloudConfigPath?: unknown; global?: { cattle?: { clusterName?: unknown } } };
        const name = values.global?.cattle?.clusterName ?? values.clusterName;
        return {
          clusterName: typeof name === 'string' && name ? name : undefined,
          cloudConfigPath: typeof values.cloudConfigPath === 'string' ? values.cloudConfigPath : undefined,
        };
      } catch {
        return {};
      }
    }
  }
  return {};
}
