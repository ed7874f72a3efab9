/**
 * HarvesterMachinePool's read through Pulumi's real dynamic-provider host (issue 24): a refresh returns inputs
 * deep-equal to the checked inputs, secret ones included (the engine keeps them secret: they come back under the
 * names the SDK marks secret), so the next preview shows no `+ userData`; an out-of-band edit of a cloud-init
 * Secret is drift without content, healed by up. An import by id alone rebuilds what the cluster records and takes
 * the program's value for what it cannot know, so a matching program imports with no change and no ignoreChanges.
 */
import assert from 'node:assert/strict';
import { startEngineHarness, type EngineHarness } from './engine-support';

const NETWORK_DATA = 'version: 2\nethernets:\n  enp1s0:\n    dhcp4: true\n';

describe('engine contract: machine pool refresh and import read back every input', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  before(async () => {
    h = await startEngineHarness();
    text = await h.providerText('machinePool');
  });
  after(async () => h?.stop());

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
      for (const change of [{ userData: '#cloud-config\nhostname: other\n' }, { zones: ['us-east-1a', 'us-east-1c'] }, { guestAgent: 'none' }, { count: 3 }]) {
        const other = await h.host.check(urn, imported.inputs!, { ...program, ...change });
        assert.equal((await h.host.diff(urn, imported.id, imported.properties, other.inputs)).changes, 'some', `${Object.keys(change)[0]} differs from the cluster`);
      }
    } finally {
      await h.host.delete(urn, created.id, { ...created.properties, volumeDeletion: 'delete' });
    }
  });
});
