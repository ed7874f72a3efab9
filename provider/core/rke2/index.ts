/**
 * RKE2 as a guest cluster's nodes need it (docs/design/guest-rke2.md): the user data of a server or agent, the
 * files and paths RKE2 reads, and the version rules of upgrades. Pure.
 */
export { renderNodeUserData, rke2Config, ccmChartConfig, type NodeUserData, type ClusterNetworking, type Rke2Install } from './user-data';
export { RKE2_CONFIG_PATH, TLS_DIR, CLOUD_PROVIDER_CONFIG_PATH, CCM_CHART_CONFIG_PATH, CA_FILE_NAMES, pkiWriteFiles, renderPkiFiles, pkiFromFiles, type WriteFile } from './files';
export { parseRke2Version, upgradeProblem, agentSkewProblem, RKE2_VERSION_PATTERN, RKE2_VERSION_EXAMPLE } from './versions';
