/**
 * The resource contract, driven through Pulumi's real dynamic-provider host for every registered resource
 * (fixtures/index.ts): partial failures recorded, preview refusing what up refuses, exact refresh, clean import,
 * idempotent delete that never touches what is not ours, secrets kept out of everything but their own outputs.
 * References to objects of the same program need a program: references.test.ts.
 */
import assert from 'node:assert/strict';
import { DynamicHostError } from '../../runner/dynamic-host';
import { startEngineHarness, type EngineHarness } from '../engine/engine-support';
import type { ConformanceFixture, ProgramInputs, Raw } from './fixture';
import { FIXTURES } from './fixtures';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** The inputs without the host's own key, for comparisons. */
function userPart(inputs: Raw | undefined): Raw {
  return Object.fromEntries(Object.entries(inputs ?? {}).filter(([k]) => k !== '__provider'));
}

for (const fixture of FIXTURES) {
  describe(`resource contract: ${fixture.className}${fixture.emulator?.guest ? ' (guest cluster)' : ''}`, function () {
    this.timeout(180_000);
    let h: EngineHarness;
    let text: string;
    let undoSetup: (() => Promise<void>) | undefined;
    const hostLines: string[] = [];
    let serial = 0;
    const uniqueName = (what: string) => `conf-${what}-${++serial}`;
    const urn = (name: string) => h.urn(fixture.className, name);
    const program = (inputs: ProgramInputs): Raw => ({ ...inputs, __provider: text });

    before(async () => {
      h = await startEngineHarness({ onHostLine: (line) => hostLines.push(line), emulator: fixture.emulator });
      text = await h.providerText(fixture.exportName);
      undoSetup = await fixture.setup?.(h.client, h.t.emulator.kubeconfig, h.t.emulator);
    });
    after(async () => {
      await undoSetup?.();
      await h?.stop();
    });

    /** check (as preview and up do) with no failure expected. */
    async function checked(name: string, olds: Raw, inputs: ProgramInputs): Promise<Raw> {
      const r = await h.host.check(urn(name), olds, program(inputs));
      assert.deepEqual(r.failures, [], `${fixture.className} ${name}: check refused valid inputs`);
      return r.inputs;
    }

    async function created(name: string, inputs: ProgramInputs): Promise<{ id: string; inputs: Raw; outs: Raw }> {
      const news = await checked(name, {}, inputs);
      const made = await h.host.create(urn(name), news);
      assert.equal(made.id, fixture.id(name));
      return { id: made.id, inputs: news, outs: made.properties };
    }

    async function destroyed(name: string, id: string, props: Raw, inputs: ProgramInputs): Promise<void> {
      await h.host.delete(urn(name), id, props);
      assert.deepEqual(await fixture.leftovers(h.client, inputs), [], `${fixture.className} ${name}: destroy left objects behind`);
    }

    /** Runs `call` with the fixture's faults active, returning what it threw. */
    async function failing(call: () => Promise<unknown>): Promise<DynamicHostError> {
      const { faults = [], guestFaults = [] } = fixture.failAfterWrite;
      const guest = h.t.emulator.guest;
      const ids = faults.length ? h.t.emulator.faults.add(...faults) : [];
      const guestIds = guestFaults.length && guest ? guest.faults.add(...guestFaults) : [];
      try {
        const err = await call().then(() => undefined, (e: unknown) => e);
        assert.ok(err instanceof DynamicHostError, `expected the call to fail, got ${String(err)}`);
        return err;
      } finally {
        for (const id of ids) h.t.emulator.faults.remove(id);
        for (const id of guestIds) guest?.faults.remove(id);
      }
    }

    function assertPartial(err: DynamicHostError, name: string): NonNullable<DynamicHostError['initFailure']> {
      assert.ok(err.initFailure, `a failure after a write must be a partial failure (ErrorResourceInitFailed), got: ${err.message}`);
      assert.equal(err.initFailure.id, fixture.id(name));
      assert.equal(err.initFailure.properties.__provider, text, '__provider is kept for the next refresh and destroy');
      return err.initFailure;
    }

    describe('1. partial failures are recorded', () => {
      it('a create that fails after writing is ErrorResourceInitFailed with its id; refresh shows it; destroy leaves nothing', async () => {
        const name = uniqueName('pc');
        const inputs = fixture.failAfterWrite.createInputs(name);
        const news = await checked(name, {}, inputs);
        const partial = assertPartial(await failing(() => h.host.create(urn(name), news)), name);
        const refreshed = await h.host.read(urn(name), partial.id, partial.properties);
        assert.equal(refreshed.id, partial.id, 'the refresh finds what the failed create made');
        assert.equal((await h.host.diff(urn(name), refreshed.id, refreshed.properties, news)).changes, 'some', 'the next up resumes the create');
        await destroyed(name, refreshed.id, refreshed.properties, inputs);
      });

      it('an update that fails after writing is ErrorResourceInitFailed; refresh shows it; destroy leaves nothing', async () => {
        const name = uniqueName('pu');
        const base = fixture.variants[0].inputs(name);
        const made = await created(name, base);
        const changed = fixture.failAfterWrite.updateInputs(name, base);
        const news = await checked(name, made.inputs, changed);
        const partial = assertPartial(await failing(() => h.host.update(urn(name), made.id, made.outs, news)), name);
        const refreshed = await h.host.read(urn(name), partial.id, partial.properties);
        assert.equal(refreshed.id, partial.id);
        assert.equal((await h.host.diff(urn(name), refreshed.id, refreshed.properties, news)).changes, 'some', 'the next up resumes the update');
        await destroyed(name, refreshed.id, refreshed.properties, changed);
      });
    });

    describe('2. preview refuses exactly what up refuses, naming the field, with no write', () => {
      for (const refusal of fixture.refusals) {
        it(`${refusal.what}: check refuses it on create and on update, and so does up`, async () => {
          const name = uniqueName('rf');
          const undo = await refusal.arrange(h.client, name);
          try {
            const inputs = refusal.inputs(name);
            // The recorded inputs of an update that changes something (olds equal to news update nothing).
            const olds = userPart((await h.host.check(urn(name), {}, program(fixture.variants[fixture.variants.length - 1].inputs(name)))).inputs);
            const mark = h.t.emulator.journal.mark();
            for (const [when, previous] of [['create', {}], ['update', olds]] as const) {
              const r = await h.host.check(urn(name), previous, program(inputs));
              const named = r.failures.filter((f) => f.property === refusal.property || f.property.startsWith(`${refusal.property}.`) || f.property.startsWith(`${refusal.property}[`));
              assert.ok(named.length > 0, `check (${when}) must refuse on ${refusal.property}; failures: ${JSON.stringify(r.failures)}`);
            }
            const writes = h.t.emulator.journal.entries({ since: mark }).filter((e) => WRITE_VERBS.has(e.verb ?? ''));
            assert.deepEqual(writes.map((e) => `${e.verb} ${e.path}`), [], 'check wrote to the cluster');
            const upMark = h.t.emulator.journal.mark();
            // Up of exactly the refused inputs (the recorded ones merged in would bring back an input whose absence
            // is what is refused, e.g. an image's storageClass on a cluster without a default StorageClass).
            const err = await h.host.create(urn(name), program(inputs)).then(() => undefined, (e: unknown) => e);
            assert.ok(err instanceof DynamicHostError, 'up refuses it too (this is an apply-time refusal)');
            assert.equal(err.initFailure, undefined, `up refused after writing: ${err.message}`);
            // A write the API server refused (a webhook's denial, a missing namespace) changed nothing.
            const upWrites = h.t.emulator.journal.entries({ since: upMark }).filter((e) => WRITE_VERBS.has(e.verb ?? '') && (e.status ?? 0) < 400);
            assert.deepEqual(upWrites.map((e) => `${e.verb} ${e.path}`), [], 'up changed the cluster before refusing');
          } finally {
            await undo();
          }
        });
      }
    });

    describe('4. refresh is exact', () => {
      for (const variant of fixture.variants) {
        it(`${variant.shape}: read returns the checked inputs; an out-of-band edit shows on ${fixture.outOfBandEdit.property}; up heals it; no false drift after`, async () => {
          const name = uniqueName('rx');
          const inputs = variant.inputs(name);
          const made = await created(name, inputs);
          const first = await h.host.read(urn(name), made.id, made.outs);
          assert.deepEqual(userPart(first.inputs), userPart(made.inputs), 'read after create returns exactly the checked inputs');
          assert.equal((await h.host.diff(urn(name), made.id, first.properties, made.inputs)).changes, 'none');
          await fixture.outOfBandEdit.apply(h.client, inputs);
          const drifted = await h.host.read(urn(name), made.id, first.properties);
          const property = fixture.outOfBandEdit.property;
          assert.notDeepEqual(drifted.inputs?.[property], made.inputs[property], `the edit shows on ${property}`);
          for (const [key, value] of Object.entries(userPart(made.inputs))) {
            if (key !== property) assert.deepEqual(drifted.inputs?.[key], value, `only ${property} drifted, not ${key}`);
          }
          assert.equal((await h.host.diff(urn(name), made.id, drifted.properties, made.inputs)).changes, 'some');
          const healed = await h.host.update(urn(name), made.id, drifted.properties, made.inputs);
          const after = await h.host.read(urn(name), made.id, healed.properties);
          assert.deepEqual(userPart(after.inputs), userPart(made.inputs), 'no drift after the heal');
          assert.equal((await h.host.diff(urn(name), made.id, after.properties, made.inputs)).changes, 'none');
          await destroyed(name, made.id, after.properties, inputs);
        });
      }
    });

    describe('5. import is clean', () => {
      if (fixture.importByIdUnsupported) {
        it(`no import by id alone (${fixture.importByIdUnsupported}): such a read answers "not found", without an error`, async () => {
          const name = uniqueName('im');
          const inputs = fixture.variants[0].inputs(name);
          const made = await created(name, inputs);
          assert.equal((await h.host.read(urn(name), made.id, {}, { __provider: text })).id, '');
          await destroyed(name, made.id, made.outs, inputs);
        });
        return;
      }
      for (const variant of fixture.variants) {
        it(`${variant.shape}: read by id alone, then check and diff against the program's inputs report no change`, async () => {
          const name = uniqueName('im');
          const inputs = variant.inputs(name);
          const made = await created(name, inputs);
          const imported = await h.host.read(urn(name), made.id, {}, { __provider: text });
          assert.equal(imported.id, made.id);
          const news = await checked(name, imported.inputs ?? {}, inputs);
          const diff = await h.host.diff(urn(name), imported.id, imported.properties, news);
          assert.equal(diff.changes, 'none', `import then the same program must plan nothing (no ignoreChanges); imported inputs: ${JSON.stringify(userPart(imported.inputs))}`);
          await destroyed(name, made.id, made.outs, inputs);
        });
      }
    });

    describe('6. delete is idempotent and never touches what is not ours', () => {
      it('deleting twice succeeds and leaves nothing', async () => {
        const name = uniqueName('dl');
        const inputs = fixture.variants[0].inputs(name);
        const made = await created(name, inputs);
        await destroyed(name, made.id, made.outs, inputs);
        await destroyed(name, made.id, made.outs, inputs);
      });

      it('a delete whose record names an object without our ownership labels leaves it as it is', async () => {
        const name = uniqueName('fo');
        const probe = await fixture.foreign(h.client, name);
        try {
          const recorded = await checked(name, {}, fixture.variants[0].inputs(name)).catch(() => program(fixture.variants[0].inputs(name)));
          await h.host.delete(urn(name), fixture.id(name), recorded);
          assert.ok(await probe.untouched(), 'the object that is not ours was modified or deleted');
        } finally {
          await probe.remove();
        }
      });
    });

    if (fixture.variantsCarrySecrets) {
      describe('7. secrets stay secret', () => {
        it('no secret value in outputs other than its own input, in errors or in the host\'s lines', async () => {
          assert.ok(fixture.secretValues.length > 0, 'the fixture names the secret values its variants carry');
          const name = uniqueName('sc');
          const variant = fixture.variants.find((v) => fixture.secretValues.some((s) => JSON.stringify(v.inputs(name)).includes(s))) ?? fixture.variants[0];
          const inputs = variant.inputs(name);
          const made = await created(name, inputs);
          const read = await h.host.read(urn(name), made.id, made.outs);
          const outside = (values: Raw | undefined) => JSON.stringify(Object.fromEntries(Object.entries(values ?? {}).filter(([k]) => !fixture.secretInputs.includes(k))));
          for (const [what, values] of [['create outputs', made.outs], ['read outputs', read.properties], ['read inputs', read.inputs]] as const) {
            for (const secret of fixture.secretValues) assert.equal(outside(values).includes(secret), false, `${what} hold a secret outside its own input`);
          }
          const failed = await failing(() => h.host.update(urn(name), made.id, read.properties, { ...made.inputs, ...fixture.failAfterWrite.updateInputs(name, inputs), ...pickSecrets(inputs, fixture) }));
          for (const secret of fixture.secretValues) {
            assert.equal(failed.message.includes(secret), false, 'an error quotes a secret');
            assert.equal(outside(failed.initFailure?.properties).includes(secret), false, 'a partial failure\'s properties hold a secret outside its own input');
            assert.equal(hostLines.some((l) => l.includes(secret)), false, 'the host printed a secret');
          }
          const refreshed = await h.host.read(urn(name), made.id, failed.initFailure?.properties ?? read.properties);
          await destroyed(name, made.id, refreshed.properties, inputs);
        });
      });
    }
  });
}

/** The secret inputs of `inputs` (so a failing update still carries them). */
function pickSecrets(inputs: ProgramInputs, fixture: ConformanceFixture): Raw {
  return Object.fromEntries(Object.entries(inputs).filter(([k]) => fixture.secretInputs.includes(k)));
}
