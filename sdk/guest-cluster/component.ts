/**
 * GuestCluster: an RKE2 guest cluster from zero, built in the program from the package's resources
 * (docs/design/guest-rke2.md; the page docs/resources/guest-cluster.md):
 *
 *   HarvesterIPPool (optional) → HarvesterLoadBalancer (6443, 9345; TCP check on 6443; backends: the server pool)
 *   GuestClusterCredentials (the Harvester cloud provider's kubeconfig, merged into every node's cloud-config)
 *   GuestClusterIdentity (PKI, tokens, admin kubeconfig for https://<LB address>:6443; version rules at preview)
 *   HarvesterMachinePool "<cluster>-server": its first VM initialises the cluster (initUserData: the CA files, no
 *     `server:`), every other one — the first one's replacement included — joins through the load balancer;
 *     guestKubeconfig makes a roll one server at a time, each Ready before its predecessor leaves etcd
 *   HarvesterMachinePool "<cluster>-<pool>" per agent pool, after the servers (so a version change rolls them last);
 *     agents hold the agent token only
 *   GuestClusterReady: every Node Ready and initialised by the cloud provider, or why not.
 *
 * Every VM is created at once: joiners retry until the first server serves, as RKE2 does. A change of the cluster's
 * identity (name, networking) replaces the identity, and with it every pool (replacementTrigger: the CA hash).
 */
import * as pulumi from '@pulumi/pulumi';
import { stableStringify } from '../../provider/core/hash';
import { backendSelectorOf } from '../../provider/resources/machine-pool/outputs';
import { renderNodeUserData, type NodeUserData } from '../../provider/core/rke2/user-data';
import { clusterDnsOf } from '../../provider/resources/guest-cluster-identity/validate';
import type { NodeStatus } from '../../provider/resources/guest-cluster-ready/model';
import type { z } from 'zod';
import { GuestClusterCredentials, GuestClusterIdentity, GuestClusterReady, HarvesterIPPool, HarvesterLoadBalancer, HarvesterMachinePool } from '../generated/resources';
import { guestClusterProblems, guestClusterSchema, type GuestClusterInputs } from './model';

/** The arguments that may be Outputs of other resources (the rest name and count the component's resources). */
const OUTPUT_ARGS = ['image', 'network', 'sshKeys', 'harvesterServerUrl'] as const;
type OutputArg = (typeof OUTPUT_ARGS)[number];

/** The GuestCluster's arguments (the model's, docs/resources/guest-cluster.md); image, network, sshKeys and harvesterServerUrl may be Outputs. */
export type GuestClusterArgs = Omit<z.input<typeof guestClusterSchema>, OutputArg | 'clusterName'> & {
  /** Default: the component's name. */
  clusterName?: string;
  image: pulumi.Input<string>;
  network: pulumi.Input<string>;
  sshKeys?: pulumi.Input<pulumi.Input<string>[]>;
  harvesterServerUrl?: pulumi.Input<string>;
};

/** The component's type token. */
export const GUEST_CLUSTER_TYPE = 'harvester:index:GuestCluster';

/** The arguments known at construction, checked against the model (every problem at once). */
function staticArgs(name: string, args: GuestClusterArgs): GuestClusterInputs {
  // Outputs are judged by the resources they reach; stand-ins keep the model's parse of the rest.
  const stand: Record<OutputArg, unknown> = { image: 'image', network: 'network', sshKeys: [], harvesterServerUrl: undefined };
  const raw = { ...args, clusterName: args.clusterName ?? name, ...stand } as Record<string, unknown>;
  const parsed = guestClusterSchema.safeParse(raw);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => ({ property: i.path.join('.'), reason: i.message }))),
    ...guestClusterProblems(raw),
  ];
  if (problems.length || !parsed.success) {
    throw new Error(`GuestCluster ${name}: invalid arguments:\n${problems.map((p) => `  - ${p.property}: ${p.reason}`).join('\n')}`);
  }
  return parsed.data;
}

/** An RKE2 guest cluster: see the file header. */
export class GuestCluster extends pulumi.ComponentResource {
  /** Admin kubeconfig (secret). */
  readonly kubeconfig: pulumi.Output<string>;
  /** The control plane's address. */
  readonly endpoint: pulumi.Output<string>;
  readonly apiServerUrl: pulumi.Output<string>;
  readonly caCertificate: pulumi.Output<string>;
  /** Per node: VM, host, zone, kubelet version, Ready, providerID. */
  readonly nodes: pulumi.Output<NodeStatus[]>;
  readonly identity: GuestClusterIdentity;
  readonly loadBalancer: HarvesterLoadBalancer;
  readonly credentials: GuestClusterCredentials;
  readonly servers: HarvesterMachinePool;
  readonly agentPools: Record<string, HarvesterMachinePool>;
  readonly ready: GuestClusterReady;

  constructor(name: string, args: GuestClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super(GUEST_CLUSTER_TYPE, name, {}, opts);
    const a = staticArgs(name, args);
    const cluster = a.clusterName;
    const namespace = a.namespace;
    const child = { parent: this };
    if (a.controlPlane.servers % 2 === 0) {
      void pulumi.log.warn(`GuestCluster ${cluster}: ${a.controlPlane.servers} servers tolerate no more failures than ${a.controlPlane.servers - 1} (etcd needs a majority): use an odd number`, this);
    }

    // The control plane's address: from the given pool, or a pool of its own.
    let ipPool: pulumi.Input<string> = a.controlPlane.ipPool ?? `${cluster}-control-plane`;
    if (a.controlPlane.addresses) {
      ipPool = new HarvesterIPPool(`${name}-control-plane`, { name: `${cluster}-control-plane`, ranges: [a.controlPlane.addresses], selector: { scope: [{ namespace, guestCluster: cluster }] } }, child).name;
    }
    const serverPool = `${cluster}-server`;
    this.loadBalancer = new HarvesterLoadBalancer(`${name}-control-plane`, {
      name: `${cluster}-control-plane`,
      namespace,
      description: `control plane of guest cluster ${cluster}`,
      ipam: 'pool',
      ipPool,
      listeners: [
        { name: 'api', port: 6443, protocol: 'TCP', backendPort: 6443 },
        { name: 'supervisor', port: 9345, protocol: 'TCP', backendPort: 9345 },
      ],
      // The server pool's VMIs, known before the pool exists (its ownership labels).
      backendServerSelector: backendSelectorOf({ namespace, name: serverPool }),
      healthCheck: { port: 6443 },
      // Its address goes into the servers' certificates and join URL: it is needed before any backend exists.
      waitForBackends: false,
    }, child);
    const endpoint = this.loadBalancer.address;

    if (a.serviceAddresses) {
      // The guest's LoadBalancer Services: their load balancers ask for the nodes' network and this guest cluster.
      new HarvesterIPPool(`${name}-services`, { name: `${cluster}-services`, ranges: [a.serviceAddresses], selector: { network: args.network, scope: [{ namespace, guestCluster: cluster }] } }, child);
    }

    this.credentials = new GuestClusterCredentials(name, { clusterName: cluster, namespace, serverUrl: args.harvesterServerUrl }, child);

    const versionOf = (pool: { kubernetesVersion?: string }) => pool.kubernetesVersion ?? a.kubernetesVersion;
    this.identity = new GuestClusterIdentity(name, {
      clusterName: cluster,
      namespace,
      endpoint,
      kubernetesVersion: a.kubernetesVersion,
      agentVersions: Object.fromEntries(a.agentPools.map((p) => [p.name, versionOf(p)])),
      ...a.networking,
    }, child);
    const id = this.identity;
    // What replaces the identity (a new CA: a new cluster) replaces every pool too, its old VMs deleted first. The
    // trigger is those arguments themselves: known at preview, whereas the identity's outputs are not while it updates.
    const identityOf = stableStringify({ clusterName: cluster, namespace, networking: a.networking });
    const replaced: pulumi.CustomResourceOptions = { ...child, replacementTrigger: identityOf, deleteBeforeReplace: true };
    const networking = { ...a.networking, clusterDns: clusterDnsOf(a.networking.serviceCidr, a.networking.clusterDns) };
    const install = a.install === 'preinstalled' ? ({ method: 'preinstalled' } as const) : ({ method: 'script' } as const);

    const userData = (role: 'server' | 'agent', pool: { nodeLabels: Record<string, string>; nodeTaints: string[]; kubernetesVersion?: string }, init = false) =>
      pulumi.all([id.serverToken, id.agentToken, id.supervisorUrl, endpoint, id.bootstrapFiles]).apply(([serverToken, agentToken, supervisorUrl, address, bootstrapFiles]) => {
        const spec: NodeUserData = {
          role,
          init,
          version: versionOf(pool),
          supervisorUrl,
          token: role === 'server' ? serverToken : agentToken,
          agentToken: role === 'server' ? agentToken : undefined,
          tlsSan: role === 'server' ? [address] : undefined,
          networking,
          disable: a.disable,
          clusterName: cluster,
          nodeLabels: pool.nodeLabels,
          nodeTaints: pool.nodeTaints,
          bootstrapFiles: init ? bootstrapFiles : undefined,
          install,
        };
        return pulumi.secret(renderNodeUserData(spec));
      });

    const poolArgs = (poolName: string, pool: GuestClusterInputs['controlPlane'] | GuestClusterInputs['agentPools'][number], count: number) => ({
      name: `${cluster}-${poolName}`,
      namespace,
      count,
      cpu: pool.cpu,
      memory: pool.memory,
      disks: [{ image: args.image, size: pool.diskSize }],
      networks: [{ network: args.network }],
      sshKeys: args.sshKeys,
      zones: pool.zones,
      guestCluster: cluster,
      poolName,
      guestCredentials: this.credentials.cloudInit,
      guestKubeconfig: id.adminKubeconfig,
      // A roll replaces one VM at a time, each Ready in the guest before the next goes.
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });

    this.servers = new HarvesterMachinePool(`${name}-server`, {
      ...poolArgs('server', a.controlPlane, a.controlPlane.servers),
      userData: userData('server', a.controlPlane),
      initUserData: userData('server', a.controlPlane, true),
    }, replaced);

    this.agentPools = Object.fromEntries(a.agentPools.map((p) => [p.name, new HarvesterMachinePool(`${name}-${p.name}`, {
      ...poolArgs(p.name, p, p.count),
      userData: userData('agent', p),
    }, { ...replaced, dependsOn: [this.servers] })]));

    const pools = [{ role: 'server' as const, pool: this.servers }, ...Object.values(this.agentPools).map((pool) => ({ role: 'agent' as const, pool }))];
    const expected = pulumi.all(pools.map(({ pool }) => pool.machines)).apply((lists) => lists.flatMap((machines, i) => machines.map((m) => ({ name: m.name, role: pools[i].role }))));
    this.ready = new GuestClusterReady(name, {
      clusterName: cluster,
      namespace,
      guestKubeconfig: id.adminKubeconfig,
      nodes: expected,
      supervisorUrl: id.supervisorUrl,
      loadBalancer: this.loadBalancer.name,
      serverToken: id.serverToken,
      agentToken: id.agentToken,
      timeouts: { create: a.readyTimeout, update: a.readyTimeout },
    }, child);

    this.kubeconfig = pulumi.secret(id.adminKubeconfig);
    this.endpoint = endpoint;
    this.apiServerUrl = id.apiServerUrl;
    this.caCertificate = id.caCertificate;
    this.nodes = this.ready.nodeStatus;
    this.registerOutputs({ kubeconfig: this.kubeconfig, endpoint: this.endpoint, apiServerUrl: this.apiServerUrl, caCertificate: this.caCertificate, nodes: this.nodes });
  }
}
