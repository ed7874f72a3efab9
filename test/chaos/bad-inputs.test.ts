/**
 * The bad-input corpus (test/chaos/corpus/*.json, one file per resource: a valid base and cases that each break
 * one thing): every case is refused by check with a failure on the field named in the case, printed (formatFailure)
 * with that field first and once (the reason never repeats it), and the emulator's journal records no write at all.
 * A `null` in a case removes the input.
 * A case on a secret input (`"secret": true`) expects the failure on property "" with the field first in the reason:
 * the Pulumi CLI may print the value of a failing property (trap 8 of docs/design/dynamic-host-contract.md).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import * as provider from '../../provider';
import { formatFailure } from '../../provider/core/input-errors';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';

interface Corpus {
  resource: 'machinePool' | 'ipPool' | 'loadBalancer' | 'topologyLabels';
  base: Record<string, unknown>;
  cases: { name: string; inputs: Record<string, unknown>; property: string; secret?: boolean }[];
}

const CORPUS_DIR = join(repoRoot(), 'test', 'chaos', 'corpus');
const corpora = readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(CORPUS_DIR, f), 'utf8')) as Corpus);

describe('chaos: the bad-input corpus is refused at check, on the named field, with nothing written', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator();
    // Other pools for the cross-pool cases: overlap and a second global pool; a non-zero priority taken (the
    // global pool's is never compared, as upstream's webhook skips it); a scope a priority-0 pool covers.
    const client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    const others: [string, string, Record<string, unknown>][] = [
      ['existing', '10.70', { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] }],
      ['ranked', '10.71', { priority: 7, scope: [{ namespace: 'ranked' }] }],
      ['team-pool', '10.72', { scope: [{ namespace: 'team' }] }],
    ];
    for (const [name, net, selector] of others) {
      await client.ipPools.create({
        apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
        kind: 'IPPool',
        metadata: { name },
        spec: { ranges: [{ subnet: `${net}.0.0/24`, rangeStart: `${net}.0.10`, rangeEnd: `${net}.0.20` }], selector },
      });
    }
  });
  after(() => t?.stop());

  it(`holds at least 80 cases across the resources (${corpora.reduce((n, c) => n + c.cases.length, 0)})`, () => {
    assert.ok(corpora.reduce((n, c) => n + c.cases.length, 0) >= 80);
    assert.deepEqual(corpora.map((c) => c.resource).sort(), ['guestClusterCredentials', 'ipPool', 'loadBalancer', 'machinePool', 'topologyLabels']);
  });

  for (const corpus of corpora) {
    it(`${corpus.resource}: the base passes, and each of the ${corpus.cases.length} cases fails on its field`, async () => {
      const handlers = provider[corpus.resource];
      const kubeconfig = t.emulator.kubeconfig;
      const base = await handlers.check({}, { kubeconfig, ...corpus.base });
      assert.deepEqual(base.failures ?? [], [], `${corpus.resource}: the base inputs pass`);
      const mark = t.emulator.journal.mark();
      const wrong: string[] = [];
      for (const c of corpus.cases) {
        const inputs: Record<string, unknown> = { kubeconfig, ...corpus.base, ...c.inputs };
        for (const [k, v] of Object.entries(c.inputs)) if (v === null) delete inputs[k];
        const r = await handlers.check({}, inputs);
        const hit = (r.failures ?? []).find((f) => (c.secret ? f.property === '' && f.reason.startsWith(c.property) : f.property === c.property));
        if (!hit) wrong.push(`${c.name}: expected a failure on ${c.property}, got ${JSON.stringify(r.failures ?? [])}`);
        else if (!formatFailure(hit).startsWith(c.property)) wrong.push(`${c.name}: the failure as printed does not start with the field: ${formatFailure(hit)}`);
        else if (formatFailure(hit).startsWith(`${c.property}: ${c.property}`)) wrong.push(`${c.name}: the field is repeated: ${formatFailure(hit)}`);
      }
      assert.deepEqual(wrong, []);
      const writes = t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb ?? ''));
      assert.deepEqual(writes.map((e) => `${e.method} ${e.path}`), [], 'check never writes');
    });
  }
});
