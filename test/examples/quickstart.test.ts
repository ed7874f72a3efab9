/**
 * `npm start`'s story end to end (the quickstart program through the local runner, Pulumi's real SDK and
 * dynamic-provider host, against the embedded emulator), and the runner's drift gate on its own.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runQuickstart } from '../../scripts/quickstart';

describe('example: quickstart (npm start)', function () {
  this.timeout(180_000);
  let lines: string[] = [];
  let scratch = '';
  const statesAfterUp: string[] = [];

  before(async () => {
    lines = [];
    const result = await runQuickstart({
      sink: (l) => lines.push(l),
      engine: 'local',
      keepScratch: true,
      afterStep: (step, dir) => {
        if (step === 2) for (const f of readdirSync(join(dir, 'state')).filter((n) => n.endsWith('.json'))) statesAfterUp.push(readFileSync(join(dir, 'state', f), 'utf8'));
      },
    });
    scratch = result.scratch;
  });
  after(() => scratch && rmSync(scratch, { recursive: true, force: true }));

  const section = (n: number) => {
    const start = lines.findIndex((l) => l.startsWith(`━━ ${n}/8`));
    const end = lines.findIndex((l, i) => i > start && l.startsWith('━━ '));
    return lines.slice(start, end < 0 ? undefined : end).join('\n');
  };

  it('says what runs it, and completes', () => {
    assert.match(lines[0], /local runner: runs your program on the real @pulumi\/pulumi SDK and drives Pulumi's real dynamic-provider host/);
    assert.equal(lines.at(-1), 'Quickstart complete.');
  });

  it('previews seven creates with unknown outputs, from an empty Harvester (image, network, key pair first), then creates them', () => {
    for (const [type, name] of [
      ['HarvesterImage', 'ubuntu-noble'],
      ['HarvesterNetwork', 'quickstart-net'],
      ['HarvesterKeyPair', 'quickstart-key'],
      ['TopologyLabels', 'site'],
      ['HarvesterMachinePool', 'workers'],
      ['HarvesterIPPool', 'quickstart-pool'],
      ['HarvesterLoadBalancer', 'workers-api'],
    ]) {
      assert.match(section(1), new RegExp(`\\+ {2}harvester:${type} +${name} +create`));
    }
    assert.match(section(1), /workerAddresses: \[unknown\]/);
    assert.match(section(2), /readyWorkers: 3/);
    assert.match(section(2), /apiServerAddress: "172\.16\.100\.2\d\d"/);
    assert.match(section(2), /\+ 7 created/);
    assert.match(section(2), /ubuntu-noble +creating\.\.\. VirtualMachineImage default\/ubuntu-noble: downloading \d+%/, 'the download\'s progress is shown');
    const created = (name: string) => section(2).split('\n').findIndex((l) => new RegExp(`${name} +created`).test(l));
    for (const dependency of ['ubuntu-noble', 'quickstart-net', 'quickstart-key']) {
      assert.ok(created(dependency) >= 0 && created(dependency) < section(2).split('\n').findIndex((l) => /workers +creating\.\.\./.test(l)), `${dependency} is created before the pool`);
    }
  });

  it('shows exactly the out-of-band drift per property after a refresh, and the gate trips on it', () => {
    assert.match(section(4), /~ hosts\.harvester-node-2\.zone: "eu-west-c" => "moved-by-hand"/);
    assert.match(section(4), /~ count: 3 => 2/);
    assert.match(section(4), /~ healthCheck\.periodSeconds: 1 => 30/);
    assert.match(section(4), /~ description: "Ubuntu 24\.04 LTS cloud image for the quickstart pool" => "edited by hand"/);
    assert.match(section(4), /~ description: "VM network of the quickstart pool" => "edited by hand"/);
    assert.match(section(4), /~ labels\.team: "platform" => "someone-else"/);
    assert.match(section(5), /~ healthCheck\.periodSeconds: 30 => 1/);
    assert.match(section(5), /~ hosts\.harvester-node-2\.zone: "moved-by-hand" => "eu-west-c"/);
    assert.match(section(5), /~ count: 2 => 3/);
    assert.match(section(5), /--expect-no-changes: the preview has 6 change\(s\)/);
    assert.doesNotMatch(section(5), /guestAgent|timeouts|rollingUpdate/, 'defaults are not reported as changes');
  });

  it('heals, passes the gate, and destroys everything', () => {
    assert.match(section(6), /~ 6 updated/);
    assert.match(section(7), /7 unchanged/);
    assert.match(section(8), /- 7 deleted/);
    assert.match(section(8), /no VM, cloud-init Secret, volume, load balancer, IP pool, image, VM network or key pair remains/);
  });

  it('never prints the user data or the kubeconfig, and the state file holds neither in plain text', () => {
    const all = lines.join('\n');
    assert.equal(all.includes('hello from harvester-iac'), false);
    assert.equal(/token:|client-key-data|BEGIN CERTIFICATE/.test(all), false);
    const token = /token: (\S+)/.exec(readFileSync(join(scratch, 'kubeconfig'), 'utf8'))?.[1];
    assert.equal(statesAfterUp.length, 1, 'the state file existed after up');
    const state = JSON.parse(statesAfterUp[0]) as { resources: { name: string; secretKeys: string[]; inputs: Record<string, unknown> }[] };
    assert.deepEqual(state.resources.map((r) => r.name).sort(), ['quickstart-key', 'quickstart-net', 'quickstart-pool', 'site', 'ubuntu-noble', 'workers', 'workers-api']);
    const pool = state.resources.find((r) => r.name === 'workers')!;
    assert.ok(pool.secretKeys.includes('userData'), 'userData recorded as a secret');
    assert.match(String(pool.inputs.userData), /^sealed:aes-256-gcm:/);
    assert.equal(statesAfterUp[0].includes('hello from harvester-iac'), false);
    if (token) assert.equal(statesAfterUp[0].includes(token), false);
  });
});
