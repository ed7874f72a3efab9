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
  let up: string;
  const cli = async (...argv: string[]) => (await runCliExpect(0, [...argv, '--cwd', dir])).stdout;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-outputs-'));
    writeFileSync(join(dir, 'Pulumi.yaml'), `name: runner-fixture\nruntime: nodejs\nmain: ${join(repoRoot(), 'dist', 'test', 'runner', 'fixtures', 'outputs.js')}\n`);
    assert.equal(await cli('stack', 'output'), 'Current stack outputs (0):\n    No output values currently in this stack\n');
    assert.equal(existsSync(join(dir, '.harvester-run')), false, 'reading outputs of a stack with no state writes nothing');
    await cli('config', 'set', '--secret', 'token', 'hunter2');
    up = await cli('up', '--yes');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("up's Outputs section shows every value whole, secrets hidden", () => {
    assert.ok(up.includes(`    long: "${LONG}"\n`), up);
    assert.match(up, /^ {4}token: \[secret\]$/m);
    assert.equal(up.includes('hunter2'), false);
  });

  it('lists the outputs as a table, whole, the secret as [secret]', async () => {
    assert.equal(
      await cli('stack', 'output'),
      `Current stack outputs (4):\n    OUTPUT  VALUE\n    long    ${LONG}\n    nested  {"count":2,"zones":["us-east-1a","us-east-1b"]}\n    region  unset\n    token   [secret]\n`,
    );
  });

  it('--json gives one object; --show-secrets opens the secret', async () => {
    const hidden = JSON.parse(await cli('stack', 'output', '--json'));
    assert.deepEqual(hidden, { long: LONG, nested: { count: 2, zones: ['us-east-1a', 'us-east-1b'] }, region: 'unset', token: '[secret]' });
    assert.equal(JSON.parse(await cli('stack', 'output', '--json', '--show-secrets')).token, 'hunter2');
  });

  it('one output by name: a string as it is, anything else as JSON; a missing name fails naming those there are', async () => {
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
