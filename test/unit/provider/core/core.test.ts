import assert from 'node:assert/strict';
import { z } from 'zod';
import { formatDuration, parseDuration } from '../../../../provider/await/duration';
import { closest, formatFailure, formatPath, inputErrorMap, issuesToFailures, unchangedReferencesDropped } from '../../../../provider/core/input-errors';
import { diffPaths, pruneLive } from '../../../../provider/core/prune';
import { formatBytes, parseQuantity, sameQuantity } from '../../../../provider/core/quantity';
import { UNKNOWN, containsUnknown, unknownAlong } from '../../../../provider/core/unknowns';

describe('provider/core', () => {
  describe('unknowns', () => {
    it('finds the sentinel anywhere, and along a path', () => {
      const inputs = { a: 1, disks: [{ image: UNKNOWN }], zones: UNKNOWN };
      assert.equal(containsUnknown(inputs), true);
      assert.equal(containsUnknown({ a: [1, { b: 'x' }] }), false);
      assert.equal(unknownAlong(inputs, ['disks', 0, 'image']), true);
      assert.equal(unknownAlong(inputs, ['zones', 3]), true, 'an unknown parent makes the child unknown');
      assert.equal(unknownAlong(inputs, ['a']), false);
      assert.equal(unknownAlong(inputs, []), false, 'the root holding an unknown somewhere is not itself unknown');
    });
  });

  describe('input errors', () => {
    it('formats paths as the user writes them', () => {
      assert.equal(formatPath(['disks', 0, 'size']), 'disks[0].size');
      assert.equal(formatPath(['labels', 'example.com/team']), 'labels["example.com/team"]');
      assert.equal(formatPath([]), '');
    });

    it('turns zod issues into one failure per problem, dropping unknown values and never quoting secrets', () => {
      const schema = z.strictObject({ cpu: z.number().int().min(1), userData: z.string().max(3), mode: z.enum(['a', 'b']), n: z.number() });
      const raw = { cpu: 0, userData: 'super-secret-value', mode: 'c', n: UNKNOWN, cpus: 4 };
      const parsed = schema.safeParse(raw, { error: inputErrorMap });
      assert.equal(parsed.success, false);
      const failures = issuesToFailures(parsed.error!.issues, raw, { secretInputs: ['userData'], knownKeys: () => ['cpu', 'userData', 'mode', 'n'] });
      const byProperty = Object.fromEntries(failures.map((f) => [f.property, f.reason]));
      assert.deepEqual(Object.keys(byProperty).sort(), ['cpu', 'cpus', 'mode', 'userData']);
      assert.match(byProperty.cpu, /^must be at least 1 \(got 0\)/, 'the reason does not repeat its property');
      assert.equal(formatFailure(failures.find((f) => f.property === 'cpu')!), 'cpu: must be at least 1 (got 0)');
      assert.match(byProperty.mode, /must be one of "a", "b" \(got "c"\)/);
      assert.match(byProperty.cpus, /^unknown property; did you mean "cpu"/);
      for (const f of failures) assert.ok(!f.reason.startsWith(f.property), `${f.property}'s reason repeats it: ${f.reason}`);
      assert.ok(!JSON.stringify(failures).includes('super-secret-value'));
    });

    it('drops cluster failures only while every input is unchanged (connection settings aside); any change or a create keeps them', () => {
      const failures = [{ property: 'sshKeys[0]', reason: 'KeyPair gone' }, { property: '', reason: 'about the whole resource' }];
      const olds = { name: 'p', count: 1, sshKeys: ['k'], kubeconfig: 'a', __provider: 'x' };
      assert.deepEqual(unchangedReferencesDropped(failures, olds, { count: 1, name: 'p', sshKeys: ['k'], kubeconfig: 'b', context: 'c' }), [failures[1]]);
      assert.deepEqual(unchangedReferencesDropped(failures, olds, { ...olds, count: 3 }), failures, 'a count change updates, so the reference is needed');
      assert.deepEqual(unchangedReferencesDropped(failures, {}, olds), failures, 'a create');
    });

    it('formats a failure as "property: reason" once; a sentence about its input and a failure on no property as they are', () => {
      assert.equal(formatFailure({ property: 'count', reason: 'must be a number' }), 'count: must be a number');
      assert.equal(formatFailure({ property: 'disks[0].size', reason: 'must be a quantity' }), 'disks[0].size: must be a quantity');
      assert.equal(formatFailure({ property: 'userData', reason: 'userData is not valid YAML' }), 'userData is not valid YAML');
      assert.equal(formatFailure({ property: 'kubeconfig', reason: "kubeconfig's context x does not exist" }), "kubeconfig's context x does not exist");
      assert.equal(formatFailure({ property: '', reason: 'about the whole resource' }), 'about the whole resource');
    });

    it('suggests only close names', () => {
      assert.equal(closest('memroy', ['memory', 'cpu']), 'memory');
      assert.equal(closest('flavour', ['memory', 'cpu']), undefined);
    });
  });

  describe('prune and diff', () => {
    it('trims live state to the shape we sent and reports only real differences', () => {
      const desired = { spec: { cpu: { cores: 2 }, interfaces: [{ name: 'nic-0', model: 'virtio' }] } };
      const live = {
        spec: { cpu: { cores: 4, maxSockets: 1 }, interfaces: [{ name: 'nic-0', model: 'virtio', macAddress: '3a:06' }], requests: { cpu: '125m' } },
        status: { ready: true },
      };
      const pruned = pruneLive(live, desired);
      assert.deepEqual(pruned, { spec: { cpu: { cores: 4 }, interfaces: [{ name: 'nic-0', model: 'virtio' }] } });
      assert.deepEqual(diffPaths(desired, pruned), [{ path: 'spec.cpu.cores', desired: 2, live: 4 }]);
    });

    it('treats a list of another length as one difference, and empty vs missing as equal', () => {
      assert.deepEqual(diffPaths({ a: [1, 2] }, { a: [1] }).map((d) => d.path), ['a']);
      assert.deepEqual(diffPaths({ a: {} }, {}), []);
    });

    it('quotes a key that is not a plain name (a label key), so the path names it unambiguously', () => {
      const desired = { metadata: { labels: { 'harvester-iac.io/pool-index': '0', team: 'a' } } };
      const live = { metadata: { labels: { 'harvester-iac.io/pool-index': '7', team: 'b' } } };
      assert.deepEqual(diffPaths(desired, live).map((d) => d.path), ['metadata.labels["harvester-iac.io/pool-index"]', 'metadata.labels.team']);
    });
  });

  describe('quantities and durations', () => {
    it('compares quantities by value', () => {
      assert.equal(parseQuantity('4Gi'), 4 * 2 ** 30);
      assert.equal(sameQuantity('4Gi', '4096Mi'), true);
      assert.equal(sameQuantity('4G', '4Gi'), false);
      assert.equal(parseQuantity('lots'), undefined);
      assert.equal(formatBytes(2 ** 31), '2Gi');
    });

    it('parses Go-style durations', () => {
      assert.equal(parseDuration('1h30m'), 5_400_000);
      assert.equal(parseDuration('90s'), 90_000);
      assert.equal(parseDuration('10 minutes'), undefined);
      assert.equal(formatDuration(120_000), '2m0s');
      assert.deepEqual([250, 1500, 45_000, 3_600_000].map(formatDuration), ['250ms', '1.5s', '45s', '1h0m0s']);
    });
  });
});
