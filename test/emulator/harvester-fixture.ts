/**
 * Test fixture for the simulated Harvester: a real ObjectStore with the Harvester registry and schema
 * validation, seeded, with the webhooks and controllers installed on a ManualClock. `run(ms)` moves time
 * forward in small steps and lets watch delivery settle between steps, so multi-stage transitions complete
 * without sleeping.
 */
import { strict as assert } from 'node:assert';
import { ObjectStore } from '../../emulator/api/store';
import { KubeObject } from '../../emulator/api/types';
import { validateObject } from '../../emulator/api/validation';
import { ManualClock } from '../../emulator/clock';
import { HarvesterKinds } from '../../emulator/controllers/kinds';
import { HarvesterHandle, HarvesterOptions, installHarvester, SeedOptions, seedHarvester } from '../../emulator/harvester';
import { createHarvesterRegistry } from '../../emulator/kinds';
import { StatusError } from '../../emulator/api/errors';

/** A running simulation. */
export interface HarvesterSim {
  store: ObjectStore;
  clock: ManualClock;
  harvester: HarvesterHandle;
  kinds: HarvesterKinds;
  /** Advance simulated time by `ms` (in `step` increments), settling watch delivery between steps. */
  run(ms?: number, step?: number): Promise<void>;
  /** Stop controllers; asserts no controller reported an unexpected error. */
  close(): void;
}

/** Lets store watch delivery and zero-delay controller work run to quiescence at the current instant. */
export async function settle(store: ObjectStore, clock: ManualClock): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const before = `${store.resourceVersion()}/${clock.pendingCount()}`;
    await store.settle();
    clock.advance(0);
    await store.settle();
    if (`${store.resourceVersion()}/${clock.pendingCount()}` === before) return;
  }
}

/** Builds a seeded store with the simulated Harvester installed. */
export async function startHarvesterSim(options: HarvesterOptions = {}, seed?: SeedOptions): Promise<HarvesterSim> {
  const clock = new ManualClock();
  const store = new ObjectStore(createHarvesterRegistry(), clock, { validate: validateObject });
  seedHarvester(store, seed);
  const harvester = installHarvester(store, clock, options);
  const sim: HarvesterSim = {
    store,
    clock,
    harvester,
    kinds: harvester.kinds,
    async run(ms = 0, step = 10) {
      await settle(store, clock);
      for (let t = 0; t < ms; t += step) {
        clock.advance(Math.min(step, ms - t));
        await settle(store, clock);
      }
    },
    close() {
      harvester.stop();
      assert.deepEqual(harvester.errors(), [], 'simulated controllers reported errors');
    },
  };
  await sim.run(0);
  return sim;
}

/** Runs `fn` expecting a StatusError; returns it. */
export function expectStatusError(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected the write to be refused');
}

/** `#cloud-config` user data that installs and starts qemu-guest-agent (the docs' snippet). */
export const AGENT_USERDATA = [
  '#cloud-config',
  'package_update: true',
  'packages:',
  '  - qemu-guest-agent',
  'runcmd:',
  '  - - systemctl',
  '    - enable',
  "    - '--now'",
  '    - qemu-guest-agent.service',
  '',
].join('\n');

/** A node-driver-shaped VirtualMachine (see shared example virtualmachine_node-driver_gc31-pool1.yaml). */
export function nodeDriverVm(
  name: string,
  opts: {
    namespace?: string;
    cluster?: string;
    userData?: string;
    secretRef?: string;
    runStrategy?: string;
    running?: boolean;
    affinity?: Record<string, unknown>;
    claims?: { name: string; storage: string; storageClassName?: string }[];
    network?: string;
    labels?: Record<string, string>;
  } = {},
): KubeObject {
  const ns = opts.namespace ?? 'default';
  const labels: Record<string, string> = {
    'harvesterhci.io/creator': 'docker-machine-driver-harvester',
    'harvesterhci.io/vmName': name,
    ...(opts.cluster ? { 'guestcluster.harvesterhci.io/name': opts.cluster } : {}),
    ...(opts.labels ?? {}),
  };
  const claims = opts.claims ?? [{ name: `${name}-disk-0-abcde`, storage: '10Gi', storageClassName: 'longhorn-ubuntu-22.04-server-cloudimg' }];
  const templates = claims.map((c) => ({
    metadata: { name: c.name, annotations: { 'harvesterhci.io/imageId': 'default/ubuntu-22.04-server-cloudimg' } },
    spec: {
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: c.storage } },
      storageClassName: c.storageClassName ?? 'longhorn-ubuntu-22.04-server-cloudimg',
      volumeMode: 'Block',
    },
  }));
  const cloudInit: Record<string, unknown> = opts.secretRef ? { secretRef: { name: opts.secretRef } } : { userData: opts.userData ?? '#cloud-config\n{}\n' };
  const spec: Record<string, unknown> = {
    template: {
      metadata: { labels: { ...labels }, annotations: { 'harvesterhci.io/sshNames': '[]' } },
      spec: {
        affinity: opts.affinity,
        domain: {
          cpu: { cores: 2, sockets: 1, threads: 1 },
          resources: { limits: { cpu: '2', memory: '4Gi' } },
          devices: {
            disks: [{ name: 'cloudinitdisk', disk: { bus: 'virtio' } }, ...claims.map((_, i) => ({ name: `disk-${i}`, disk: { bus: 'virtio' }, bootOrder: i + 1 }))],
            interfaces: [{ name: 'nic-0', model: 'virtio', bridge: {} }],
          },
        },
        networks: [{ name: 'nic-0', multus: { networkName: opts.network ?? 'default/vm-net' } }],
        volumes: [
          { name: 'cloudinitdisk', cloudInitNoCloud: cloudInit },
          ...claims.map((c, i) => ({ name: `disk-${i}`, persistentVolumeClaim: { claimName: c.name } })),
        ],
      },
    },
  };
  if (opts.running !== undefined) spec.running = opts.running;
  else spec.runStrategy = opts.runStrategy ?? 'RerunOnFailure';
  const template = spec.template as { spec: Record<string, unknown> };
  if (!opts.affinity) delete template.spec.affinity;
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name, namespace: ns, labels, annotations: { 'harvesterhci.io/volumeClaimTemplates': JSON.stringify(templates) } },
    spec,
  };
}

/** A node-driver VM of `cores` vCPUs and `memory` (limits), with extra `domain` fields (`cpu` merges into domain.cpu). */
export function sizedVm(name: string, cores: number, memory: string, extra: Record<string, unknown> = {}, opts: Parameters<typeof nodeDriverVm>[1] = {}): KubeObject {
  const vm = nodeDriverVm(name, opts);
  const spec = (vm.spec as { template: { spec: { domain: Record<string, unknown> } } }).template.spec;
  spec.domain.cpu = { cores, sockets: 1, threads: 1, ...((extra.cpu as object | undefined) ?? {}) };
  spec.domain.resources = { limits: { cpu: String(cores), memory } };
  for (const [k, v] of Object.entries(extra)) if (k !== 'cpu') spec.domain[k] = v;
  return vm;
}
