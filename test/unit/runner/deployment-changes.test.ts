/**
 * What a Deployment does beyond creating (runner/deployment.ts), over a fake host: updates and replacements with
 * their changed properties, in the engine's order (create-before-delete unless delete-before-replace), planned only
 * in a preview; reads; the stack's outputs; the program's log lines; deletes after the program and on destroy;
 * the provider's progress lines under the step they belong to.
 */
import assert from 'node:assert/strict';
import { secretValue } from '../../../runner/secrets';
import type { ResourceState } from '../../../runner/state';
import { emptyState, FakeHost, fakeDeployment, registration, urnOf, WIDGET } from './fakes';

const shown = (lines: string[]) => lines.map((l) => l.replace(/ +/g, ' ').replace(/\(\d+\.\ds\)/, '(Ns)').trim());

const recorded = (name: string, over: Partial<ResourceState> = {}): ResourceState => ({
  urn: urnOf(name),
  type: WIDGET,
  name,
  id: `id-${name}`,
  inputs: { name, size: 1 },
  outputs: { name, size: 1 },
  secretKeys: [],
  ...over,
});

const withRecorded = (...names: string[]) => ({ ...emptyState(), resources: names.map((n) => recorded(n)) });

function hostDiffing(replaces: string[] = [], deleteBeforeReplace = false): FakeHost {
  const host = new FakeHost();
  host.diff = async () => ({ changes: 'some', replaces, deleteBeforeReplace });
  return host;
}

describe('runner deployment: updates and replacements', () => {
  it('an update: the changed properties shown, the host updates, the record and outputs follow', async () => {
    const { deployment, host, lines, state, store } = fakeDeployment({ fakeHost: hostDiffing(), state: withRecorded('a') });
    const answer = await deployment.register(registration('a', { object: { name: 'a', size: 2 } }));
    assert.deepEqual(answer, { urn: urnOf('a'), id: 'id-a', object: { name: 'a', size: 2, updated: true } });
    assert.deepEqual(host.ops, ['check', 'diff', 'update']);
    assert.deepEqual(host.calls[2], ['update', urnOf('a'), 'id-a', { name: 'a', size: 1 }, { name: 'a', size: 2 }]);
    assert.deepEqual(shown(lines), ['~ test:Widget a update', '~ size: 1 => 2', '~ test:Widget a updating...', '~ test:Widget a updated (Ns)']);
    assert.deepEqual(state.resources[0], { ...recorded('a'), inputs: { name: 'a', size: 2 }, outputs: { name: 'a', size: 2, updated: true } });
    assert.deepEqual([store.saved.length, deployment.counts, deployment.changeCount], [1, { update: 1 }, 1]);
  });

  it('a change the inputs do not show (the live objects moved) still says why it updates', async () => {
    const { lines } = await (async () => {
      const d = fakeDeployment({ fakeHost: hostDiffing(), state: withRecorded('a'), dryRun: true });
      await d.deployment.register(registration('a', { object: { name: 'a', size: 1 } }));
      return d;
    })();
    assert.deepEqual(shown(lines), ['~ test:Widget a update', '(the live objects differ from the recorded state; see `drift` after a refresh)']);
  });

  it('a preview plans the update or replacement: counted, the checked inputs answered with the old id, nothing called or saved', async () => {
    for (const [replaces, op] of [[[], 'update'], [['size'], 'replace']] as const) {
      const { deployment, host, store, state } = fakeDeployment({ fakeHost: hostDiffing([...replaces]), state: withRecorded('a'), dryRun: true });
      const answer = await deployment.register(registration('a', { object: { name: 'a', size: 2 } }));
      assert.deepEqual(answer, { urn: urnOf('a'), id: 'id-a', object: { name: 'a', size: 2 } });
      assert.deepEqual([host.ops, store.saved, state.resources, deployment.counts], [['check', 'diff'], [], [recorded('a')], { [op]: 1 }]);
    }
  });

  it('a replacement creates the new object before deleting the original, marking what forces it', async () => {
    const { deployment, host, lines, state } = fakeDeployment({ fakeHost: hostDiffing(['size']), state: withRecorded('a') });
    const answer = await deployment.register(registration('a', { object: { name: 'a', size: 2 } }));
    assert.deepEqual(answer, { urn: urnOf('a'), id: 'id-a', object: { name: 'a', size: 2, made: true } });
    assert.deepEqual(host.ops, ['check', 'diff', 'create', 'delete']);
    assert.deepEqual(host.calls[3], ['delete', urnOf('a'), 'id-a', { name: 'a', size: 1 }]);
    assert.deepEqual(shown(lines), [
      '+- test:Widget a replace',
      '~ size: 1 => 2 (forces replacement)',
      '+ test:Widget a creating replacement...',
      '+ test:Widget a created replacement (Ns)',
      '- test:Widget a deleting original...',
      '- test:Widget a deleted original (Ns)',
    ]);
    assert.deepEqual(state.resources[0].outputs, { name: 'a', size: 2, made: true });
    assert.deepEqual([deployment.counts, deployment.changeCount], [{ replace: 1 }, 1]);
  });

  it('deletes the original first when the provider or the program asks, and forgets it before creating', async () => {
    for (const [providerAsks, programAsks] of [[true, false], [false, true]]) {
      const { deployment, host, store } = fakeDeployment({ fakeHost: hostDiffing(['size'], providerAsks), state: withRecorded('a') });
      await deployment.register(registration('a', { object: { name: 'a', size: 2 }, deleteBeforeReplace: programAsks }));
      assert.deepEqual(host.ops, ['check', 'diff', 'delete', 'create']);
      assert.deepEqual(store.saved.map((s) => s.resources.length), [0, 1], 'forgotten, then recorded again');
    }
  });

  it('a moved replacementTrigger replaces even when the inputs are the same, and says so', async () => {
    const state = { ...emptyState(), resources: [recorded('a', { replacementTrigger: 'v1' })] };
    const { deployment, host, lines } = fakeDeployment({ state });
    await deployment.register(registration('a', { object: { name: 'a', size: 1 }, replacementTrigger: 'v2' }));
    assert.deepEqual(host.ops, ['check', 'diff', 'create', 'delete']);
    assert.deepEqual(shown(lines).slice(0, 2), ['+- test:Widget a replace', 'replacementTrigger changed (what it follows was replaced)']);
    assert.equal(state.resources[0].replacementTrigger, 'v2');
  });

  it('secret inputs are compared, never printed', async () => {
    const d = fakeDeployment({ fakeHost: hostDiffing(), state: { ...emptyState(), resources: [recorded('a', { inputs: { name: 'a', pw: 'old' }, secretKeys: ['pw'] })] }, dryRun: true });
    await d.deployment.register(registration('a', { object: { name: 'a', pw: secretValue('new') } }));
    assert.deepEqual(shown(d.lines), ['~ test:Widget a update', '~ pw: [secret] => [secret]']);
  });
});

describe('runner deployment: reads, outputs and log lines', () => {
  it('read: the object read back with its secrets wrapped and counted; a missing one refused naming it', async () => {
    const host = new FakeHost();
    host.read = async (_u, id, props) => ({ id, properties: { ...props, live: true } });
    const { deployment, lines } = fakeDeployment({ fakeHost: host, progressEveryMs: 1e9 });
    const req = { type: WIDGET, name: 'r', parent: '', id: 'default/r', properties: { name: 'r', pw: secretValue('s') }, additionalSecretOutputs: ['live'] };
    assert.deepEqual(await deployment.read(req), { urn: urnOf('r'), properties: { name: 'r', pw: secretValue('s'), live: secretValue(true) } });
    assert.deepEqual(host.calls[0], ['read', urnOf('r'), 'default/r', { name: 'r', pw: 's' }, { name: 'r', pw: 's' }]);
    assert.deepEqual(shown(lines), ['> test:Widget r read default/r']);
    assert.deepEqual(deployment.counts, { read: 1 });
    host.read = async () => ({ id: '', properties: {} });
    await assert.rejects(deployment.read({ ...req, name: 'gone' }), { message: 'gone: default/r does not exist' });
  });

  it("keeps only the stack's outputs, unwrapped with their secret keys; before any, the state's", async () => {
    const state = { ...emptyState(), outputs: { old: 1 }, outputSecretKeys: ['old'] };
    const { deployment } = fakeDeployment({ state });
    assert.deepEqual(deployment.outputs, { outputs: { old: 1 }, secretKeys: ['old'] });
    const stack = await deployment.register(registration('proj-dev', { type: 'pulumi:pulumi:Stack', custom: false }));
    deployment.registerOutputs(urnOf('other'), { x: 1 });
    assert.deepEqual(deployment.outputs.outputs, { old: 1 }, 'outputs of another resource are not the stack\'s');
    deployment.registerOutputs(stack.urn, { ip: '10.0.0.1', kubeconfig: secretValue('k') });
    assert.deepEqual(deployment.outputs, { outputs: { ip: '10.0.0.1', kubeconfig: 'k' }, secretKeys: ['kubeconfig'] });
  });

  it('log: debug dropped, info bare, others prefixed, tabs stripped, line by line; the SDK hint names the runner', () => {
    const { deployment, lines } = fakeDeployment({ configSetCommand: 'npx harvester-iac-run config set --stack prod' });
    deployment.log('debug', 'noise');
    deployment.log('info', 'hello\n\tindented\n');
    deployment.log('warning', 'careful');
    deployment.log('error', 'Missing required configuration variable \'p:x\'\n\tplease set a value using the command `pulumi config set p:x <value>`');
    assert.deepEqual(lines, [
      '    hello',
      '    indented',
      '    warning: careful',
      "    error: Missing required configuration variable 'p:x'",
      '    error: please set a value using the command `npx harvester-iac-run config set --stack prod p:x <value>`',
    ]);
    const plain = fakeDeployment();
    plain.deployment.log('error', 'run `pulumi config set a b` and `pulumi config set c d`');
    assert.deepEqual(plain.lines, ['    error: run `npx harvester-iac-run config set a b` and `npx harvester-iac-run config set c d`']);
  });

  it('log: an error only repeating failures already reported under their resources is not shown again', async () => {
    const host = new FakeHost();
    host.create = async () => {
      throw new Error('boom');
    };
    const { deployment, lines } = fakeDeployment({ fakeHost: host, progressEveryMs: 1e9 });
    await deployment.register(registration('a'));
    await deployment.register(registration('b'));
    lines.length = 0;
    deployment.log('error', `Error: resource a [${WIDGET}] failed to register\n    at stack`);
    deployment.log('error', `failed to register new resource b [${WIDGET}]: boom; resource a [${WIDGET}] failed to register`);
    assert.deepEqual(lines, []);
    deployment.log('error', `resource a [${WIDGET}] failed to register; resource c [${WIDGET}] failed to register`);
    deployment.log('error', 'something else');
    deployment.log('warning', `resource a [${WIDGET}] failed to register`);
    assert.deepEqual(lines, [
      `    error: resource a [${WIDGET}] failed to register; resource c [${WIDGET}] failed to register`,
      '    error: something else',
      `    warning: resource a [${WIDGET}] failed to register`,
    ]);
  });
});

describe('runner deployment: deletes and refresh', () => {
  it('finish: saves the outputs and deletes what the program no longer registers, newest first', async () => {
    const state = withRecorded('a', 'b', 'c');
    const { deployment, host, store } = fakeDeployment({ state });
    const stack = await deployment.register(registration('proj-dev', { type: 'pulumi:pulumi:Stack', custom: false }));
    await deployment.register(registration('b', { object: { name: 'b', size: 1 } }));
    deployment.registerOutputs(stack.urn, { k: secretValue('v') });
    await deployment.finish(true);
    assert.deepEqual(host.calls.filter((c) => c[0] === 'delete').map((c) => c[2]), ['id-c', 'id-a']);
    assert.deepEqual(state.resources.map((r) => r.name), ['b']);
    assert.deepEqual([state.outputs, state.outputSecretKeys], [{ k: 'v' }, ['k']]);
    assert.deepEqual(store.saved[0].outputs, { k: 'v' }, 'the outputs are saved first');
    assert.deepEqual([deployment.counts, deployment.changeCount], [{ same: 1, delete: 2 }, 2]);
  });

  it('finish after a failed program deletes nothing and keeps the outputs; a preview plans the deletes only', async () => {
    const failed = fakeDeployment({ state: { ...withRecorded('a'), outputs: { old: 1 } } });
    const stack = await failed.deployment.register(registration('proj-dev', { type: 'pulumi:pulumi:Stack', custom: false }));
    failed.deployment.registerOutputs(stack.urn, { new: 1 });
    await failed.deployment.finish(false);
    assert.deepEqual([failed.host.calls, failed.store.saved, failed.state.outputs], [[], [], { old: 1 }]);
    const preview = fakeDeployment({ state: withRecorded('a', 'b'), dryRun: true });
    const previewStack = await preview.deployment.register(registration('proj-dev', { type: 'pulumi:pulumi:Stack', custom: false }));
    preview.deployment.registerOutputs(previewStack.urn, { new: 1 });
    await preview.deployment.finish(true);
    assert.deepEqual([preview.host.calls, preview.store.saved, preview.state.resources.length], [[], [], 2]);
    assert.deepEqual(shown(preview.lines), ['- test:Widget b delete', '- test:Widget a delete']);
    assert.deepEqual(preview.deployment.counts, { delete: 2 });
  });

  it('destroyAll: every resource newest first, a failed delete reported and kept, the outputs cleared', async () => {
    const host = new FakeHost();
    host.delete = async (...args: unknown[]) => {
      if (args[1] === 'id-b') throw new Error('finalizer stuck');
    };
    const state = { ...withRecorded('a', 'b', 'c'), outputs: { x: 1 }, outputSecretKeys: ['x'] };
    const { deployment, lines, store } = fakeDeployment({ fakeHost: host, state });
    await deployment.destroyAll();
    assert.deepEqual(host.calls.map((c) => c[2]), ['id-c', 'id-b', 'id-a']);
    assert.deepEqual(state.resources.map((r) => r.name), ['b']);
    assert.deepEqual([state.outputs, state.outputSecretKeys], [{}, []]);
    assert.deepEqual(store.saved.at(-1)?.outputs, {});
    assert.deepEqual(deployment.failures, [{ type: WIDGET, name: 'b', message: 'finalizer stuck' }]);
    assert.deepEqual(deployment.counts, { delete: 2, failed: 1 });
    assert.ok(shown(lines).includes('- test:Widget b **deleting failed** (Ns)'), lines.join('\n'));
    const preview = fakeDeployment({ state: { ...withRecorded('a'), outputs: { x: 1 } }, dryRun: true });
    await preview.deployment.destroyAll();
    assert.deepEqual([preview.store.saved, preview.state.outputs, preview.deployment.counts], [[], { x: 1 }, { delete: 1 }]);
  });

  it('refreshAll saves the state only when asked to persist, reading `parallel` at a time', async () => {
    for (const persist of [true, false]) {
      const { deployment, store, host } = fakeDeployment({ state: withRecorded('a', 'b') });
      await deployment.refreshAll(persist, 1);
      assert.equal(store.saved.length, persist ? 1 : 0);
      assert.deepEqual(host.ops, ['read', 'read']);
      assert.deepEqual(deployment.counts, { same: 2 });
    }
    const failing = new FakeHost();
    failing.read = async () => {
      throw new Error('forbidden');
    };
    const { deployment } = fakeDeployment({ fakeHost: failing, state: withRecorded('a') });
    await deployment.refreshAll(false);
    assert.deepEqual(deployment.errors, ['a: forbidden']);
  });
});

describe('runner deployment: progress', () => {
  it("the provider's progress lines go under the step of their object, or the only step of their type; others as they are", async () => {
    const host = new FakeHost();
    let release!: () => void;
    const created = new Promise<void>((resolve) => (release = resolve));
    host.create = async (_u, props) => {
      await created;
      return { id: `id-${String(props.name)}`, properties: props };
    };
    const { deployment, lines } = fakeDeployment({ fakeHost: host, progressEveryMs: 1e9 });
    const pending = deployment.register(registration('a', { object: { name: 'a', namespace: 'default' } }));
    await new Promise((resolve) => setImmediate(resolve));
    deployment.providerOutput('Widget default/a: 2/3 ready');
    deployment.providerOutput('Widget default/other-object: 1/3 ready');
    deployment.providerOutput('Gadget default/a: not ours');
    deployment.providerOutput('plain text from the provider');
    release();
    await pending;
    assert.deepEqual(shown(lines).slice(1, 5), [
      '+ test:Widget a creating... 2/3 ready',
      '+ test:Widget a creating... 1/3 ready',
      'Gadget default/a: not ours',
      'plain text from the provider',
    ]);
  });

  it('a progress line of a type with several steps and no matching object is shown as it is', async () => {
    const { deployment, lines } = fakeDeployment();
    await deployment.register(registration('a'));
    await deployment.register(registration('b'));
    lines.length = 0;
    deployment.providerOutput('Widget default/c: moving');
    deployment.providerOutput('Widget b: done');
    assert.deepEqual(shown(lines), ['Widget default/c: moving', '+ test:Widget b creating... done']);
  });

  it('a registry type is keyed by its object as the host wrapper stamps it', async () => {
    const type = 'pulumi-nodejs:dynamic/harvester:HarvesterMachinePool';
    const host = new FakeHost();
    let release!: () => void;
    host.create = async (_u, props) => {
      await new Promise<void>((resolve) => (release = resolve));
      return { id: 'x', properties: props };
    };
    const { deployment, lines } = fakeDeployment({ fakeHost: host, progressEveryMs: 1e9 });
    const pending = deployment.register(registration('workers', { type, object: { name: 'workers', namespace: 'default' } }));
    await new Promise((resolve) => setImmediate(resolve));
    deployment.providerOutput('HarvesterMachinePool default/workers: 2/3 VMs ready');
    release();
    await pending;
    assert.equal(shown(lines)[1], '+ harvester:HarvesterMachinePool workers creating... 2/3 VMs ready');
  });

  it('while a step waits, a line with the time taken every progressEveryMs', async () => {
    const host = new FakeHost();
    const lines: string[] = [];
    let sawProgress!: () => void;
    const progress = new Promise<void>((resolve) => (sawProgress = resolve));
    host.create = async (_u, props) => {
      await progress;
      return { id: 'x', properties: props };
    };
    const d = fakeDeployment({ fakeHost: host, progressEveryMs: 1 });
    const sink = d.lines;
    const push = sink.push.bind(sink);
    sink.push = (...items: string[]) => {
      if (items.some((l) => /creating\.\.\. \(\d+\.\ds\)$/.test(l))) sawProgress();
      return push(...items);
    };
    await d.deployment.register(registration('a'));
    lines.push(...shown(sink));
    assert.ok(lines.includes('+ test:Widget a creating... (Ns)'), lines.join('\n'));
    const ends = lines.filter((l) => l === '+ test:Widget a created (Ns)');
    assert.equal(ends.length, 1);
  });
});
