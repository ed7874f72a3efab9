/**
 * HarvesterMachinePool through Pulumi's real dynamic-provider host: the preview of an existing pool refuses what
 * `up` refuses (issue 24). `check` with the recorded inputs as olds must name a refusal before up meets it, on the
 * same property and in the same words; only a stack whose inputs are all unchanged may pass over a reference that
 * vanished since (pulumi-tech.md §1.7 trap 10), because up then has nothing to do that needs it.
 */
import assert from 'node:assert/strict';
import { DynamicHostError } from '../../runner/dynamic-host';
import { startEngineHarness, type EngineHarness } from './engine-support';

const ZONE_LABEL = 'topology.kubernetes.io/zone';

describe('engine contract: an existing machine pool\'s preview refuses what up refuses', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  before(async () => {
    h = await startEngineHarness();
    text = await h.providerText('machinePool');
  });
  after(async () => h?.stop());

  const vmNames = async (pool: string) =>
    (await h.client.virtualMachines.list({ namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${pool}` })).items.map((vm) => vm.metadata.name).sort();

  /** Runs `up` (update) as if the preview had been skipped; returns the host's error. */
  async function refusedUpdate(pool: string, created: { id: string; properties: Record<string, unknown> }, news: Record<string, unknown>): Promise<DynamicHostError> {
    const err = await h.host.update(h.urn('HarvesterMachinePool', pool), created.id, created.properties, news).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DynamicHostError, `up must refuse, got ${String(err)}`);
    return err;
  }

  it('names someone else\'s VM at the next index a scale-up needs, in the words up refuses with, writing nothing', async () => {
    const pool = 'grows';
    const urn = h.urn('HarvesterMachinePool', pool);
    const program = h.poolInputs(pool, text);
    const checked = await h.host.check(urn, {}, program);
    const created = await h.host.create(urn, checked.inputs);
    await h.client.virtualMachines.create({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: `${pool}-2`, namespace: 'default', labels: { app: 'someone-else' } },
      spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: {} } } } },
    });
    try {
      const preview = await h.host.check(urn, checked.inputs, { ...program, count: 3 });
      assert.deepEqual(preview.failures.map((f) => f.property), ['name']);
      assert.match(preview.failures[0].reason, /^name: VirtualMachine default\/grows-2 already exists and is not managed by machine pool default\/grows \(labels app=someone-else/);
      const up = await refusedUpdate(pool, created, { ...checked.inputs, count: 3 });
      assert.ok(up.message.includes(preview.failures[0].reason), `up refuses in the same words:\n${up.message}`);
      assert.deepEqual(await vmNames(pool), [`${pool}-0`], 'nothing was created');
    } finally {
      await h.client.virtualMachines.delete(`${pool}-2`, { namespace: 'default' });
      await h.host.delete(urn, created.id, created.properties);
    }
  });

  it('refuses a zone that left the hosts as soon as any input changes, as up does; an unchanged stack still previews', async () => {
    const pool = 'zoned';
    const zone = 'us-east-1c';
    const urn = h.urn('HarvesterMachinePool', pool);
    const program = h.poolInputs(pool, text, { zones: [zone] });
    const checked = await h.host.check(urn, {}, program);
    const created = await h.host.create(urn, checked.inputs);
    const hosts = (await h.client.nodes.list({ labelSelector: `${ZONE_LABEL}=${zone}` })).items.map((n) => n.metadata.name as string);
    assert.notEqual(hosts.length, 0);
    for (const host of hosts) await h.client.nodes.mergePatch(host, { metadata: { labels: { [ZONE_LABEL]: null } } });
    try {
      const unchanged = await h.host.check(urn, checked.inputs, program);
      assert.deepEqual(unchanged.failures, [], 'nothing changes, so up needs nothing of the zone (trap 10)');
      const grown = await h.host.check(urn, checked.inputs, { ...program, count: 2 });
      assert.deepEqual(grown.failures.map((f) => f.property), ['zones[0]']);
      assert.match(grown.failures[0].reason, /^zones\[0\]: no Harvester host is in zone "us-east-1c" \(zones on hosts: us-east-1a, us-east-1b\)/);
      const fresh = await h.host.check(h.urn('HarvesterMachinePool', 'zoned-new'), {}, h.poolInputs('zoned-new', text, { zones: [zone] }));
      assert.deepEqual(fresh.failures.map((f) => f.property), ['zones[0]'], 'a create is refused too');
      const up = await refusedUpdate(pool, created, { ...checked.inputs, count: 2 });
      assert.ok(up.message.includes(grown.failures[0].reason), `up refuses in the same words:\n${up.message}`);
      assert.deepEqual(await vmNames(pool), [`${pool}-0`], 'nothing was created');
    } finally {
      for (const host of hosts) await h.client.nodes.mergePatch(host, { metadata: { labels: { [ZONE_LABEL]: zone } } });
      await h.host.delete(urn, created.id, created.properties);
    }
  });
});
