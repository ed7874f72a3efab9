/**
 * `stack output` as the Pulumi CLI prints it — every value whole (never cut), secrets as [secret] until
 * --show-secrets, --json for scripts — and up's own Outputs section just as whole.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatOutputs } from '../../runner/stack-output';
import { repoRoot } from '../../scripts/resource-docs';
import { runCli, runCliExpect } from '../support/runner-cli';

const LONG = `${'0123456789'.repeat(30)}-end`;

describe('local runner: stack output', function () {
  this.timeout(60_000);
  let dir: string;
  const cli = async (...argv: string[]) => (await runCliExpect(0, [...argv, '--cwd', dir])).stdout;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-outputs-'));
    writeFileSync(join(dir, 'Pulumi.yaml'), `name: runner-fixture\nruntime: nodejs\nmain: ${join(repoRoot(), 'dist', 'test', 'runner', 'fixtures', 'outputs.js')}\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // The up runs in the test, not in a hook: a mutation run picking the tests covering a runner mutant runs both.
  it("after up: its Outputs section and stack output show every value whole, secrets as [secret] until --show-secrets", async () => {
    assert.equal(await cli('stack', 'output'), 'Current stack outputs (0):\n    No output values currently in this stack\n');
    assert.equal(existsSync(join(dir, '.harvester-run')), false, 'reading outputs of a stack with no state writes nothing');
    await cli('config', 'set', '--secret', 'token', 'hunter2');
    const up = await cli('up', '--yes');
    assert.ok(up.includes(`    long: "${LONG}"\n`), up);
    assert.match(up, /^ {4}token: \[secret\]$/m);
    assert.equal(up.includes('hunter2'), false);

    assert.equal(
      await cli('stack', 'output'),
      `Current stack outputs (4):\n    OUTPUT  VALUE\n    long    ${LONG}\n    nested  {"count":2,"zones":["us-east-1a","us-east-1b"]}\n    region  unset\n    token   [secret]\n`,
    );
    const hidden = JSON.parse(await cli('stack', 'output', '--json'));
    assert.deepEqual(hidden, { long: LONG, nested: { count: 2, zones: ['us-east-1a', 'us-east-1b'] }, region: 'unset', token: '[secret]' });
    assert.equal(JSON.parse(await cli('stack', 'output', '--json', '--show-secrets')).token, 'hunter2');

    assert.equal(await cli('stack', 'output', 'long'), `${LONG}\n`);
    assert.equal(await cli('stack', 'output', 'nested'), '{"count":2,"zones":["us-east-1a","us-east-1b"]}\n');
    assert.equal(await cli('stack', 'output', 'token'), '[secret]\n');
    assert.equal(await cli('stack', 'output', 'token', '--show-secrets'), 'hunter2\n');
    assert.equal(await cli('stack', 'output', 'token', '--show-secrets', '--json'), '"hunter2"\n');
    const missing = await runCli(['stack', 'output', 'nope', '--cwd', dir]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, "error: current stack does not have output property 'nope' (it has long, nested, region, token)\n");
  });

  it('formats without a state as the CLI does', () => {
    assert.deepEqual(formatOutputs({}, [], { name: 'x' }), { text: '', error: "current stack does not have output property 'x' (it has none: run up first)" });
    assert.equal(formatOutputs({}, [], { json: true }).text, '{}\n');
  });
});
