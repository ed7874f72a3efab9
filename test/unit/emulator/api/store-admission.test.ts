import assert from 'node:assert/strict';
import { admissionDenied } from '../../../../emulator/api/errors';
import { AdmissionRequest, KubeObject } from '../../../../emulator/api/types';
import { expectStatus, lb, lbKind, lbValidator, newStore, poolKind } from './fixtures';

describe('ObjectStore validation (options.validate)', () => {
  it('schema causes become 422 Invalid with Kind.group details', () => {
    const { store } = newStore({ validate: lbValidator });
    const e = expectStatus(() => store.create(lbKind, lb('lb2', { ipam: 'foo' })), 422, 'Invalid');
    assert.equal(e.message, 'LoadBalancer.loadbalancer.harvesterhci.io "lb2" is invalid: spec.ipam: Unsupported value: "foo": supported values: "pool", "dhcp"');
    assert.equal(e.status.details.kind, 'LoadBalancer');
    assert.equal(e.status.details.causes[0].reason, 'FieldValueNotSupported');
  });

  it('Strict: unknown fields are 400 (comma-joined)', () => {
    const { store } = newStore({ validate: lbValidator });
    const e = expectStatus(() => store.create(lbKind, lb('lb1', { ipam: 'dhcp', foo: 1, bar: 2 }), { fieldValidation: 'Strict' }), 400, 'BadRequest');
    assert.equal(e.message, 'strict decoding error: unknown field "spec.foo", unknown field "spec.bar"');
  });

  it('Warn (the default): warnings collected and the pruned object stored', () => {
    const { store } = newStore({ validate: lbValidator });
    const warnings: string[] = [];
    const out = store.create(lbKind, lb('lb1', { ipam: 'dhcp', foo: 1 }), { warnings });
    assert.deepEqual(warnings, ['unknown field "spec.foo"']);
    assert.deepEqual(out.spec, { ipam: 'dhcp' });
  });

  it('Ignore: pruned silently', () => {
    const { store } = newStore({ validate: lbValidator });
    const warnings: string[] = [];
    const out = store.create(lbKind, lb('lb1', { ipam: 'dhcp', foo: 1 }), { fieldValidation: 'Ignore', warnings });
    assert.deepEqual(warnings, []);
    assert.deepEqual(out.spec, { ipam: 'dhcp' });
  });

  it('runs on update and patch results too', () => {
    const { store } = newStore({ validate: lbValidator });
    const a = store.create(lbKind, lb('lb1'));
    expectStatus(() => store.update(lbKind, { ...a, spec: { ipam: 'x' } }), 422, 'Invalid');
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'merge', { spec: { ipam: 'x' } }), 422, 'Invalid');
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'merge', { spec: { foo: 1 } }, { fieldValidation: 'Strict' }), 400, 'BadRequest');
  });
});

describe('ObjectStore admission hooks', () => {
  it('runs mutators before validators on CREATE, for matching resources only', () => {
    const { store } = newStore();
    const calls: string[] = [];
    store.addAdmissionHook({
      name: 'mutator.test',
      resources: ['loadbalancers.loadbalancer.harvesterhci.io'],
      mutate: (req) => {
        calls.push(`mutate ${req.operation}`);
        req.object!.metadata.labels = { ...(req.object!.metadata.labels ?? {}), mutated: 'yes' };
      },
      validate: (req) => {
        calls.push(`validate ${req.operation} ${req.object!.metadata.labels?.mutated}`);
      },
    });
    store.addAdmissionHook({ name: 'other', resources: ['ippools.loadbalancer.harvesterhci.io'], validate: () => calls.push('wrong') });
    const out = store.create(lbKind, lb('lb1'));
    assert.equal(out.metadata.labels!.mutated, 'yes');
    assert.deepEqual(calls, ['mutate CREATE', 'validate CREATE yes']);
  });

  it('a validator denial stops the write with its Status', () => {
    const { store } = newStore();
    store.addAdmissionHook({
      name: 'validator.harvester-load-balancer-webhook',
      resources: ['loadbalancers.loadbalancer.harvesterhci.io'],
      validate: (req) => {
        if ((req.object?.spec as Record<string, unknown>)?.ipam === 'pool') throw admissionDenied('validator.harvester-load-balancer-webhook', 'pool needs ipPool');
      },
    });
    const e = expectStatus(() => store.create(lbKind, lb('lb1', { ipam: 'pool' })), 400, 'BadRequest');
    assert.equal(e.message, 'admission webhook "validator.harvester-load-balancer-webhook" denied the request: pool needs ipPool');
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
  });

  it('UPDATE hooks see the old object; DELETE validators see oldObject and dryRun; hooks may read the store', () => {
    const { store } = newStore();
    const seen: AdmissionRequest[] = [];
    store.addAdmissionHook({ name: 'watcher', resources: ['ippools.loadbalancer.harvesterhci.io'], validate: (req) => void seen.push({ ...req }) });
    const pool = store.create(poolKind, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'p1' }, status: { allocated: { '10.0.0.1': 'default/lb1' } } });
    store.update(poolKind, { ...pool, spec: { x: 1 } });
    store.delete(poolKind, undefined, 'p1', { dryRun: true, user: 'alice' });
    assert.deepEqual(seen.map((r) => r.operation), ['CREATE', 'UPDATE', 'DELETE']);
    assert.equal(seen[1].oldObject!.metadata.resourceVersion, pool.metadata.resourceVersion);
    assert.equal(seen[2].dryRun, true);
    assert.equal(seen[2].user, 'alice');
    assert.equal(seen[2].object, undefined);
    assert.ok(seen[2].store.get(poolKind, undefined, 'p1'));
  });

  it('a DELETE validator can refuse (e.g. an IPPool with allocations)', () => {
    const { store } = newStore();
    store.addAdmissionHook({
      name: 'validator.harvester-load-balancer-webhook',
      resources: ['ippools.loadbalancer.harvesterhci.io'],
      validate: (req) => {
        const allocated = (req.oldObject?.status as { allocated?: Record<string, string> } | undefined)?.allocated ?? {};
        if (req.operation === 'DELETE' && Object.keys(allocated).length > 0) {
          throw admissionDenied('validator.harvester-load-balancer-webhook', `IP pool ${req.oldObject!.metadata.name} is still in use`);
        }
      },
    });
    store.create(poolKind, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'p1' }, status: { allocated: { '10.0.0.1': 'default/lb1' } } });
    expectStatus(() => store.delete(poolKind, undefined, 'p1'), 400, 'BadRequest');
    assert.ok(store.get(poolKind, undefined, 'p1'));
  });

  it('a hook throwing a plain error becomes a 500 naming the webhook', () => {
    const { store } = newStore();
    store.addAdmissionHook({
      name: 'broken',
      resources: ['loadbalancers.loadbalancer.harvesterhci.io'],
      mutate: () => {
        throw new TypeError('oops');
      },
    });
    const e = expectStatus(() => store.create(lbKind, lb('lb1')), 500, 'InternalError');
    assert.equal(e.message, 'Internal error occurred: failed calling webhook "broken": oops');
  });

  it('hooks see dryRun on writes and the object is still not stored', () => {
    const { store } = newStore();
    const flags: boolean[] = [];
    store.addAdmissionHook({ name: 'h', resources: ['loadbalancers.loadbalancer.harvesterhci.io'], mutate: (r) => void flags.push(r.dryRun) });
    store.create(lbKind, lb('lb1'), { dryRun: true });
    assert.deepEqual(flags, [true]);
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
  });

  it('metadata changes by a mutator are validated too', () => {
    const { store } = newStore();
    store.addAdmissionHook({
      name: 'bad-mutator',
      resources: ['loadbalancers.loadbalancer.harvesterhci.io'],
      mutate: (r) => {
        (r.object as KubeObject).metadata.labels = { ok: 'not ok!' };
      },
    });
    expectStatus(() => store.create(lbKind, lb('lb1')), 422, 'Invalid');
  });
});
