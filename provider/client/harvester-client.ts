/**
 * The entry point: one connection to a Harvester cluster (or a guest cluster: any Kubernetes API), with a
 * typed ResourceClient per kind. Connecting only loads and validates the kubeconfig; the first request is
 * the first network traffic.
 */
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ConnectionInfo, loadKubeConfig } from './kube-config';
import { KINDS, KindSpec } from './kinds';
import { Logger, safeLogger } from './logger';
import {
  IPPool,
  KeyPair,
  KubeObject,
  LoadBalancer,
  Namespace,
  NetworkAttachmentDefinition,
  ClusterNetwork,
  VlanConfig,
  Node,
  PersistentVolumeClaim,
  Secret,
  Service,
  Setting,
  ClusterRole,
  RoleBinding,
  ServiceAccount,
  Pod,
  ResourceQuota,
  KubeEvent,
  LonghornNode,
  LonghornSetting,
  VirtualMachine,
  VirtualMachineImage,
  VirtualMachineInstance,
} from './objects';
import { ResourceClient } from './resource-client';
import { ClientContext } from './resource-types';
import { RetryPolicy, Sleep, realSleep, resolvePolicy } from './retry';
import { makeTransport } from './transport';

/** Options of HarvesterClient.connect. */
export interface ConnectOptions {
  /**
   * A kubeconfig file path, or the kubeconfig content itself, plain or base64-encoded (e.g. from a Pulumi secret).
   * @default $KUBECONFIG, then ~/.kube/config
   */
  kubeconfig?: string;
  /** Context to use. @default the kubeconfig's current-context */
  context?: string;
  /** Receives the client's (redacted) log lines. @default none */
  logger?: Logger;
  /** Overrides of the retry policy. @default DEFAULT_RETRY_POLICY */
  retry?: Partial<RetryPolicy>;
  /** How retries wait; tests pass a fake. @default a real timer */
  sleep?: (ms: number) => Promise<void>;
  /** Random source for backoff jitter, in [0, 1). @default Math.random */
  random?: () => number;
}

/** A connection to one cluster, with a typed accessor per kind. */
export class HarvesterClient {
  /** Where requests go and as whom (no secrets). */
  readonly connection: ConnectionInfo;
  /** "inline kubeconfig" or the file(s) the kubeconfig came from. */
  readonly source: string;
  /** The namespace namespaced calls default to: the context's, else "default". */
  readonly defaultNamespace: string;

  readonly virtualMachines: ResourceClient<VirtualMachine>;
  readonly virtualMachineInstances: ResourceClient<VirtualMachineInstance>;
  readonly images: ResourceClient<VirtualMachineImage>;
  readonly keyPairs: ResourceClient<KeyPair>;
  readonly networks: ResourceClient<NetworkAttachmentDefinition>;
  readonly clusterNetworks: ResourceClient<ClusterNetwork>;
  readonly vlanConfigs: ResourceClient<VlanConfig>;
  readonly loadBalancers: ResourceClient<LoadBalancer>;
  readonly ipPools: ResourceClient<IPPool>;
  readonly nodes: ResourceClient<Node>;
  readonly services: ResourceClient<Service>;
  readonly secrets: ResourceClient<Secret>;
  readonly persistentVolumeClaims: ResourceClient<PersistentVolumeClaim>;
  readonly namespaces: ResourceClient<Namespace>;
  readonly settings: ResourceClient<Setting>;
  readonly serviceAccounts: ResourceClient<ServiceAccount>;
  readonly clusterRoles: ResourceClient<ClusterRole>;
  readonly clusterRoleBindings: ResourceClient<RoleBinding>;
  readonly roleBindings: ResourceClient<RoleBinding>;
  readonly pods: ResourceClient<Pod>;
  readonly resourceQuotas: ResourceClient<ResourceQuota>;
  readonly events: ResourceClient<KubeEvent>;
  readonly longhornNodes: ResourceClient<LonghornNode>;
  readonly longhornSettings: ResourceClient<LonghornSetting>;

  private readonly ctx: ClientContext;
  private readonly apis: { custom: CustomObjectsApi; core: CoreV1Api };

  private constructor(ctx: ClientContext, source: string) {
    this.ctx = ctx;
    this.connection = ctx.connection;
    this.source = source;
    this.defaultNamespace = ctx.defaultNamespace;
    this.apis = { custom: ctx.kubeConfig.makeApiClient(CustomObjectsApi), core: ctx.kubeConfig.makeApiClient(CoreV1Api) };
    this.virtualMachines = this.resource(KINDS.VirtualMachine);
    this.virtualMachineInstances = this.resource(KINDS.VirtualMachineInstance);
    this.images = this.resource(KINDS.VirtualMachineImage);
    this.keyPairs = this.resource(KINDS.KeyPair);
    this.networks = this.resource(KINDS.NetworkAttachmentDefinition);
    this.clusterNetworks = this.resource(KINDS.ClusterNetwork);
    this.vlanConfigs = this.resource(KINDS.VlanConfig);
    this.loadBalancers = this.resource(KINDS.LoadBalancer);
    this.ipPools = this.resource(KINDS.IPPool);
    this.nodes = this.resource(KINDS.Node);
    this.services = this.resource(KINDS.Service);
    this.secrets = this.resource(KINDS.Secret);
    this.persistentVolumeClaims = this.resource(KINDS.PersistentVolumeClaim);
    this.namespaces = this.resource(KINDS.Namespace);
    this.settings = this.resource(KINDS.Setting);
    this.serviceAccounts = this.resource(KINDS.ServiceAccount);
    this.clusterRoles = this.resource(KINDS.ClusterRole);
    this.clusterRoleBindings = this.resource(KINDS.ClusterRoleBinding);
    this.roleBindings = this.resource(KINDS.RoleBinding);
    this.pods = this.resource(KINDS.Pod);
    this.resourceQuotas = this.resource(KINDS.ResourceQuota);
    this.events = this.resource(KINDS.Event);
    this.longhornNodes = this.resource(KINDS.LonghornNode);
    this.longhornSettings = this.resource(KINDS.LonghornSetting);
  }

  /**
   * Load and validate the kubeconfig and build the client. Throws KubeConfigError (naming the field path)
   * when the kubeconfig is missing or incomplete; makes no request.
   */
  static async connect(options: ConnectOptions = {}): Promise<HarvesterClient> {
    const logger = safeLogger(options.logger);
    const loaded = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context, logger });
    const sleep: Sleep = options.sleep ?? realSleep;
    const ctx: ClientContext = {
      connection: loaded.connection,
      kubeConfig: loaded.kubeConfig,
      policy: resolvePolicy(options.retry),
      sleep,
      random: options.random,
      logger,
      defaultNamespace: loaded.namespace ?? 'default',
    };
    logger.debug(`harvester client: ${loaded.connection.server} (context "${loaded.connection.context}", ${loaded.connection.auth} auth, from ${loaded.source})`);
    return new HarvesterClient(ctx, loaded.source);
  }

  /** A ResourceClient for any kind (e.g. one not in KINDS), sharing this connection and retry policy. */
  resource<T extends KubeObject = KubeObject>(kind: KindSpec): ResourceClient<T> {
    return new ResourceClient<T>(kind, makeTransport(kind, this.apis), this.ctx);
  }
}
