/**
 * The engine's step for one registration (runner/deployment.ts Deployment.register), over a fake host: URNs as
 * the engine makes them; check → create, or diff → same / update / replace (delete-before-replace when asked,
 * replacementTrigger), nothing written in a preview; failed checks and steps reported once under the resource and
 * answered FAIL; a partial create recorded. test/runner/engine-pins.test.ts pins a few of these through the real host.
 */
import assert from 'node:assert/strict';
import { checkFailureMessage } from '../../../runner/deployment';
import { DynamicHostError } from '../../../runner/dynamic-host';
import { secretValue } from '../../../runner/secrets';
import type { ResourceState } from '../../../runner/state';
import { emptyState, FakeHost, fakeDeployment, registration, urnOf, WIDGET } from './fakes';

/** The printed lines with runs of spaces as one and the step's time as Ns. */
const shown = (lines: string[]) => lines.map((l) => l.replace(/ +/g, ' ').replace(/\(\d+\.\ds\)/, '(Ns)').trim());

const recorded = (name: string, over: Partial<ResourceState> = {}): ResourceState => ({
  urn: urnOf(name),
  type: WIDGET,
  name,
  id: `id-${name}`,
  inputs: { name, size: 1 },
  outputs: { name, size: 1, made: true },
  secretKeys: [],
  ...over,
});

describe('runner deployment: registrations', () => {
  it('makes URNs as the engine does: children of a component carry its type, children of the stack do not', async () => {
    const { deployment } = fakeDeployment();
    const stack = await deployment.register(registration('proj-dev', { type: 'pulumi:pulumi:Stack', custom: false }));
    assert.deepEqual(stack, { urn: 'urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev', id: '', object: {} });
    const component = await deployment.register(registration('group', { type: 'my:Group', custom: false, parent: stack.urn }));
    assert.equal(component.urn, 'urn:pulumi:dev::proj::my:Group::group');
    const child = await deployment.register(registration('a', { parent: component.urn }));
    assert.equal(child.urn, `urn:pulumi:dev::proj::my:Group$${WIDGET}::a`);
    const grandchild = await deployment.register(registration('g', { type: 'my:Inner', custom: false, parent: component.urn }));
    const deep = await deployment.register(registration('b', { parent: grandchild.urn }));
    assert.equal(deep.urn, `urn:pulumi:dev::proj::my:Group$my:Inner$${WIDGET}::b`);
    assert.equal((await deployment.register(registration('c', { parent: 'urn:unknown' }))).urn, urnOf('c'));
  });

  it('refuses a provider package resource and the import option, naming the resource and what to use', async () => {
    const { deployment, host } = fakeDeployment();
    await assert.rejects(deployment.register(registration('k', { type: 'kubernetes:core/v1:Pod' })), {
      message: 'kubernetes:core/v1:Pod k: the local runner drives dynamic-provider resources only; use the Pulumi CLI for provider packages',
    });
    await assert.rejects(deployment.register(registration('i', { importId: 'default/i' })), {
      message: 'i: the import option is not supported by the local runner; use the Pulumi CLI (docs/guides/import-and-adoption.md)',
    });
    assert.deepEqual(host.calls, []);
  });

  it('preview of a new resource: planned, the checked inputs answered with no id, nothing created or saved', async () => {
    const host = new FakeHost();
    host.check = async (_u, _o, news) => ({ inputs: { ...news, checked: true }, failures: [] });
    const { deployment, store, lines, state } = fakeDeployment({ fakeHost: host, dryRun: true });
    const answer = await deployment.register(registration('a', { object: { name: 'a', pw: secretValue('s') } }));
    assert.deepEqual(answer, { urn: urnOf('a'), id: '', object: { name: 'a', pw: secretValue('s'), checked: true } });
    assert.deepEqual(host.ops, ['check']);
    assert.deepEqual(host.calls[0], ['check', urnOf('a'), {}, { name: 'a', pw: 's' }]);
    assert.deepEqual([store.saved, state.resources], [[], []]);
    assert.deepEqual(shown(lines), ['+ test:Widget a create']);
    assert.deepEqual([deployment.counts, deployment.changeCount], [{ create: 1 }, 1]);
  });

  it('up of a new resource: created, recorded with its secret keys and trigger, saved, outputs answered with secrets wrapped', async () => {
    const { deployment, host, store, lines, state } = fakeDeployment();
    const answer = await deployment.register(registration('a', { object: { name: 'a' }, additionalSecretOutputs: ['made'], replacementTrigger: 'v1' }));
    assert.deepEqual(answer, { urn: urnOf('a'), id: 'id-a', object: { name: 'a', made: secretValue(true) } });
    assert.deepEqual(host.ops, ['check', 'create']);
    assert.deepEqual(state.resources, [{ urn: urnOf('a'), type: WIDGET, name: 'a', secretKeys: ['made'], replacementTrigger: 'v1', id: 'id-a', inputs: { name: 'a' }, outputs: { name: 'a', made: true } }]);
    assert.equal(store.saved.length, 1);
    assert.deepEqual(shown(lines), ['+ test:Widget a creating...', '+ test:Widget a created (Ns)']);
    assert.deepEqual(deployment.counts, { create: 1 });
    await deployment.register(registration('b'));
    assert.equal('replacementTrigger' in state.resources[1], false, 'no trigger, none recorded');
  });

  it('a failed check: reported once under the resource (create or update), counted failed, answered FAIL, nothing created', async () => {
    const host = new FakeHost();
    host.check = async () => ({ inputs: {}, failures: [{ property: 'size', reason: 'must be at least 1' }, { property: '', reason: 'not checked: the cluster is unreachable' }] });
    const { deployment, lines } = fakeDeployment({ fakeHost: host, state: { ...emptyState(), resources: [recorded('old')] } });
    assert.deepEqual(await deployment.register(registration('a')), { urn: urnOf('a'), id: '', object: {}, failed: true });
    await deployment.register(registration('old'));
    assert.deepEqual(host.ops, ['check', 'check']);
    assert.deepEqual(shown(lines), ['+ test:Widget a **failed**', '~ test:Widget old **failed**']);
    const message = 'not checked: the cluster is unreachable\ninvalid inputs:\n  - size: must be at least 1';
    assert.deepEqual(deployment.failures, [{ type: WIDGET, name: 'a', message }, { type: WIDGET, name: 'old', message }]);
    assert.deepEqual(deployment.errors, [`a: ${message}`, `old: ${message}`]);
    assert.deepEqual([deployment.counts, deployment.changeCount], [{ failed: 2 }, 0]);
  });

  it('a failed create: its time and failure shown, a thrown non-Error kept as text', async () => {
    const host = new FakeHost();
    host.create = async () => {
      throw 'quota exceeded';
    };
    const { deployment, lines, state } = fakeDeployment({ fakeHost: host });
    assert.equal((await deployment.register(registration('a'))).failed, true);
    assert.deepEqual(shown(lines), ['+ test:Widget a creating...', '+ test:Widget a **creating failed** (Ns)']);
    assert.deepEqual(deployment.failures, [{ type: WIDGET, name: 'a', message: 'quota exceeded' }]);
    assert.deepEqual(state.resources, [], 'nothing recorded for a plain failure');
  });

  it('a create that failed part-way is recorded with what it left (the id from the failure, else none)', async () => {
    const host = new FakeHost();
    host.create = async () => {
      throw new DynamicHostError('create', 'VM did not start', { id: 'default/a', properties: { name: 'a', phase: 'Failed' }, reasons: ['VM did not start'] });
    };
    const { deployment, state, store } = fakeDeployment({ fakeHost: host });
    await deployment.register(registration('a'));
    assert.deepEqual(state.resources, [{ urn: urnOf('a'), type: WIDGET, name: 'a', secretKeys: [], id: 'default/a', inputs: { name: 'a' }, outputs: { name: 'a', phase: 'Failed' } }]);
    assert.equal(store.saved.length, 1);
    host.create = async () => {
      throw new DynamicHostError('create', 'half made', { id: '', properties: {}, reasons: [] });
    };
    await deployment.register(registration('b'));
    assert.equal(state.resources[1].id, '');
    host.create = async () => {
      throw new DynamicHostError('create', 'timed out', undefined, true);
    };
    await deployment.register(registration('c'));
    assert.equal(state.resources.length, 2, 'a failure without an init failure records nothing');
  });

  it('an update that failed part-way keeps the recorded id when the failure names none', async () => {
    const host = new FakeHost();
    host.diff = async () => ({ changes: 'some', replaces: [], deleteBeforeReplace: false });
    host.update = async () => {
      throw new DynamicHostError('update', 'half updated', { id: '', properties: { name: 'a', size: 2 }, reasons: [] });
    };
    const { deployment, state } = fakeDeployment({ fakeHost: host, state: { ...emptyState(), resources: [recorded('a')] } });
    await deployment.register(registration('a', { object: { name: 'a', size: 2 } }));
    assert.deepEqual([state.resources[0].id, state.resources[0].outputs], ['id-a', { name: 'a', size: 2 }]);
  });

  it('unchanged: same, the recorded outputs answered; ignoreChanges keeps the recorded input', async () => {
    const { deployment, host, store } = fakeDeployment({ state: { ...emptyState(), resources: [recorded('a')] } });
    const answer = await deployment.register(registration('a', { object: { name: 'a', size: 5, extra: 1 }, ignoreChanges: ['size', 'extra'] }));
    assert.deepEqual(answer, { urn: urnOf('a'), id: 'id-a', object: { name: 'a', size: 1, made: true } });
    assert.deepEqual(host.calls[0], ['check', urnOf('a'), { name: 'a', size: 1 }, { name: 'a', size: 1, extra: 1 }]);
    assert.deepEqual(host.calls[1], ['diff', urnOf('a'), 'id-a', { name: 'a', size: 1, made: true }, { name: 'a', size: 1, extra: 1 }]);
    assert.deepEqual([deployment.counts, store.saved], [{ same: 1 }, []]);
  });

  it('a trigger set on an unchanged resource that had none is recorded (not in a preview); an equal one changes nothing', async () => {
    const up = fakeDeployment({ state: { ...emptyState(), resources: [recorded('a')] } });
    await up.deployment.register(registration('a', { replacementTrigger: { v: 1 } }));
    assert.deepEqual([up.state.resources[0].replacementTrigger, up.store.saved.length, up.deployment.counts], [{ v: 1 }, 1, { same: 1 }]);
    const same = fakeDeployment({ state: { ...emptyState(), resources: [recorded('a', { replacementTrigger: { v: 1 } })] } });
    await same.deployment.register(registration('a', { replacementTrigger: { v: 1 } }));
    assert.deepEqual([same.store.saved.length, same.deployment.counts], [0, { same: 1 }]);
    const preview = fakeDeployment({ dryRun: true, state: { ...emptyState(), resources: [recorded('a')] } });
    await preview.deployment.register(registration('a', { replacementTrigger: { v: 1 } }));
    assert.deepEqual([preview.state.resources[0].replacementTrigger, preview.store.saved.length], [undefined, 0]);
    const untriggered = fakeDeployment({ state: { ...emptyState(), resources: [recorded('a', { replacementTrigger: 'x' })] } });
    await untriggered.deployment.register(registration('a'));
    assert.deepEqual(untriggered.deployment.counts, { same: 1 }, 'a trigger no longer given replaces nothing');
  });
});

describe('runner deployment: checkFailureMessage', () => {
  it('whole-resource failures first, as they are; field failures under "invalid inputs", one line each', () => {
    assert.equal(checkFailureMessage([{ property: '', reason: 'cluster unreachable' }]), 'cluster unreachable');
    assert.equal(checkFailureMessage([{ property: 'cpu', reason: 'cpu must be at least 1' }, { property: 'vlan', reason: 'out of range' }]), 'invalid inputs:\n  - cpu must be at least 1\n  - vlan: out of range');
    assert.equal(checkFailureMessage([]), '');
  });
});
