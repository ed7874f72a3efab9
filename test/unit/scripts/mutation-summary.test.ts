import { strict as assert } from 'node:assert';
import { folderOf, formatScores, MutantStatus, scoresOf } from '../../../scripts/mutation/summary';

function report(files: Record<string, MutantStatus[]>) {
  return { files: Object.fromEntries(Object.entries(files).map(([f, s]) => [f, { mutants: s.map((status) => ({ status })) }])) };
}

describe('npm run mutate: score per folder', () => {
  it('groups resources by resource and the rest by top folder', () => {
    assert.equal(folderOf('provider/resources/machine-pool/plan.ts'), 'provider/resources/machine-pool');
    assert.equal(folderOf('provider/client/retry.ts'), 'provider/client');
    assert.equal(folderOf('emulator/webhooks/ip-pool.ts'), 'emulator/webhooks');
    assert.equal(folderOf('provider/index.ts'), 'provider');
  });

  it("scores as Stryker does: killed and timed out over valid mutants; errors and ignored left out", () => {
    const rows = scoresOf(
      [report({
        'provider/client/a.ts': ['Killed', 'Killed', 'Timeout', 'Survived', 'CompileError', 'Ignored'],
        'provider/resources/ip-pool/b.ts': ['Killed', 'NoCoverage'],
        'provider/resources/load-balancer/c.ts': ['Survived'],
      })],
      '/repo',
      ['provider/resources'],
    );
    const by = Object.fromEntries(rows.map((r) => [r.folder, r]));
    assert.deepEqual(Object.keys(by), ['provider/client', 'provider/resources/ip-pool', 'provider/resources/load-balancer', 'provider/resources', 'all']);
    assert.equal(by['provider/client'].score, 75);
    assert.equal(by['provider/client'].errors, 1);
    assert.equal(by['provider/client'].ignored, 1);
    assert.equal(by['provider/resources/ip-pool'].score, 50);
    assert.equal(by['provider/resources/load-balancer'].score, 0);
    assert.equal(by['provider/resources'].score, (100 * 1) / 3);
    assert.equal(by.all.score, (100 * 4) / 7);
  });

  it('counts a file once when reports overlap (the last wins) and makes absolute paths relative', () => {
    const rows = scoresOf([report({ '/repo/provider/client/a.ts': ['Survived'] }), report({ 'provider/client/a.ts': ['Killed'] })], '/repo');
    assert.deepEqual(rows.map((r) => [r.folder, r.score]), [['provider/client', 100], ['all', 100]]);
  });

  it('prints "-" for a folder without valid mutants, one aligned line per row', () => {
    const text = formatScores(scoresOf([report({ 'emulator/controllers/x.ts': ['Ignored'] })], '/repo'));
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[1], /^emulator\/controllers\s+-\s+0\s+0\s+0\s+0\s+0\s+1$/);
    assert.equal(new Set(lines.map((l) => l.length)).size, 1);
  });
});
