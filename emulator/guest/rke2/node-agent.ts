/**
 * The life of a VM whose user data is an RKE2 node (docs/design/guest-rke2.md §"A node's life"), one state
 * machine per VM, driven by the emulator's clock:
 *
 *   Installing → Starting → (init server) Initializing → Running
 *                         → (joiner)      Joining ⟲ (retry)  → Running → Node registered → Ready
 *   any → Stopped while the VM is not running (its Node turns Unknown after delays.nodeLost) → Starting again
 *   any → Failed when RKE2 could never start (bad config, no install, unknown version)
 *
 * The node boots once its VMI is Running and reports an IPv4 address (the guest agent): that address is the node
 * IP, and the user data is read then, as cloud-init reads it at first boot. Its state lives as long as the VM
 * (a restart keeps it: RKE2's data dir survives a reboot); a VM deleted and made again is a new node.
 */
import { randomBytes } from 'node:crypto';
import { Clock } from '../../clock';
import { StatusError } from '../../api/errors';
import { KubeObject, Store } from '../../api/types';
import { HarvesterKinds } from '../../controllers/kinds';
import { imagesOfVmi, userDataOf } from '../../controllers/guest-agent';
import { Controller, ErrorSink, splitKey } from '../../controllers/runtime';
import { firstIPv4 } from '../../controllers/vm-network';
import { field, isDeleting, writeChanges } from '../../util/objects';
import { ClusterContext, Rke2Cluster } from './cluster';
import { resolveSupervisor, ServingNode } from './endpoints';
import { Rke2Role } from './install';
import { checkJoin } from './join';
import { Rke2Journal } from './journal';
import { registeredNode, setNodeReady } from './kubelet';
import { Rke2Delays } from './options';
import { readRke2UserData, Rke2NodeSpec } from './user-data';

/** Emulator-only marker of an image with RKE2 already installed: its value is the version (e.g. v1.32.5+rke2r1). */
export const ANN_RKE2_PREINSTALLED = 'emulator.harvester-iac.io/rke2-version';

export type Rke2Phase = 'Installing' | 'Starting' | 'Initializing' | 'Joining' | 'Running' | 'Stopped' | 'Failed';

/** A simulated RKE2 node (one per VM). */
export interface Rke2NodeState {
  key: string;
  vmUid: string;
  nodeName: string;
  spec: Rke2NodeSpec;
  role?: Rke2Role;
  version?: string;
  phase: Rke2Phase;
  reason?: string;
  ip?: string;
  cluster?: Rke2Cluster;
  registered: boolean;
  ready: boolean;
  journal: Rke2Journal;
  due?: { step: string; at: number };
  busy: boolean;
}

/** What the node agent needs. */
export interface NodeAgentContext {
  harvester: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  delays: Rke2Delays;
  channels: Record<string, string>;
  clusterContext: ClusterContext;
  onCluster(cluster: Rke2Cluster): void;
  endpointsChanged(): void;
  track(work: Promise<unknown>): void;
  errors?: ErrorSink;
}

const QUORUM_RETRY_MS = 1000;

/** The node agent: a controller keyed by `namespace/vm`, and the node states it keeps. */
export function createNodeAgent(ctx: NodeAgentContext): { controller: Controller; nodes: Map<string, Rke2NodeState>; serving(): ServingNode[] } {
  const { harvester, kinds, clock, delays } = ctx;
  const nodes = new Map<string, Rke2NodeState>();
  // VMs whose boot (by VMI uid) was read as not RKE2: cloud-init reads the user data once per boot.
  const ignored = new Map<string, string>();
  const now = () => clock.now().getTime();

  function wait(node: Rke2NodeState, step: string, delay: number): number {
    if (!node.due || node.due.step !== step) node.due = { step, at: now() + delay };
    return Math.max(0, node.due.at - now());
  }

  function fail(node: Rke2NodeState, reason: string): undefined {
    node.phase = 'Failed';
    node.reason = reason;
    node.journal.error(reason);
    ctx.endpointsChanged();
    return undefined;
  }

  function serving(): ServingNode[] {
    return [...nodes.values()]
      .filter((n) => n.role === 'server' && n.phase === 'Running' && n.ip && n.cluster?.tlsOf(n.key))
      .map((n) => ({ key: n.key, ip: n.ip!, cluster: n.cluster! }));
  }

  function preinstalledVersion(vmi: KubeObject): string | undefined {
    return imagesOfVmi(vmi, harvester, kinds).map((i) => i.metadata.annotations?.[ANN_RKE2_PREINSTALLED]).find(Boolean);
  }

  function resolveVersion(node: Rke2NodeState, vmi: KubeObject): string | { error: string } {
    const unit = `rke2-${node.role}.service`;
    const preinstalled = preinstalledVersion(vmi);
    const install = node.spec.install;
    if (!install || node.spec.startedBeforeInstall) {
      return preinstalled ?? { error: `Failed to start ${unit}: Unit ${unit} not found.${install ? ' (runcmd starts it before the install step)' : ''}` };
    }
    if (install.version) return install.version;
    if (install.artifactPath) return preinstalled ?? { error: `air-gapped install from ${install.artifactPath}: the emulator cannot read the artifacts' version; set INSTALL_RKE2_VERSION or mark the image with ${ANN_RKE2_PREINSTALLED}` };
    return ctx.channels[install.channel] ?? { error: `the install script cannot resolve channel ${install.channel}: the emulator knows ${Object.keys(ctx.channels).join(', ')} (Rke2Options.channels)` };
  }

  function startInit(node: Rke2NodeState): void {
    node.phase = 'Initializing';
    node.busy = true;
    const work = (async () => {
      const cluster = await Rke2Cluster.create({ vmKey: node.key, spec: node.spec, ctx: ctx.clusterContext, journal: node.journal });
      await cluster.addServer(node.key, { nodeName: node.nodeName, nodeIp: node.ip!, tlsSan: node.spec.config.tlsSan, clusterDomain: cluster.critical['cluster-domain'] });
      cluster.addMember({ name: memberName(node), vmKey: node.key, vmUid: node.vmUid, address: node.ip! });
      node.cluster = cluster;
      node.phase = 'Running';
      node.reason = undefined;
      ctx.onCluster(cluster);
    })()
      .catch((err: Error) => fail(node, `starting kubernetes: preparing server: ${err.message}`))
      .finally(() => {
        node.busy = false;
        ctx.endpointsChanged();
        controller.enqueue(node.key);
      });
    ctx.track(work);
  }

  function memberName(node: Rke2NodeState): string {
    return `${node.nodeName}-${randomBytes(4).toString('hex')}`;
  }

  function joinFailed(node: Rke2NodeState, message: string): number {
    const url = node.spec.config.server ?? '';
    node.reason = node.role === 'agent' ? `Failed to validate connection to cluster at ${url}: ${message}` : message;
    node.journal.error(node.reason);
    node.due = { step: 'join', at: now() + (node.role === 'agent' ? delays.agentRetry : delays.serverRestart) };
    return node.due.at - now();
  }

  function join(node: Rke2NodeState): number | undefined {
    const remaining = wait(node, 'join', 0);
    if (remaining > 0) return remaining;
    const url = node.spec.config.server!;
    const reached = resolveSupervisor(url, serving(), harvester, kinds);
    if ('error' in reached) return joinFailed(node, node.role === 'server' ? `failed to validate token: ${reached.error}` : reached.error);
    const cluster = reached.target.cluster;
    const result = checkJoin(node.role!, node.spec, cluster, url);
    for (const w of result.warnings) node.journal.warn(w);
    if (!result.ok) return joinFailed(node, result.error!);
    if (node.role === 'agent') {
      node.cluster = cluster;
      node.phase = 'Running';
      node.reason = undefined;
      node.journal.info(`joined cluster ${cluster.id} through ${url}`);
      return 0;
    }
    if (!cluster.hasQuorum()) return joinFailed(node, 'etcd cluster join failed: etcdserver: unhealthy cluster');
    node.busy = true;
    const work = cluster
      .addServer(node.key, { nodeName: node.nodeName, nodeIp: node.ip!, tlsSan: node.spec.config.tlsSan, clusterDomain: cluster.critical['cluster-domain'] })
      .then(() => {
        cluster.addMember({ name: memberName(node), vmKey: node.key, vmUid: node.vmUid, address: node.ip! });
        node.cluster = cluster;
        node.phase = 'Running';
        node.reason = undefined;
        node.journal.info(`joined cluster ${cluster.id} through ${url} as an etcd member`);
      })
      .catch((err: Error) => fail(node, err.message))
      .finally(() => {
        node.busy = false;
        ctx.endpointsChanged();
        controller.enqueue(node.key);
      });
    ctx.track(work);
    return undefined;
  }

  function run(node: Rke2NodeState, vm: KubeObject, vmi: KubeObject): number | undefined {
    if (node.busy) return undefined;
    switch (node.phase) {
      case 'Failed':
        return undefined;
      case 'Installing': {
        const version = resolveVersion(node, vmi);
        if (typeof version !== 'string') return fail(node, version.error);
        const remaining = wait(node, 'install', node.spec.install && !node.spec.startedBeforeInstall ? delays.install : 0);
        if (remaining > 0) return remaining;
        node.version = version;
        node.journal.info(`rke2 ${version} installed; starting rke2-${node.role}.service`);
        node.phase = 'Starting';
        return 0;
      }
      case 'Starting': {
        const remaining = wait(node, 'start', node.role === 'server' ? delays.serverStart : delays.agentStart);
        if (remaining > 0) return remaining;
        if (node.cluster) {
          // A restart: an agent reconnects; a server whose member was removed cannot come back with its old data.
          if (node.role === 'server' && !node.cluster.memberOf(node.key, node.vmUid)) return fail(node, 'this server was removed from the etcd cluster; its data must be cleaned up (rke2-killall.sh, rke2-uninstall.sh) before it can join again');
          node.phase = 'Running';
          ctx.endpointsChanged();
          return 0;
        }
        if (node.role === 'server' && !node.spec.config.server) {
          startInit(node);
          return undefined;
        }
        node.phase = 'Joining';
        return 0;
      }
      case 'Joining':
        return join(node);
      case 'Initializing':
        return undefined;
      case 'Stopped':
        node.phase = node.version ? 'Starting' : 'Installing';
        node.journal.info('the VM runs again');
        return 0;
      case 'Running':
        return running(node, vm, vmi);
    }
  }

  function running(node: Rke2NodeState, vm: KubeObject, vmi: KubeObject): number | undefined {
    const cluster = node.cluster!;
    if (node.role === 'server' && !cluster.memberOf(node.key, node.vmUid)) return fail(node, 'this server was removed from the etcd cluster (its etcd member was deleted)');
    if (!node.registered) {
      if (!cluster.api || !cluster.hasQuorum()) {
        node.reason = 'waiting for the Kubernetes API: etcd has no quorum';
        return QUORUM_RETRY_MS;
      }
      const remaining = wait(node, 'register', delays.nodeRegister);
      if (remaining > 0) return remaining;
      const existing = cluster.store.get(cluster.nodeKind, undefined, node.nodeName);
      if (existing && field(existing, 'status', 'nodeInfo', 'systemUUID') !== String(vm.metadata.uid)) {
        return joinFailed(node, `Node password rejected, duplicate hostname or contents of '/etc/rancher/node/password' may not match server node-passwd entry, try enabling a unique node name with the --with-node-id flag`);
      }
      if (!existing) {
        const member = cluster.memberOf(node.key, node.vmUid);
        const object = registeredNode({ nodeName: node.nodeName, role: node.role!, version: node.version!, ip: node.ip!, config: node.spec.config, vm, vmi, memberName: member?.name }, clock.now());
        try {
          // Node has a status subresource: the create drops status, which the kubelet then writes.
          const created = cluster.store.create(cluster.nodeKind, { ...object, status: undefined }, { fieldManager: 'kubelet' });
          writeChanges(cluster.store, cluster.nodeKind, created, { ...created, status: object.status }, { fieldManager: 'kubelet' });
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 409)) throw err;
        }
        node.journal.info(`Node ${node.nodeName} registered`);
      }
      node.registered = true;
      node.ready = false;
      node.reason = undefined;
    }
    if (!node.ready) {
      const remaining = wait(node, 'ready', delays.nodeReady);
      if (remaining > 0) return remaining;
      setNodeReady(cluster.store, cluster.nodeKind, node.nodeName, 'True', clock.now());
      node.ready = true;
    }
    return undefined;
  }

  function stopped(node: Rke2NodeState): number | undefined {
    if (node.phase !== 'Stopped' && node.phase !== 'Failed') {
      node.phase = 'Stopped';
      node.due = undefined;
      node.journal.info('the VM is not running: rke2 is down');
      ctx.endpointsChanged();
    }
    if (!node.cluster || !node.registered || !node.ready) return undefined;
    const remaining = wait(node, 'lost', delays.nodeLost);
    if (remaining > 0) return remaining;
    if (node.cluster.hasQuorum()) setNodeReady(node.cluster.store, node.cluster.nodeKind, node.nodeName, 'Unknown', clock.now());
    node.ready = false;
    return undefined;
  }

  function reconcile(key: string): number | undefined {
    const { namespace, name } = splitKey(key);
    const vm = harvester.get(kinds.vm, namespace, name);
    if (!vm) ignored.delete(key);
    let node = nodes.get(key);
    if (node && (!vm || node.vmUid !== vm.metadata.uid)) {
      nodes.delete(key);
      node.journal.info('the VM is gone');
      ctx.endpointsChanged();
      node = undefined;
    }
    if (!vm) return undefined;
    const vmi = harvester.get(kinds.vmi, namespace, name);
    const ip = vmi && !isDeleting(vm) && !isDeleting(vmi) && field(vmi, 'status', 'phase') === 'Running' ? firstIPv4(vmi) : undefined;
    if (!node) {
      if (!ip || !vmi || ignored.get(key) === vmi.metadata.uid) return undefined;
      const podSpec = field<Record<string, unknown>>(vm, 'spec', 'template', 'spec') ?? {};
      const read = readRke2UserData(userDataOf(podSpec, String(namespace), harvester, kinds.secret));
      if (read.kind !== 'rke2') {
        ignored.set(key, String(vmi.metadata.uid));
        return undefined;
      }
      ignored.delete(key);
      const spec = read.spec;
      node = { key, vmUid: String(vm.metadata.uid), nodeName: spec.config.nodeName ?? name, spec, role: spec.role, phase: 'Installing', registered: false, ready: false, journal: new Rke2Journal(clock), busy: false };
      nodes.set(key, node);
      node.journal.info(`cloud-init: RKE2 ${spec.role ?? '?'} user data read (${[...spec.files.keys()].filter((p) => p.includes('rke2')).length} RKE2 file(s))`);
      if (spec.problem) return fail(node, spec.problem);
    }
    if (!ip || !vmi) return stopped(node);
    if (node.ip !== ip) {
      node.ip = ip;
      ctx.endpointsChanged();
    }
    for (let i = 0; i < 10; i++) {
      const result = run(node, vm, vmi);
      if (result !== 0) return result;
    }
    return 0;
  }

  const controller = new Controller({ name: 'rke2-node-agent', clock, errors: ctx.errors, reconcile });
  controller.watch(harvester, kinds.vm);
  controller.watch(harvester, kinds.vmi);
  return { controller, nodes, serving };
}
