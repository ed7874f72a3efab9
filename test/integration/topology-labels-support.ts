/**
 * Shared setup of the TopologyLabels integration tests: the emulator with a guest RKE2 cluster (its cloud
 * provider and kubelet versions chosen per suite), the TopologyLabels and machine pool handlers wired to it,
 * out-of-band edits through a plain client ("someone in the Harvester UI"), and clean-up of everything made.
 */
import type { KubeObject, Node } from '../../provider/client/objects';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createMachinePoolProvider, type MachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import { createTopologyLabelsProvider, type TopologyLabelsProvider } from '../../provider/resources/topology-labels/handlers';
import type { TopologyLabelsOutputs } from '../../provider/resources/topology-labels/model';
import { eventually } from '../support/emulator-harness';
import { startTarget, type TestTarget } from '../support/target';
import { fastConnect } from '../support/fast-connect';

/** The guest cluster's name (the CCM --cluster-name and the pools' guestCluster). */
export const GUEST_CLUSTER = 'gc1';
export const ZONE = 'topology.kubernetes.io/zone';
export const REGION = 'topology.kubernetes.io/region';

/** A target with a guest cluster and both providers. */
export interface TopologyHarness {
  target: TestTarget & { emulator: NonNullable<TestTarget['emulator']> };
  client: HarvesterClient;
  guest: HarvesterClient;
  guestKubeconfig: string;
  topology: TopologyLabelsProvider;
  pools: MachinePoolProvider;
  warnings: string[];
  /** Host names, sorted. */
  hosts: string[];
  host(name: string): Promise<Node>;
  /** Number of write requests (create/update/patch/delete) the Harvester API received since `mark`. */
  writesSince(mark: number): string[];
  /** check + create of a TopologyLabels resource (failing on check failures); remembered for clean-up. */
  createTopology(args: Record<string, unknown>): Promise<TopologyLabelsOutputs>;
  /** check + update of a TopologyLabels resource. */
  updateTopology(olds: TopologyLabelsOutputs, args: Record<string, unknown>): Promise<TopologyLabelsOutputs>;
  /** delete of a TopologyLabels resource (no longer cleaned up at the end). */
  deleteTopology(outs: TopologyLabelsOutputs): Promise<void>;
  /** A machine pool of `count` guest-cluster VMs, every VM ready, and their guest nodes registered. */
  createGuestPool(name: string, count: number): Promise<string[]>;
  /** Live-migrate VM `vm` (as the Harvester UI does) and wait until it runs on another host; returns the new host. */
  migrate(vm: string): Promise<string>;
  stop(): Promise<void>;
}

/** Start the emulator with a guest cluster of the given versions. */
export async function startTopologyHarness(guest: { ccmVersion: string; kubeletVersion?: string }): Promise<TopologyHarness> {
  const target = (await startTarget({
    harvester: { delays: { vmiSchedule: 20, vmiBoot: 60, guestAgent: 60, imageImport: 50, migration: 100 } },
    guest: { clusterName: GUEST_CLUSTER, ccmVersion: guest.ccmVersion, kubeletVersion: guest.kubeletVersion, delays: { nodeRegister: 50, ccmInit: 20 } },
  })) as TopologyHarness['target'];
  const connect = fastConnect(4);
  const warnings: string[] = [];
  const topology = createTopologyLabelsProvider({ connect, onWarning: (w) => warnings.push(w) });
  const pools = createMachinePoolProvider({ connect });
  const client = await HarvesterClient.connect({ kubeconfig: target.kubeconfig });
  const guestKubeconfig = target.emulator.emulator.guest!.kubeconfig;
  const guestClient = await HarvesterClient.connect({ kubeconfig: guestKubeconfig });
  const hosts = (await client.nodes.list()).items.map((n) => n.metadata.name!).sort();
  const madeTopology = new Map<string, TopologyLabelsOutputs>();
  const madePools = new Map<string, Record<string, unknown>>();
  const ns = target.fixtures.namespace;
  const vmim = client.resource({ group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachineInstanceMigration', plural: 'virtualmachineinstancemigrations', namespaced: true, statusSubresource: true });
  const hostOf = async (vm: string) => String(((await client.virtualMachineInstances.get(vm, ns))?.status as { nodeName?: string } | undefined)?.nodeName ?? '');

  return {
    target,
    client,
    guest: guestClient,
    guestKubeconfig,
    topology,
    pools,
    warnings,
    hosts,
    async host(name) {
      return (await client.nodes.get(name))!;
    },
    writesSince(mark) {
      return target.emulator.emulator.journal.entries({ since: mark })
        .filter((e) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb ?? ''))
        .map((e) => `${e.method} ${e.path}`);
    },
    async createTopology(args) {
      const checked = await topology.check({}, { kubeconfig: target.kubeconfig, ...args });
      if (checked.failures) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
      const { id, outs } = await topology.create(checked.inputs!);
      madeTopology.set(id, outs!);
      return outs!;
    },
    async updateTopology(olds, args) {
      const checked = await topology.check(olds, { kubeconfig: target.kubeconfig, ...args });
      if (checked.failures) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
      const { outs } = await topology.update(olds.name, olds, checked.inputs!);
      madeTopology.set(olds.name, outs!);
      return outs!;
    },
    async deleteTopology(outs) {
      madeTopology.delete(outs.name);
      await topology.delete(outs.name, outs as unknown as Record<string, unknown>);
    },
    async createGuestPool(name, count) {
      const args = {
        kubeconfig: target.kubeconfig, name, namespace: ns, count, guestCluster: GUEST_CLUSTER,
        disks: [{ image: target.fixtures.cloudImage, size: '20Gi' }], networks: [{ network: target.fixtures.network }],
        timeouts: { create: '60s', update: '60s', delete: '60s' },
      };
      const checked = await pools.check({}, args);
      if (checked.failures) throw new Error(`pool check failed: ${JSON.stringify(checked.failures)}`);
      madePools.set(name, checked.inputs!);
      const { outs } = await pools.create(checked.inputs!);
      const vms = (outs as { machines: { name: string }[] }).machines.map((m) => m.name);
      await eventually(async () => {
        const nodes = (await guestClient.nodes.list()).items;
        return vms.every((vm) => nodes.some((n) => n.metadata.name === vm && !((n.spec as { taints?: unknown[] })?.taints ?? []).length));
      }, `guest nodes ${vms.join(', ')} registered and initialised`, 10_000);
      return vms;
    },
    async migrate(vm) {
      const before = await hostOf(vm);
      await vmim.create({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', metadata: { name: `${vm}-move`, namespace: ns }, spec: { vmiName: vm } } as KubeObject);
      return eventually(async () => {
        const now = await hostOf(vm);
        return now && now !== before ? now : undefined;
      }, `VM ${vm} migrated away from ${before}`, 10_000);
    },
    async stop() {
      try {
        for (const [id, outs] of madeTopology) await topology.delete(id, outs as unknown as Record<string, unknown>);
        for (const [name, inputs] of madePools) await pools.delete(`${ns}/${name}`, inputs);
      } finally {
        await target.stop();
      }
    },
  };
}
