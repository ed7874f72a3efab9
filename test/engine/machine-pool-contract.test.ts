/**
 * HarvesterMachinePool through Pulumi's real dynamic-provider host, as the engine drives it (issue 24):
 * - the preview of an existing pool refuses what `up` refuses: `check` with the recorded inputs as olds names a
 *   refusal before up meets it, on the same property and in the same words; only a stack whose inputs are all
 *   unchanged may pass over a reference that vanished since (trap 10 of docs/design/dynamic-host-contract.md),
 *   since up then has nothing to do that needs it;
 * - a refresh returns inputs deep-equal to the checked inputs, secret ones included (the engine keeps them secret:
 *   they come back under the names the SDK marks secret), so the next preview shows no `+ userData`; an out-of-band
 *   edit of a cloud-init Secret is drift without its content, healed by up;
 * - an import by id alone rebuilds what the cluster records and takes the program's value for what it cannot
 *   know, so a matching program imports with no change and no ignoreChanges;
 * - a create whose first VM is refused leaves nothing on the cluster: its cloud-init Secret (the user data, which
 *   may hold passwords) was written first and goes before the error returns, so nothing is left without a record.
 */
import assert from 'node:assert/strict';
import { DynamicHostError } from '../../runner/dynamic-host';
import { formatFailure } from '../../provider/core/input-errors';
import { startEngineHarness, type EngineHarness } from './engine-support';

const ZONE_LABEL = 'topology.kubernetes.io/zone';
const NETWORK_DATA = 'version: 2\nethernets:\n  enp1s0:\n    dhcp4: true\n';

describe('engine contract: machine pool preview, refresh and import', function () {
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
      assert.match(preview.failures[0].reason, /^VirtualMachine default\/grows-2 already exists and is not managed by machine pool default\/grows \(labels app=someone-else/);
      const up = await refusedUpdate(pool, created, { ...checked.inputs, count: 3 });
      assert.ok(up.message.includes(formatFailure(preview.failures[0])), `up refuses in the same words:\n${up.message}`);
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
      assert.match(grown.failures[0].reason, /^no Harvester host is in zone "us-east-1c" \(zones on hosts: us-east-1a, us-east-1b\)/);
      const fresh = await h.host.check(h.urn('HarvesterMachinePool', 'zoned-new'), {}, h.poolInputs('zoned-new', text, { zones: [zone] }));
      assert.deepEqual(fresh.failures.map((f) => f.property), ['zones[0]'], 'a create is refused too');
      const up = await refusedUpdate(pool, created, { ...checked.inputs, count: 2 });
      assert.ok(up.message.includes(formatFailure(grown.failures[0])), `up refuses in the same words:\n${up.message}`);
      assert.deepEqual(await vmNames(pool), [`${pool}-0`], 'nothing was created');
    } finally {
      for (const host of hosts) await h.client.nodes.mergePatch(host, { metadata: { labels: { [ZONE_LABEL]: zone } } });
      await h.host.delete(urn, created.id, created.properties);
    }
  });

  const decoded = async (secret: string, key: string) => {
    const data = (await h.client.secrets.get(secret, 'default'))?.data?.[key];
    return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
  };

  it('refresh returns userData and networkData as checked; an edited cloud-init Secret is drift without its content, healed by up', async () => {
    const pool = 'refreshed';
    const urn = h.urn('HarvesterMachinePool', pool);
    const checked = await h.host.check(urn, {}, h.poolInputs(pool, text, { count: 2, networkData: NETWORK_DATA }));
    const created = await h.host.create(urn, checked.inputs);
    try {
      const refreshed = await h.host.read(urn, created.id, created.properties);
      assert.deepEqual(refreshed.inputs, checked.inputs, 'the next preview compares the program with exactly what it checked');
      assert.equal(JSON.stringify(refreshed.properties).includes('s3cr3t-user-data'), false, 'user data never in outputs');
      assert.equal((await h.host.diff(urn, created.id, refreshed.properties, checked.inputs)).changes, 'none');

      const secret = `${pool}-1-cloudinit`;
      await h.client.secrets.mergePatch(secret, { data: { userdata: Buffer.from('#cloud-config\nhostname: tampered\n').toString('base64') } });
      const drifted = await h.host.read(urn, created.id, refreshed.properties);
      const drift = (drifted.properties.drift as string[]).join('\n');
      assert.match(drift, /Secret default\/refreshed-1-cloudinit: cloud-init user data differs from the recorded userData/);
      assert.equal(drift.includes('tampered'), false, 'drift never shows the content');
      assert.equal(JSON.stringify(drifted).includes('tampered'), false);
      assert.equal(drifted.inputs!.userData, undefined, 'left out, so the preview shows userData as changed');
      assert.equal(drifted.inputs!.networkData, NETWORK_DATA, 'the network data still matches');
      assert.equal((await h.host.diff(urn, created.id, drifted.properties, checked.inputs)).changes, 'some');

      const healed = await h.host.update(urn, created.id, drifted.properties, checked.inputs);
      assert.match((await decoded(secret, 'userdata')) ?? '', /s3cr3t-user-data/, 'up wrote the Secret back');
      const clean = await h.host.read(urn, created.id, healed.properties);
      assert.deepEqual(clean.properties.drift, []);
      assert.deepEqual(clean.inputs, checked.inputs);
    } finally {
      await h.host.delete(urn, created.id, created.properties);
    }
  });

  it('import by id alone, then check and diff with the program that made the pool: no change, with no ignoreChanges', async () => {
    const pool = 'adopted';
    const urn = h.urn('HarvesterMachinePool', pool);
    const program = h.poolInputs(pool, text, {
      count: 2,
      zones: ['us-east-1b', 'us-east-1a', 'us-east-1c'],
      sshKeys: ['ops-key'],
      networkData: NETWORK_DATA,
      labels: { 'example.com/team': 'blue' },
      rollingUpdate: { maxSurge: '50%', maxUnavailable: 1 },
      volumeDeletion: 'retain',
    });
    const created = await h.host.create(urn, (await h.host.check(urn, {}, program)).inputs);
    try {
      // `pulumi import` / HarvesterMachinePool.get: the engine sends the id and { __provider } only.
      const imported = await h.host.read(urn, created.id, {}, { __provider: text });
      assert.equal(imported.id, `default/${pool}`);
      assert.equal(imported.inputs!.userData, program.userData, 'the user data as written, from the Secret');
      assert.equal(imported.inputs!.networkData, NETWORK_DATA);
      assert.equal(imported.inputs!.guestAgent, 'install', 'the Secret shows the agent merged into user data that lacks it');
      assert.deepEqual(imported.inputs!.zones, ['us-east-1b', 'us-east-1a'], 'the zones the VMs sit in');
      assert.equal(JSON.stringify(imported.properties).includes('s3cr3t-user-data'), false, 'user data never in outputs');
      const checked = await h.host.check(urn, imported.inputs!, program);
      assert.deepEqual(checked.failures, []);
      assert.equal((await h.host.diff(urn, imported.id, imported.properties, checked.inputs)).changes, 'none');
      // A refresh of that record (it may be a `.get` pool, whose state inputs mark nothing secret) withholds them.
      const refreshed = await h.host.read(urn, imported.id, imported.properties);
      assert.deepEqual(refreshed.properties.drift, []);
      assert.equal(JSON.stringify(refreshed).includes('s3cr3t-user-data'), false);
      for (const change of [{ userData: '#cloud-config\nhostname: other\n' }, { zones: ['us-east-1a', 'us-east-1c'] }, { guestAgent: 'none' }, { count: 3 }]) {
        const other = await h.host.check(urn, imported.inputs!, { ...program, ...change });
        assert.equal((await h.host.diff(urn, imported.id, imported.properties, other.inputs)).changes, 'some', `${Object.keys(change)[0]} differs from the cluster`);
      }
    } finally {
      await h.host.delete(urn, created.id, { ...created.properties, volumeDeletion: 'delete' });
    }
  });

  it('a create whose first VM is refused (a webhook denial) leaves no cloud-init Secret behind: not after the error, not after destroy', async () => {
    const pool = 'refused';
    const urn = h.urn('HarvesterMachinePool', pool);
    const checked = await h.host.check(urn, {}, h.poolInputs(pool, text));
    assert.deepEqual(checked.failures, []);
    const ours = async () => {
      const query = { namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${pool}` };
      const [secrets, vms] = await Promise.all([h.client.secrets.list(query), h.client.virtualMachines.list(query)]);
      return [...secrets.items.map((s) => `Secret ${s.metadata.name}`), ...vms.items.map((vm) => `VirtualMachine ${vm.metadata.name}`)];
    };
    const denial = 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: refused for this test';
    const ids = h.t.emulator.faults.add({ name: 'vm-refused', match: { verb: 'create', resource: 'virtualmachines' }, action: { type: 'error', code: 500, message: denial }, times: 1 });
    const err = await h.host.create(urn, checked.inputs).then(() => undefined, (e: unknown) => e);
    for (const id of ids) h.t.emulator.faults.remove(id);
    assert.ok(err instanceof DynamicHostError, `the create must fail, got ${String(err)}`);
    assert.match(err.message, /refused for this test/);
    if (err.initFailure) {
      // Recorded instead: refresh keeps it and destroy removes it (the other way the contract allows).
      const refreshed = await h.host.read(urn, err.initFailure.id, err.initFailure.properties);
      if (refreshed.id) await h.host.delete(urn, refreshed.id, refreshed.properties);
    } else {
      assert.deepEqual(await ours(), [], 'nothing was recorded, so nothing may be left: the Secret holds the user data');
    }
    assert.deepEqual(await ours(), []);
  });

  it('when that Secret cannot be removed either, the failed create is recorded: refresh keeps it, destroy removes the Secret', async () => {
    const pool = 'refused-twice';
    const urn = h.urn('HarvesterMachinePool', pool);
    const checked = await h.host.check(urn, {}, h.poolInputs(pool, text));
    const secrets = async () => (await h.client.secrets.list({ namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${pool}` })).items.map((s) => s.metadata.name);
    const denial = 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: refused for this test';
    const ids = h.t.emulator.faults.add(
      { name: 'vm-refused', match: { verb: 'create', resource: 'virtualmachines' }, action: { type: 'error', code: 500, message: denial }, times: 1 },
      { name: 'secret-delete-refused', match: { verb: 'delete', resource: 'secrets' }, action: { type: 'unauthorized' }, times: 1 },
    );
    const err = await h.host.create(urn, checked.inputs).then(() => undefined, (e: unknown) => e);
    for (const id of ids) h.t.emulator.faults.remove(id);
    assert.ok(err instanceof DynamicHostError && err.initFailure, `a Secret left behind must be recorded, got ${String(err)}`);
    assert.deepEqual(await secrets(), [`${pool}-0-cloudinit`]);
    assert.equal(JSON.stringify(err.initFailure.properties).includes('s3cr3t-user-data'), false, 'the record holds no user data');
    const refreshed = await h.host.read(urn, err.initFailure.id, err.initFailure.properties);
    assert.equal(refreshed.id, `default/${pool}`, 'refresh keeps the record');
    await h.host.delete(urn, refreshed.id, refreshed.properties);
    assert.deepEqual(await secrets(), []);
  });
});
