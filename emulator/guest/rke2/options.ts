/** Options of the RKE2 guest simulation (installRke2Guests) and their defaults. */

/** Delays (ms, on the emulator's clock) of a simulated RKE2 node's life. */
export interface Rke2Delays {
  /** The install script downloading and unpacking RKE2 (skipped for an image that has it). @default 1000 */
  install: number;
  /** rke2-server started → etcd and kube-apiserver answer (init), or → first join attempt. @default 1000 */
  serverStart: number;
  /** rke2-agent started → first join attempt. @default 300 */
  agentStart: number;
  /** Joined and the API reachable → the kubelet registers its Node. @default 300 */
  nodeRegister: number;
  /** Node registered → the CNI is up and the Node turns Ready. @default 500 */
  nodeReady: number;
  /** A failed agent join is retried after this (k3s agent: every 2 s). @default 2000 */
  agentRetry: number;
  /** A failed server join exits rke2-server; systemd starts it again after this. @default 5000 */
  serverRestart: number;
  /** The uninitialized taint seen → the cloud provider initialises the Node. @default 200 */
  ccmInit: number;
  /** The VM stopped → its Node's conditions turn Unknown (kube-controller-manager's node-monitor grace period). @default 40000 */
  nodeLost: number;
}

export const DEFAULT_RKE2_DELAYS: Rke2Delays = {
  install: 1000,
  serverStart: 1000,
  agentStart: 300,
  nodeRegister: 300,
  nodeReady: 500,
  agentRetry: 2000,
  serverRestart: 5000,
  ccmInit: 200,
  nodeLost: 40_000,
};

/**
 * The versions the install script resolves for a channel when `INSTALL_RKE2_VERSION` is unset (the real script
 * asks update.rke2.io; the emulator never dials out). Any other channel fails the install.
 */
export const DEFAULT_RKE2_CHANNELS: Record<string, string> = { stable: 'v1.32.5+rke2r1', latest: 'v1.33.1+rke2r1' };

/** A guest API or supervisor listener of an emulated RKE2 cluster. */
export interface Rke2Endpoint {
  /** Cluster id (see Rke2ClusterInfo). */
  cluster: string;
  kind: 'api' | 'supervisor';
  /** The address a client in the guest's network would dial: `<vm or LB address>:<port>`. */
  address: string;
  /** Where it is served on this machine (`https://<address>` itself for loopback addresses). */
  url: string;
  /** Set when it could not be served at its own address (not loopback, or in use): why. */
  note?: string;
}

/** Options of the RKE2 guest simulation. */
export interface Rke2Options {
  delays?: Partial<Rke2Delays>;
  /** Channel → version for installs without INSTALL_RKE2_VERSION. @default DEFAULT_RKE2_CHANNELS */
  channels?: Record<string, string>;
  /** harvester-cloud-provider version of the bundled chart (RKE2 at 6ce1a80 ships v0.2.8). @default v0.2.8 */
  ccmVersion?: string;
  /** Told when an endpoint opens (true) or closes (false); the CLI prints them. */
  onEndpoint?: (endpoint: Rke2Endpoint, open: boolean) => void;
}
