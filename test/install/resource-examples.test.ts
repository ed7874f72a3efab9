/**
 * Every resource page's example runs as written (issue 34): for each docs/src/resources/*.md, its one ```ts block
 * under "## Example", verbatim, is the index.ts of a program folder outside the repository with the package
 * installed from its tarball, and goes through the installed bin (node_modules/.bin/harvester-iac-run) against the
 * embedded emulator: `preview`, `up --yes`, `preview --expect-no-changes` (the program converged), `destroy --yes`;
 * each exits 0, the three counts agree with the page's plan below, no secret is printed, and what the program made
 * is gone from the cluster afterwards (every object the cluster holds, hosts' labels included, is as before `up`).
 *
 * One scratch folder holds node_modules (the tarball installed once) and one folder per page (Pulumi.yaml, index.ts,
 * tsconfig.json): Node, ts-node and the runner all resolve harvester-iac and @pulumi/pulumi upward from the page's
 * folder, as in a monorepo of programs. What a page says its reader provides is provided here, per page (PLANS):
 * stack config set with `config set --secret` from standard input, a HOME with ~/.ssh/id_ed25519.pub, objects the
 * page takes as existing (the emulator's seed has the images, `default/vm-net`, `default/ops-key`, hosts in zones
 * us-east-1a…c; what it lacks is made before and removed after). The pages that need a guest cluster run while
 * the GuestCluster page's cluster is up, with its `kubeconfig` output (read by `stack output --show-secrets`).
 *
 * Type checking: every example is checked once by tsc, in the scratch folder, with the pages' compiler options;
 * the runs are then transpile-only (Pulumi's PULUMI_NODEJS_TRANSPILE_ONLY), since ts-node would check the same
 * program again at each of the three runs of each page. README's program is type-checked by ts-node as Pulumi
 * runs it in test/install/user-folder.test.ts.
 *
 * Guest clusters' addresses (10.0.20.x in the examples) are data: the processes the bin starts load
 * test/support/loopback-dial.ts, which sends a connection to such an address to where the emulator serves it on
 * 127.0.0.1 (its RKE2 endpoints), the certificate still checked against the address; nothing else is dialled.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { linkedPulumiPath } from '../../runner/program';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator } from '../support/emulator-harness';
import { FAST_RKE2 } from '../support/guest-cluster';
import { ed25519Blob, keyLine } from '../support/keypair-rules';
import { clusterSnapshot, COMPILER_OPTIONS, exampleOf, needlesOf, PAGES_DIR, PLANS, PRIVATE, type ClusterSnapshot, type Context, type Run } from '../support/resource-example-plans';
import { installIntoProgramFolder, runInstalledBin } from '../support/tarball';

describe('docs/resources: every example runs as written, from a program folder with the tarball installed', function () {
  this.timeout(600_000);
  let scratch = '';
  let home = '';
  let dialMap = '';
  const ctx = {} as Context;
  const printed = new Map<string, string>();
  /** Per page: what must not be printed, by where it comes from (the failure names that, never the secret). */
  const secretsOf = new Map<string, { from: string; needle: string }[]>();
  /** `<address>:<port>` → where the emulator serves it (null once closed), for loopback-dial.ts. */
  const served = new Map<string, string | null>();
  const pages = readdirSync(join(repoRoot(), PAGES_DIR)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();

  const run = (page: string, args: string[], stdin?: string): Promise<Run> => {
    const env = {
      ...process.env,
      HOME: home,
      KUBECONFIG: join(scratch, 'no-such-kubeconfig'),
      PULUMI_NODEJS_TRANSPILE_ONLY: 'true',
      HARVESTER_IAC_TEST_DIAL_MAP: dialMap,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${JSON.stringify(join(__dirname, '..', 'support', 'loopback-dial.js'))}`].filter(Boolean).join(' '),
    };
    return runInstalledBin(scratch, args, { cwd: join(scratch, page), env, stdin }).then((r) => {
      // Everything but `stack output --show-secrets` (which prints a secret on purpose) is checked for secrets.
      if (!args.includes('--show-secrets')) printed.set(page, `${printed.get(page) ?? ''}${r.stdout}${r.stderr}`);
      return r;
    });
  };
  ctx.run = run;
  ctx.ok = async (page, args, stdin) => {
    const r = await run(page, args, stdin);
    assert.equal(r.code, 0, `${page}: harvester-iac-run ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return r;
  };

  before(async function () {
    this.timeout(300_000);
    scratch = installIntoProgramFolder({ name: 'resource-examples', files: {}, devTools: ['typescript', 'ts-node', '@types/node'] });
    home = join(scratch, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519.pub'), `${keyLine('ssh-ed25519', ed25519Blob(), 'reader@laptop')}\n`);
    dialMap = join(scratch, 'dial-map.json');
    writeFileSync(dialMap, '{}');
    ctx.t = await startTestEmulator({
      harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } },
      rke2: {
        delays: FAST_RKE2,
        onEndpoint: (endpoint, open) => {
          served.set(endpoint.address, open ? endpoint.url : null);
          writeFileSync(`${dialMap}.next`, JSON.stringify(Object.fromEntries(served)));
          renameSync(`${dialMap}.next`, dialMap);
        },
      },
    });
    ctx.client = await HarvesterClient.connect({ kubeconfig: ctx.t.emulator.kubeconfig });
    for (const page of pages) {
      const dir = join(scratch, page);
      mkdirSync(dir);
      writeFileSync(join(dir, 'Pulumi.yaml'), `name: ${page}\nruntime: nodejs\ndescription: the example of docs/resources/${page}.md\n`);
      writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files: ['index.ts'] }, null, 2)}\n`);
      writeFileSync(join(dir, 'index.ts'), exampleOf(page));
    }
  });
  after(async () => {
    await ctx.t?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('has a plan for every page; each page folder resolves one installed copy of everything; every example type-checks', () => {
    assert.deepEqual(pages, Object.keys(PLANS).sort(), `a page without a plan here (or a plan without a page): add it to PLANS`);
    assert.ok(!scratch.startsWith(repoRoot()), 'the program folder is outside the repository');
    const installed = (name: string) => join(scratch, 'node_modules', name, 'package.json');
    const ours = dirname(installed('harvester-iac'));
    // Node (the program), @pulumi/pulumi's TypeScript loader (which requires typescript and ts-node from its own
    // folder) and the runner (which starts @pulumi/pulumi/cmd/run of the page's folder) see the same copies.
    // Resolved in one process started in the scratch folder (this test's own folder is the package itself).
    const names = ['harvester-iac', '@pulumi/pulumi', 'typescript', 'ts-node'];
    const probe = `const r = (n, from) => require.resolve(n + '/package.json', { paths: [from] });
      console.log(JSON.stringify(${JSON.stringify(pages.map((p) => join(scratch, p)))}.map((p) => [...${JSON.stringify(names)}.map((n) => r(n, p)), r('@pulumi/pulumi', ${JSON.stringify(ours)}), r('typescript', ${JSON.stringify(dirname(installed('@pulumi/pulumi')))})])))`;
    const resolved = spawnSync(process.execPath, ['-e', probe], { cwd: scratch, encoding: 'utf8' });
    assert.equal(resolved.status, 0, resolved.stderr);
    const expected = [...names.map(installed), installed('@pulumi/pulumi'), installed('typescript')];
    for (const [i, page] of pages.entries()) {
      assert.deepEqual((JSON.parse(resolved.stdout) as string[][])[i], expected, page);
      assert.equal(linkedPulumiPath(join(scratch, page)), undefined, `${page}: the runner adds no NODE_PATH`);
    }
    // Without skipLibCheck, as a user's strict tsconfig has it: the package's declarations reach
    // @kubernetes/client-node's and through them `ws`, whose types the package depends on (@types/ws).
    writeFileSync(join(scratch, 'tsconfig.examples.json'), JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, noEmit: true }, files: pages.map((p) => `${p}/index.ts`) }));
    const tsc = spawnSync(process.execPath, [join(scratch, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.examples.json'], { cwd: scratch, encoding: 'utf8' });
    assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);
  });

  /**
   * Every connection refused by test/support/loopback-dial.ts since the last look was to an address the emulator
   * serves (or served) — one dialled before its listener opened — never to any other address.
   */
  function onlyEmulatedAddressesDialled(page: string) {
    const file = `${dialMap}.refused`;
    const refused = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    rmSync(file, { force: true });
    assert.deepEqual(refused.filter((a) => !served.has(a)), [], `${page}: connections to addresses the emulator never served`);
  }

  /** Setup, stack config, preview and up; returns the cluster as it was before up. */
  async function bringUp(page: string) {
    const plan = PLANS[page];
    await plan.setup?.(ctx);
    const before = clusterSnapshot(ctx.t);
    await ctx.ok(page, ['config', 'set', '--secret', 'harvester:kubeconfig'], ctx.t.emulator.kubeconfig);
    const secrets = { ...(await plan.secrets?.(ctx)) };
    const config: [string, string][] = [['harvester:kubeconfig', ctx.t.emulator.kubeconfig], ...Object.entries(secrets)];
    secretsOf.set(page, [{ from: 'the emulator token', needle: ctx.t.emulator.token }, ...config.flatMap(([key, value]) => needlesOf(value).map((needle) => ({ from: `config ${key}`, needle })))]);
    for (const [key, value] of Object.entries(secrets)) await ctx.ok(page, ['config', 'set', '--secret', key], value);
    const preview = await ctx.ok(page, ['preview']);
    assert.match(preview.stdout, new RegExp(`^ {4}\\+ ${plan.resources} to create$`, 'm'), preview.stdout);
    const up = await ctx.ok(page, ['up', '--yes']);
    assert.match(up.stdout, new RegExp(`^ {4}\\+ ${plan.resources} created$`, 'm'), up.stdout);
    onlyEmulatedAddressesDialled(page);
    const outputs = JSON.parse((await ctx.ok(page, ['stack', 'output', '--json'])).stdout) as Record<string, any>;
    plan.outputs?.(outputs);
    // The secret outputs' values join the needles: the program's own secrets are printed nowhere either.
    const opened = JSON.parse((await ctx.ok(page, ['stack', 'output', '--json', '--show-secrets'])).stdout) as Record<string, unknown>;
    for (const key of Object.keys(outputs).filter((k) => outputs[k] === '[secret]')) {
      const value = typeof opened[key] === 'string' ? (opened[key] as string) : JSON.stringify(opened[key]);
      assert.notEqual(value, '[secret]', `${page}: --show-secrets opens ${key}`);
      secretsOf.get(page)!.push(...needlesOf(value).map((needle) => ({ from: `output ${key}`, needle })));
    }
    return before;
  }

  /** The converged preview, destroy, and what is left. */
  async function bringDown(page: string, before: ClusterSnapshot) {
    const plan = PLANS[page];
    const again = await ctx.run(page, ['preview', '--expect-no-changes']);
    assert.equal(again.code, 0, `${page}: preview --expect-no-changes after up exited ${again.code}:\n${again.stdout}\n${again.stderr}`);
    assert.match(again.stdout, new RegExp(`^ {4}${plan.resources} unchanged$`, 'm'), again.stdout);
    const destroy = await ctx.ok(page, ['destroy', '--yes']);
    assert.match(destroy.stdout, new RegExp(`^ {4}- ${plan.resources} deleted$`, 'm'), destroy.stdout);
    const after = clusterSnapshot(ctx.t);
    assert.deepEqual(after.objects.filter((o) => !before.objects.includes(o)), [], `${page}: left on the cluster`);
    assert.deepEqual(before.objects.filter((o) => !after.objects.includes(o)), [], `${page}: removed from the cluster though it was there before`);
    assert.deepEqual(after.hosts, before.hosts, `${page}: hosts' labels and annotations as before`);
    await plan.teardown?.(ctx);
    const out = printed.get(page) ?? '';
    for (const { from, needle } of secretsOf.get(page) ?? []) assert.equal(out.includes(needle), false, `${page}: a secret was printed (from ${from})`);
    assert.doesNotMatch(out, PRIVATE, `${page}: key material was printed`);
    assert.doesNotMatch(out, /Warning|\(node:\d+\)/, `${page}: no Node warnings`);
    onlyEmulatedAddressesDialled(page);
  }

  /**
   * Runs `steps` of a page; when they fail, its stack is destroyed and its setup undone before the failure is
   * reported, so the next pages (whose examples reuse names such as "workers") start from the seeded cluster.
   */
  async function cleanlyOnFailure(page: string, steps: () => Promise<void>) {
    try {
      await steps();
    } catch (err) {
      await run(page, ['destroy', '--yes']).catch(() => undefined);
      await PLANS[page].teardown?.(ctx).catch(() => undefined);
      throw err;
    }
  }

  const order = Object.keys(PLANS).filter((p) => !PLANS[p].within);
  for (const page of order) {
    const inside = Object.keys(PLANS).filter((p) => PLANS[p].within === page);
    if (!inside.length) {
      it(`${page}: ${PLANS[page].provides}`, () => cleanlyOnFailure(page, async () => bringDown(page, await bringUp(page))));
      continue;
    }
    let before: ClusterSnapshot | undefined;
    it(`${page}: up (${PLANS[page].provides})`, () =>
      cleanlyOnFailure(page, async () => {
        before = await bringUp(page);
      }));
    for (const p of inside) it(`${p}: ${PLANS[p].provides}`, () => cleanlyOnFailure(p, async () => bringDown(p, await bringUp(p))));
    it(`${page}: converged, then destroyed`, () =>
      cleanlyOnFailure(page, async () => {
        assert.ok(before, `${page} was not brought up`);
        await bringDown(page, before);
      }));
  }
});
