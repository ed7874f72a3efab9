/**
 * How the runner starts a program (runner/program.ts), over a stand-in for Pulumi's Node.js runner: a folder whose
 * own node_modules holds `@pulumi/pulumi/cmd/run` (the runner runs the program's own copy, as the Pulumi CLI does)
 * printing what it was given — the arguments, the TypeScript switch, the stack config — on stdout and a line on
 * stderr, then exiting with FAKE_EXIT. And which node_modules a program folder that links harvester-iac from a
 * clone gets as NODE_PATH (linkedPulumiPath). The real program on the real SDK is in runner-operations.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { linkedPulumiPath, runProgram, type ProgramRun } from '../../runner/program';
import { repoRoot } from '../../scripts/resource-docs';

const FAKE_RUN = `
const at = process.argv.findIndex((a) => a.endsWith('index.js'));
console.log('args ' + JSON.stringify(process.argv.slice(at + 1)));
console.log('typescript ' + (process.env.PULUMI_NODEJS_TYPESCRIPT ?? 'unset'));
console.log('config ' + process.env.PULUMI_CONFIG + ' ' + process.env.PULUMI_CONFIG_SECRET_KEYS);
console.error('on stderr');
process.exitCode = Number(process.env.FAKE_EXIT ?? 0);
`;

describe('runner: starting the program', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'runner-program-')));
    const pulumi = join(dir, 'node_modules', '@pulumi', 'pulumi');
    mkdirSync(join(pulumi, 'cmd', 'run'), { recursive: true });
    writeFileSync(join(pulumi, 'package.json'), '{"name":"@pulumi/pulumi","version":"0.0.0"}');
    writeFileSync(join(pulumi, 'cmd', 'run', 'index.js'), FAKE_RUN);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function run(extra: Partial<ProgramRun>): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const code = await runProgram({
      program: 'main.js',
      pwd: dir,
      project: 'proj',
      stack: 'dev',
      dryRun: false,
      monitorAddress: '127.0.0.1:9',
      config: { 'proj:a': '1' },
      secretConfigKeys: ['proj:a'],
      onOutput: (l) => lines.push(l),
      ...extra,
    });
    return { code, lines: lines.sort() };
  }

  const args = (dryRun: boolean) =>
    ['--monitor=127.0.0.1:9', '--engine=127.0.0.1:9', '--project=proj', '--stack=dev', `--pwd=${dir}`, `--root-directory=${dir}`, ...(dryRun ? ['--dry-run'] : []), 'main.js'];

  it('an update: the folder\'s own runner gets the addresses, project, stack, folder and program; its stdout and stderr lines; its exit code', async () => {
    const { code, lines } = await run({});
    assert.equal(code, 0);
    assert.deepEqual(lines, [`args ${JSON.stringify(args(false))}`, 'config {"proj:a":"1"} ["proj:a"]', 'on stderr', 'typescript unset']);
  });

  it('a preview passes --dry-run; a TypeScript program sets PULUMI_NODEJS_TYPESCRIPT; the exit code is returned', async () => {
    process.env.FAKE_EXIT = '4';
    try {
      const { code, lines } = await run({ dryRun: true, typescript: true });
      assert.equal(code, 4);
      assert.deepEqual(lines, [`args ${JSON.stringify(args(true))}`, 'config {"proj:a":"1"} ["proj:a"]', 'on stderr', 'typescript true']);
    } finally {
      delete process.env.FAKE_EXIT;
    }
  });

  it('a folder that links harvester-iac and has no @pulumi/pulumi of its own: NODE_PATH names the clone\'s node_modules first', async () => {
    // Its runner (cmd/run) is there, but no @pulumi/pulumi package.json: the SDK the program needs is the clone's.
    const linkedDir = realpathSync(mkdtempSync(join(tmpdir(), 'runner-program-linked-')));
    const saved = process.env.NODE_PATH;
    try {
      const run = join(linkedDir, 'node_modules', '@pulumi', 'pulumi', 'cmd', 'run');
      mkdirSync(run, { recursive: true });
      writeFileSync(join(run, 'index.js'), "console.log('node_path ' + (process.env.NODE_PATH ?? 'unset'));\n");
      symlinkSync(repoRoot(), join(linkedDir, 'node_modules', 'harvester-iac'), 'dir');
      // Real paths: Node resolves through links (a mutation run's sandbox links node_modules).
      const clone = realpathSync(join(repoRoot(), 'node_modules'));
      const nodePath = async () => {
        const lines: string[] = [];
        await runProgram({ program: 'main.js', pwd: linkedDir, project: 'proj', stack: 'dev', dryRun: false, monitorAddress: '127.0.0.1:9', config: {}, secretConfigKeys: [], onOutput: (l) => lines.push(l) });
        return lines;
      };
      delete process.env.NODE_PATH;
      assert.deepEqual(await nodePath(), [`node_path ${clone}`]);
      process.env.NODE_PATH = '/elsewhere';
      assert.deepEqual(await nodePath(), [`node_path ${clone}${delimiter}/elsewhere`], 'the runner\'s own NODE_PATH is kept, after');
    } finally {
      if (saved === undefined) delete process.env.NODE_PATH;
      else process.env.NODE_PATH = saved;
      rmSync(linkedDir, { recursive: true, force: true });
    }
  });

  it('linkedPulumiPath: none for a folder with its own @pulumi/pulumi or without harvester-iac; the clone\'s node_modules for a link', () => {
    assert.equal(linkedPulumiPath(dir), undefined, 'the folder has its own @pulumi/pulumi');
    // Outside `dir` (its node_modules has a @pulumi/pulumi); tmpdir has no node_modules above it.
    const bare = mkdtempSync(join(tmpdir(), 'runner-program-bare-'));
    try {
      // harvester-iac resolves from any folder (Node's self-reference: the runner is inside the package, which has
      // "exports"), so a folder without @pulumi/pulumi gets the runner's own node_modules.
      assert.equal(linkedPulumiPath(bare), realpathSync(join(repoRoot(), 'node_modules')));
      mkdirSync(join(bare, 'node_modules'));
      symlinkSync(repoRoot(), join(bare, 'node_modules', 'harvester-iac'), 'dir');
      assert.equal(linkedPulumiPath(bare), realpathSync(join(repoRoot(), 'node_modules')));
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
