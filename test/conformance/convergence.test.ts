/**
 * The resource contract, cases 8 and 9, through Pulumi's real dynamic-provider host for every registered resource
 * (fixtures/index.ts):
 *
 * 8. A failure at any write leaves nothing destroy cannot remove. A clean create (variants[0]) and a clean in-place
 *    update (`inPlaceUpdate`) are run once to count the writes they make (the emulator's request journal); then,
 *    for N = 1 … that count, the same operation runs again with its Nth write refused (a fault rule letting N-1
 *    writes through). Whatever the outcome — success, a partial failure (ErrorResourceInitFailed) or a plain error —
 *    the engine's state after it is what the next refresh and destroy get: a failed create that recorded nothing
 *    must have left nothing; a refresh that drops the resource must leave nothing; destroy must leave nothing of
 *    ours on the cluster (the fixture's leftovers, and every object carrying our managed-by label that was not
 *    there before).
 * 9. Turning off or removing an optional input converges in one `up`: from inputs that set it, the edited inputs
 *    plan a change, one update (or, when the input replaces, delete-then-create as the engine runs it) applies it,
 *    and the next refresh reads back exactly the edited inputs with no drift, so the next preview plans nothing.
 *    (Rights turned off stay off: a binding, label or annotation left behind reads back as drift.)
 */
import assert from 'node:assert/strict';
import type { FaultRule } from '../../emulator';
import type { HarvesterClient } from '../../provider/client/harvester-client';
import { MANAGED_BY } from '../../provider/client/ownership';
import type { ResourceClient } from '../../provider/client/resource-client';
import type { KubeObject } from '../../provider/client/objects';
import { DynamicHostError } from '../../runner/dynamic-host';
import { startEngineHarness, type EngineHarness } from '../engine/engine-support';
import type { ProgramInputs, Raw } from './fixture';
import { FIXTURES } from './fixtures';

const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** The inputs without the host's own key, for comparisons. */
function userPart(inputs: Raw | undefined): Raw {
  return Object.fromEntries(Object.entries(inputs ?? {}).filter(([k]) => k !== '__provider'));
}

/** Every object carrying our managed-by label, of every kind the provider writes on Harvester, as "kind ns/name uid". */
async function oursOnCluster(client: HarvesterClient): Promise<Set<string>> {
  const kinds: [string, ResourceClient<KubeObject>][] = (
    ['virtualMachines', 'secrets', 'persistentVolumeClaims', 'images', 'keyPairs', 'networks', 'loadBalancers', 'ipPools', 'serviceAccounts', 'roleBindings', 'clusterRoleBindings', 'services'] as const
  ).map((k) => [k, client[k] as unknown as ResourceClient<KubeObject>]);
  const found = new Set<string>();
  for (const [kind, resource] of kinds) {
    for (const o of (await resource.list({ labelSelector: `app.kubernetes.io/managed-by=${MANAGED_BY}` })).items) {
      found.add(`${kind} ${o.metadata.namespace ?? ''}/${o.metadata.name} ${o.metadata.uid}`);
    }
  }
  return found;
}

type State = { id: string; props: Raw } | undefined;

for (const fixture of FIXTURES) {
  describe(`resource contract: ${fixture.className}${fixture.emulator?.guest ? ' (guest cluster)' : ''}, failures at each write and inputs turned off`, function () {
    this.timeout(600_000);
    let h: EngineHarness;
    let text: string;
    let undoSetup: (() => Promise<void>) | undefined;
    let serial = 0;
    const uniqueName = (what: string) => `conv-${what}-${++serial}`;
    const urn = (name: string) => h.urn(fixture.className, name);
    const program = (inputs: ProgramInputs): Raw => ({ ...inputs, __provider: text });

    before(async () => {
      h = await startEngineHarness({ emulator: fixture.emulator });
      text = await h.providerText(fixture.exportName);
      undoSetup = await fixture.setup?.(h.client, h.t.emulator.kubeconfig, h.t.emulator);
    });
    after(async () => {
      await undoSetup?.();
      await h?.stop();
    });

    async function checked(name: string, olds: Raw, inputs: ProgramInputs): Promise<Raw> {
      const r = await h.host.check(urn(name), olds, program(inputs));
      assert.deepEqual(r.failures, [], `${fixture.className} ${name}: check refused valid inputs`);
      return r.inputs;
    }

    async function created(name: string, inputs: ProgramInputs): Promise<{ id: string; inputs: Raw; outs: Raw }> {
      const news = await checked(name, {}, inputs);
      const made = await h.host.create(urn(name), news);
      return { id: made.id, inputs: news, outs: made.properties };
    }

    /** What the fixture sees of `inputs`, and every object of ours that was not on the cluster in `before`. */
    async function left(inputs: ProgramInputs, before: Set<string>): Promise<string[]> {
      const ours = [...(await oursOnCluster(h.client))].filter((o) => !before.has(o));
      return [...(await fixture.leftovers(h.client, inputs)), ...ours];
    }

    /** The writes `run` makes on Harvester and on the guest cluster. */
    async function writesOf(run: () => Promise<unknown>): Promise<{ harvester: number; guest: number }> {
      const guest = h.t.emulator.guest;
      const [mark, guestMark] = [h.t.emulator.journal.mark(), guest?.journal.mark() ?? 0];
      await run();
      const count = (entries: { verb?: string }[]) => entries.filter((e) => WRITE_VERBS.includes(e.verb ?? '')).length;
      return { harvester: count(h.t.emulator.journal.entries({ since: mark })), guest: guest ? count(guest.journal.entries({ since: guestMark })) : 0 };
    }

    /** The state the engine keeps after `call`: its result, the partial failure's record, or `previous` after a plain error. */
    async function stateAfter(call: () => Promise<{ id: string; props: Raw }>, previous: State): Promise<{ state: State; outcome: string }> {
      try {
        return { state: await call(), outcome: 'succeeded' };
      } catch (err) {
        if (!(err instanceof DynamicHostError) || err.timedOut) throw err;
        if (err.initFailure) return { state: { id: err.initFailure.id, props: err.initFailure.properties }, outcome: `partial failure (${err.message.split('\n')[0]})` };
        return { state: previous, outcome: `error (${err.message.split('\n')[0]})` };
      }
    }

    /** Refresh, then destroy what the refresh kept, as the engine would; nothing of ours may be left. */
    async function refreshAndDestroy(name: string, inputs: ProgramInputs, state: State, before: Set<string>, what: string): Promise<void> {
      if (!state) {
        assert.deepEqual(await left(inputs, before), [], `${what}: nothing was recorded, so nothing may be left`);
        return;
      }
      const refreshed = await h.host.read(urn(name), state.id, state.props);
      if (!refreshed.id) {
        assert.deepEqual(await left(inputs, before), [], `${what}: the refresh dropped the resource from the state, so nothing may be left`);
        return;
      }
      await h.host.delete(urn(name), refreshed.id, refreshed.properties);
      assert.deepEqual(await left(inputs, before), [], `${what}: destroy left objects behind`);
    }

    /** Runs `call` with the `n`th write on `server` refused (401: a final refusal, never retried). */
    async function withNthWriteRefused<T>(server: 'harvester' | 'guest', n: number, call: () => Promise<T>): Promise<T> {
      const faults = server === 'guest' ? h.t.emulator.guest!.faults : h.t.emulator.faults;
      const rule: FaultRule = { name: `write-${n}-refused`, match: { verb: WRITE_VERBS }, skip: n - 1, times: 1, action: { type: 'unauthorized' } };
      const ids = faults.add(rule);
      try {
        return await call();
      } finally {
        for (const id of ids) faults.remove(id);
      }
    }

    describe('8. a failure at each write a create or an update makes leaves nothing destroy cannot remove', () => {
      it('create: with its Nth write refused, for every write it makes, refresh and destroy leave nothing of ours', async () => {
        const before = await oursOnCluster(h.client);
        const clean = uniqueName('cw');
        const cleanInputs = fixture.variants[0].inputs(clean);
        const news = await checked(clean, {}, cleanInputs);
        let made: { id: string; properties: Raw } | undefined;
        const writes = await writesOf(async () => (made = await h.host.create(urn(clean), news)));
        await refreshAndDestroy(clean, cleanInputs, { id: made!.id, props: made!.properties }, before, 'clean create');
        if (fixture.writesNothing) {
          assert.deepEqual(writes, { harvester: 0, guest: 0 }, `${fixture.className} writes nothing (${fixture.writesNothing})`);
          return;
        }
        assert.ok(writes.harvester + writes.guest > 0, 'a create writes');
        for (const [server, count] of [['harvester', writes.harvester], ['guest', writes.guest]] as const) {
          for (let n = 1; n <= count; n++) {
            const name = uniqueName('cf');
            const inputs = fixture.variants[0].inputs(name);
            const checkedInputs = await checked(name, {}, inputs);
            const { state, outcome } = await withNthWriteRefused(server, n, () =>
              stateAfter(async () => {
                const r = await h.host.create(urn(name), checkedInputs);
                return { id: r.id, props: r.properties };
              }, undefined),
            );
            await refreshAndDestroy(name, inputs, state, before, `create with ${server} write ${n}/${count} refused: ${outcome}`);
          }
        }
      });

      it('update: with its Nth write refused, for every write it makes, refresh and destroy leave nothing of ours', async () => {
        const before = await oursOnCluster(h.client);
        const clean = uniqueName('uw');
        const cleanInputs = fixture.variants[0].inputs(clean);
        const base = await created(clean, cleanInputs);
        const changed = await checked(clean, base.inputs, fixture.inPlaceUpdate(clean, cleanInputs));
        const diff = await h.host.diff(urn(clean), base.id, base.outs, changed);
        assert.equal(diff.changes, 'some', 'inPlaceUpdate changes something');
        assert.deepEqual(diff.replaces, [], 'inPlaceUpdate applies in place');
        let updated: { properties: Raw } | undefined;
        const writes = await writesOf(async () => (updated = await h.host.update(urn(clean), base.id, base.outs, changed)));
        await refreshAndDestroy(clean, cleanInputs, { id: base.id, props: updated!.properties }, before, 'clean update');
        if (fixture.writesNothing) {
          assert.deepEqual(writes, { harvester: 0, guest: 0 }, `${fixture.className} writes nothing (${fixture.writesNothing})`);
          return;
        }
        assert.ok(writes.harvester + writes.guest > 0, 'an update writes');
        for (const [server, count] of [['harvester', writes.harvester], ['guest', writes.guest]] as const) {
          for (let n = 1; n <= count; n++) {
            const name = uniqueName('uf');
            const inputs = fixture.variants[0].inputs(name);
            const made = await created(name, inputs);
            const news = await checked(name, made.inputs, fixture.inPlaceUpdate(name, inputs));
            const { state, outcome } = await withNthWriteRefused(server, n, () =>
              stateAfter(async () => ({ id: made.id, props: (await h.host.update(urn(name), made.id, made.outs, news)).properties }), { id: made.id, props: made.outs }),
            );
            await refreshAndDestroy(name, inputs, state, before, `update with ${server} write ${n}/${count} refused: ${outcome}`);
          }
        }
      });
    });

    describe('9. turning off or removing an optional input converges in one up, with no drift on the next refresh', () => {
      for (const off of fixture.optionalInputs.off) {
        it(`${off.input}: one up applies it; the next refresh shows no drift and the next preview plans nothing`, async () => {
          const before = await oursOnCluster(h.client);
          const name = uniqueName('off');
          const full = (off.from ?? fixture.optionalInputs.inputs)(name);
          const made = await created(name, full);
          const news = await checked(name, made.inputs, off.edit(full));
          assert.notDeepEqual(userPart(news), userPart(made.inputs), `turning off ${off.input} changes the checked inputs`);
          const diff = await h.host.diff(urn(name), made.id, made.outs, news);
          assert.equal(diff.changes, 'some', `turning off ${off.input} is a change the preview shows`);
          let state: { id: string; props: Raw };
          if (diff.replaces.length) {
            // The engine's replacement of a resource whose name is fixed: the old one first (deleteBeforeReplace).
            assert.equal(diff.deleteBeforeReplace, true);
            await h.host.delete(urn(name), made.id, made.outs);
            const again = await h.host.create(urn(name), news);
            state = { id: again.id, props: again.properties };
          } else {
            state = { id: made.id, props: (await h.host.update(urn(name), made.id, made.outs, news)).properties };
          }
          const refreshed = await h.host.read(urn(name), state.id, state.props);
          assert.equal(refreshed.id, state.id);
          assert.deepEqual(userPart(refreshed.inputs), userPart(news), `the refresh after turning off ${off.input} shows drift`);
          assert.deepEqual(refreshed.properties.drift ?? [], [], 'no drift line');
          assert.equal((await h.host.diff(urn(name), state.id, refreshed.properties, news)).changes, 'none', 'the next preview plans nothing');
          await h.host.delete(urn(name), state.id, refreshed.properties);
          assert.deepEqual(await left(full, before), [], 'destroy left objects behind');
        });
      }
    });
  });
}
