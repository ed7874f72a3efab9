/**
 * TopologyLabels updates and deletes on the emulator: hosts leaving the inputs are restored and forgotten (or
 * left, with a warning, when another resource claimed them); a write failing part-way is recorded and resumed;
 * delete keeps a value changed outside and says so; inputs never checked are refused whole. Emulator only.
 */
import assert from 'node:assert/strict';
import { ProviderError, ResourceInitError } from '../../provider/core/errors';
import { createTopologyLabelsProvider } from '../../provider/resources/topology-labels/handlers';
import { OWNER_ANNOTATION, PREVIOUS_ANNOTATION, type TopologyLabelsOutputs } from '../../provider/resources/topology-labels/model';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';
import { startTopologyHarness, ZONE, type TopologyHarness } from './topology-labels-support';

describe('TopologyLabels updates: hosts leaving, partial writes, deletes that keep outside edits', function () {
  this.timeout(60_000);
  let h: TopologyHarness;
  const zone = async (host: string) => (await h.host(host)).metadata.labels?.[ZONE] ?? null;
  const annotations = async (host: string) => (await h.host(host)).metadata.annotations ?? {};
  const editHost = (host: string, metadata: Record<string, unknown>) => h.client.nodes.mergePatch(host, { metadata });

  before(async function () {
    if (acceptanceMode()) this.skip();
    h = await startTopologyHarness({ ccmVersion: 'v0.2.7' });
  });
  after(async () => h?.stop());
  beforeEach(() => {
    h.warnings.length = 0;
  });

  it('create refuses inputs that were never checked, listing every failure and the fix, and writes nothing', async () => {
    const mark = h.target.emulator.emulator.journal.mark();
    const err = await h.topology.create({ kubeconfig: h.target.kubeconfig, name: 'bad', hosts: {}, waitForGuestSync: 'yes' }).catch((e: unknown) => e);
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.code, 'InvalidInputs');
    assert.equal(
      err.message,
      'The TopologyLabels inputs are invalid:\n  - hosts: is empty: name at least one Harvester host with its region and/or zone.\n' +
        '  - waitForGuestSync: must be true or false (got a string ("yes"))\nFix the inputs above and run again.',
    );
    assert.deepEqual(h.writesSince(mark), []);
  });

  it('check reports a host missing from the cluster when it is new to the inputs, not when it was already there (read reports that)', async () => {
    const hosts = { 'gone-host': { zone: 'z' } };
    const fresh = await h.topology.check({}, { kubeconfig: h.target.kubeconfig, name: 'x', hosts });
    assert.deepEqual(fresh.failures, [{
      property: 'hosts["gone-host"]',
      reason: `no Harvester host is named "gone-host" (hosts: ${h.hosts.join(', ')}). Use a host name as \`kubectl get nodes\` lists it, or remove the entry.`,
    }]);
    const unchanged = await h.topology.check({ name: 'x', hosts }, { kubeconfig: h.target.kubeconfig, name: 'x', hosts });
    assert.equal(unchanged.failures, undefined);
  });

  it('an update dropping a host restores it and forgets it; a dropped host another resource claimed meanwhile is left, with a warning', async () => {
    const [h0, h1] = h.hosts;
    const before = [await zone(h0), await zone(h1)];
    let outs = await h.createTopology({ name: 'leaving', hosts: { [h0]: { zone: 'la' }, [h1]: { zone: 'lb' } } });
    outs = await h.updateTopology(outs, { name: 'leaving', hosts: { [h0]: { zone: 'la' } } });
    assert.equal(await zone(h1), before[1], `${h1} has its zone back`);
    assert.equal((await annotations(h1))[OWNER_ANNOTATION], undefined);
    assert.deepEqual([Object.keys(outs.applied), Object.keys(outs.previous)], [[h0], [h0]]);
    // Someone hands h0 to another resource by hand; dropping it from this one must not undo that.
    await editHost(h0, { annotations: { [OWNER_ANNOTATION]: 'someone-else' } });
    outs = await h.updateTopology(outs, { name: 'leaving', hosts: { [h1]: { zone: 'lc' } } });
    assert.deepEqual(h.warnings, [`host ${h0} left as it is: now managed by TopologyLabels "someone-else"`]);
    assert.equal(await zone(h0), 'la');
    assert.deepEqual([Object.keys(outs.applied), Object.keys(outs.previous)], [[h1], [h1]]);
    await editHost(h0, { labels: { [ZONE]: before[0] }, annotations: { [OWNER_ANNOTATION]: null, [PREVIOUS_ANNOTATION]: null } });
    // Delete keeps a value changed outside since this resource set it, and says what it kept.
    await editHost(h1, { labels: { [ZONE]: 'ui-edit' } });
    h.warnings.length = 0;
    await h.deleteTopology(outs);
    assert.deepEqual(h.warnings, [`host ${h1}: zone: kept "ui-edit" (changed outside since this resource set "lc"; not restoring ${before[1] === null ? 'absent' : JSON.stringify(before[1])})`]);
    assert.equal(await zone(h1), 'ui-edit');
    assert.equal((await annotations(h1))[OWNER_ANNOTATION], undefined);
    await editHost(h1, { labels: { [ZONE]: before[1] } });
  });

  it('delete leaves a host another resource claimed since, and says so', async () => {
    const h2 = h.hosts[2];
    const before = await zone(h2);
    const outs = await h.createTopology({ name: 'handed-over', hosts: { [h2]: { zone: 'hz' } } });
    await editHost(h2, { annotations: { [OWNER_ANNOTATION]: 'someone-else' } });
    await h.deleteTopology(outs);
    assert.deepEqual(h.warnings, [`host ${h2} left as it is: now managed by TopologyLabels "someone-else"`]);
    assert.equal(await zone(h2), 'hz');
    await editHost(h2, { labels: { [ZONE]: before }, annotations: { [OWNER_ANNOTATION]: null, [PREVIOUS_ANNOTATION]: null } });
  });

  it('an update whose write fails on one host records what stands, says it did not finish, and the next update resumes it', async () => {
    const emu = h.target.emulator.emulator;
    const [h0, h1] = h.hosts;
    const outs = await h.createTopology({ name: 'partial', hosts: { [h0]: { zone: 'pa' } } });
    emu.faults.add({ name: 'h1-down', match: { verb: 'patch', resource: 'nodes', name: h1 }, action: { type: 'error', code: 503 } });
    const next = (await h.topology.check(outs as unknown as Record<string, unknown>, { kubeconfig: h.target.kubeconfig, name: 'partial', hosts: { [h0]: { zone: 'pa' }, [h1]: { zone: 'pb' } } })).inputs!;
    const err = await h.topology.update('partial', outs as unknown as Record<string, unknown>, next).catch((e: unknown) => e);
    emu.faults.clear();
    assert.ok(err instanceof ResourceInitError, String(err));
    const recorded = err.properties as unknown as TopologyLabelsOutputs;
    const code = (err.cause as { code?: string }).code;
    assert.ok(code, 'the cause carries a code');
    assert.deepEqual(recorded.drift, [`the last update of TopologyLabels partial did not finish (${code}); the next \`pulumi up\` resumes it`]);
    assert.deepEqual(Object.keys(recorded.applied), [h0], `${h1} was not written, so it is not recorded`);
    assert.equal(await zone(h0), 'pa');
    const d = await h.topology.diff('partial', recorded as unknown as Record<string, unknown>, next);
    assert.equal(d.changes, true, 'the unfinished update is planned again');
    const done = (await h.topology.update('partial', recorded as unknown as Record<string, unknown>, next)).outs!;
    assert.deepEqual([done.drift, Object.keys(done.applied).sort()], [[], [h0, h1]]);
    assert.equal(await zone(h1), 'pb');
    await h.deleteTopology(done);
  });

  it('a create whose only write fails raises the error itself: nothing was written, so nothing is recorded', async () => {
    const emu = h.target.emulator.emulator;
    const h2 = h.hosts[2];
    emu.faults.add({ name: 'h2-down', match: { verb: 'patch', resource: 'nodes', name: h2 }, action: { type: 'error', code: 503 } });
    const checked = (await h.topology.check({}, { kubeconfig: h.target.kubeconfig, name: 'unwritten', hosts: { [h2]: { zone: 'uz' } } })).inputs!;
    const err = await h.topology.create(checked).catch((e: unknown) => e);
    emu.faults.clear();
    assert.ok(err instanceof Error && !(err instanceof ResourceInitError), String(err));
    assert.equal((await annotations(h2))[OWNER_ANNOTATION], undefined);
  });

  it('without an onWarning hook, warnings go to standard error, one prefixed line each', async () => {
    const plain = createTopologyLabelsProvider({ connect: fastConnect(4) });
    const h2 = h.hosts[2];
    const before = await zone(h2);
    const checked = (await plain.check({}, { kubeconfig: h.target.kubeconfig, name: 'to-stderr', hosts: { [h2]: { zone: 'sz' } } })).inputs!;
    const outs = (await plain.create(checked)).outs!;
    await editHost(h2, { labels: { [ZONE]: 'ui' } }); // an outside edit the delete keeps, and warns about
    const lines: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      await plain.delete(outs.name, outs as unknown as Record<string, unknown>);
    } finally {
      process.stderr.write = write;
    }
    assert.equal(lines.length, 1, lines.join(''));
    assert.match(lines[0], new RegExp(`^warning: TopologyLabels: host ${h2}: zone: kept "ui" .*\\n$`));
    await editHost(h2, { labels: { [ZONE]: before } });
  });

});
