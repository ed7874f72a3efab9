/**
 * Preview refuses exactly what up refuses (issue 24): for every refusal `up` (create/update) makes before its first
 * write, `check` refuses it first on the same property and in the same words, both for a create (no olds) and for
 * an update of an existing pool (the recorded inputs as olds), and up writes nothing. One table row per refusal;
 * a key pair that is not validated, which the emulator's webhook never lets exist, is in the handlers' unit test.
 */
import assert from 'node:assert/strict';
import type { KubeObject } from '../../provider/client/objects';
import type { CheckFailure } from '../../provider/core/types';
import { formatFailure } from '../../provider/core/input-errors';
import { IMAGE_FAIL_ANNOTATION } from '../../emulator/controllers/image-stages';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { validateInputs } from '../../provider/resources/machine-pool/validate';
import { eventually } from '../support/emulator-harness';
import { suiteTimeout } from '../support/target';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

type Raw = Record<string, unknown>;

/** One refusal: what makes it (objects made beforehand, removed after) and the property check names. */
interface Refusal {
  what: string;
  property: string;
  /** Inputs of pool `pool` that meet the refusal (on top of a scale-up to 2). */
  inputs(pool: string): Raw;
  /** Makes what the refusal needs for pools `pools`; returns how to undo it. */
  arrange?(pools: string[]): Promise<() => Promise<unknown>>;
  emulatorOnly?: boolean;
}

describe('machine pool: preview refuses every refusal of up, for a create and for an update', function () {
  this.timeout(suiteTimeout(90_000));
  let h: PoolHarness;
  let pool: string;
  let recorded: Raw;
  let outputs: MachinePoolOutputs;
  before(async () => {
    h = await startPoolHarness();
    pool = h.name('held');
    recorded = (await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!;
    outputs = (await h.provider.create(recorded)).outs!;
  });
  after(async () => h?.stop());

  const foreignVm = (name: string): KubeObject => ({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name, namespace: h.namespace, labels: { app: 'someone-else' } },
    spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: {} } } } },
  });
  const foreignSecret = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: h.namespace, labels: { app: 'someone-else' } }, stringData: { userdata: '#cloud-config\n' } } as KubeObject);
  /** Every object of pools `names` with its resourceVersion: what a refused up must leave as it was. */
  const snapshot = async (...names: string[]) => {
    const all = await Promise.all(names.flatMap((p) => (['virtualMachines', 'secrets', 'persistentVolumeClaims'] as const).map((k) => h.list(k, p))));
    return all.flat().map((o) => `${o.kind ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
  };

  const refusals: Refusal[] = [
    { what: 'a namespace that does not exist', property: 'namespace', inputs: () => ({ namespace: h.name('nowhere') }) },
    { what: 'an image that does not exist', property: 'disks[0].image', inputs: () => ({ disks: [{ image: `${h.namespace}/${h.name('no-such-image')}`, size: '20Gi' }] }) },
    { what: 'an ISO installer image', property: 'disks[0].image', inputs: () => ({ disks: [{ image: h.target.fixtures.isoImage, size: '20Gi' }] }) },
    {
      what: 'an image whose import failed',
      property: 'disks[0].image',
      emulatorOnly: true,
      inputs: () => ({ disks: [{ image: `${h.namespace}/${h.name('broken-image')}`, size: '20Gi' }] }),
      async arrange() {
        const name = h.name('broken-image');
        await h.client.images.create({
          apiVersion: 'harvesterhci.io/v1beta1',
          kind: 'VirtualMachineImage',
          metadata: { name, namespace: h.namespace, annotations: { [IMAGE_FAIL_ANNOTATION]: 'the download failed' } },
          spec: { displayName: name, sourceType: 'download', url: 'https://images.example.com/broken.img', retry: 0 },
        } as never);
        // Settled, so check and up see the same state (not "import at 0%" for one and "import failed" for the other).
        const failed = (c: { type?: string; status?: string }) => c.type === 'RetryLimitExceeded' && c.status === 'True';
        await eventually(async () => (await h.client.images.get(name, h.namespace))?.status?.conditions?.some(failed), `image ${name} failed to import`);
        return () => h.client.images.delete(name, { namespace: h.namespace });
      },
    },
    { what: 'a disk smaller than its image', property: 'disks[0].size', inputs: () => ({ disks: [{ image: h.target.fixtures.cloudImage, size: '1Gi' }] }) },
    { what: 'a VM network that does not exist', property: 'networks[0].network', inputs: () => ({ networks: [{ network: `${h.namespace}/${h.name('no-such-net')}` }] }) },
    {
      what: 'a VM network on a cluster network no host is attached to',
      property: 'networks[0].network',
      inputs: () => ({ networks: [{ network: `${h.namespace}/${h.name('far-net')}` }] }),
      async arrange() {
        const name = h.name('far-net');
        const clusterNetwork = h.name('far');
        // The cluster network exists (Harvester's webhook refuses a network on a missing one) with no VlanConfig.
        await h.client.clusterNetworks.create({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name: clusterNetwork } } as never);
        await h.client.networks.create({
          apiVersion: 'k8s.cni.cncf.io/v1',
          kind: 'NetworkAttachmentDefinition',
          metadata: { name, namespace: h.namespace, labels: { 'network.harvesterhci.io/clusternetwork': clusterNetwork, 'network.harvesterhci.io/vlan-id': '300' } },
          spec: { config: JSON.stringify({ cniVersion: '0.3.1', name, type: 'bridge', bridge: `${clusterNetwork}-br`, vlan: 300, ipam: {} }) },
        } as never);
        return async () => {
          await h.client.networks.delete(name, { namespace: h.namespace });
          await h.client.clusterNetworks.delete(clusterNetwork);
        };
      },
    },
    { what: 'a key pair that does not exist', property: 'sshKeys[0]', inputs: () => ({ sshKeys: [`${h.namespace}/${h.name('no-such-key')}`] }) },
    { what: 'a zone no host is in', property: 'zones[0]', inputs: () => ({ zones: ['mars-1a'] }) },
    { what: 'user data that is not a cloud-config while the guest agent is merged in', property: 'userData', inputs: () => ({ userData: '#!/bin/sh\necho hello\n' }) },
    {
      what: 'someone else\'s VM at the index a scale-up takes',
      property: 'name',
      inputs: () => ({}),
      async arrange(pools) {
        for (const p of pools) await h.client.virtualMachines.create(foreignVm(`${p}-1`) as never);
        return () => Promise.all(pools.map((p) => h.client.virtualMachines.delete(`${p}-1`, { namespace: h.namespace })));
      },
    },
    {
      what: 'someone else\'s Secret where the new VM\'s user data goes',
      property: 'name',
      inputs: () => ({}),
      async arrange(pools) {
        for (const p of pools) await h.client.secrets.create(foreignSecret(`${p}-1-cloudinit`) as never);
        return () => Promise.all(pools.map((p) => h.client.secrets.delete(`${p}-1-cloudinit`, { namespace: h.namespace })));
      },
    },
  ];

  for (const r of refusals) {
    it(`${r.what}: check refuses it on ${r.property}, with and without olds, in up's words; up writes nothing`, async function () {
      if (r.emulatorOnly && !h.target.emulator) this.skip();
      const fresh = h.name('fresh');
      const undo = await r.arrange?.([pool, fresh]);
      try {
        const news = h.args(pool, { count: 2, ...r.inputs(pool) });
        const update = await h.provider.check(recorded, news);
        const create = await h.provider.check({}, h.args(fresh, { count: 2, ...r.inputs(fresh) }));
        const on = (failures: CheckFailure[] | undefined) => (failures ?? []).map((f) => f.property);
        assert.deepEqual(on(update.failures), [r.property], 'check with the recorded inputs as olds');
        assert.deepEqual(on(create.failures), [r.property], 'check of a create');
        const before = await snapshot(pool, fresh);
        const parsed = validateInputs(news);
        const err = await h.provider.update(h.id(pool), outputs as never, (parsed.inputs ?? news) as never).then(() => undefined, (e: unknown) => e);
        assert.ok(err instanceof Error, 'up refuses');
        assert.ok(err.message.includes(formatFailure(update.failures![0])), `up refuses in the words of check:\n${err.message}`);
        assert.deepEqual(await snapshot(pool, fresh), before, 'up wrote nothing');
      } finally {
        await undo?.();
      }
    });
  }

  it('someone else\'s Secret in place of a VM\'s own lost Secret: check of an update names it; up, which would recreate it, refuses first', async () => {
    const secret = `${pool}-0-cloudinit`;
    await h.client.secrets.delete(secret, { namespace: h.namespace });
    await h.client.secrets.create(foreignSecret(secret) as never);
    try {
      const news = h.args(pool, { count: 1, labels: { 'example.com/team': 'blue' } });
      const update = await h.provider.check(recorded, news);
      assert.deepEqual(update.failures?.map((f) => f.property), ['name']);
      assert.match(update.failures![0].reason, new RegExp(`^Secret ${h.namespace}/${secret} already exists and is not managed by machine pool`));
      const before = await snapshot(pool);
      const err = await h.provider.update(h.id(pool), outputs as never, validateInputs(news).inputs as never).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof Error && err.message.includes(formatFailure(update.failures![0])), `up refuses in the words of check: ${String(err)}`);
      assert.deepEqual(await snapshot(pool), before, 'up wrote nothing (not even the label patch)');
    } finally {
      await h.client.secrets.delete(secret, { namespace: h.namespace });
    }
  });
});
