import * as assert from 'node:assert/strict';
import { openApiComponentName, openApiSchemaFor, validateObject } from '../../../../emulator/api/validation';
import { KindInfo, KubeObject } from '../../../../emulator/api/types';
import { KINDS } from '../../../../emulator/kinds';
import { BROKEN_CASES, CORE_BROKEN_CASES, KindKey, valid } from './fixtures';

describe('validateObject', () => {
  describe('accepts the valid example of every kind unchanged', () => {
    for (const key of Object.keys(KINDS) as KindKey[]) {
      it(key, () => {
        const object = valid(key);
        const result = validateObject(KINDS[key], object);
        assert.deepEqual(result.causes, []);
        assert.deepEqual(result.unknownFields, []);
        assert.deepEqual(result.object, valid(key));
      });
    }
  });

  describe('reports each broken variant with the apiserver reason and field', () => {
    for (const c of [...BROKEN_CASES, ...CORE_BROKEN_CASES]) {
      it(`${c.kind}: ${c.name}`, () => {
        const result = validateObject(KINDS[c.kind], c.object);
        if (c.cause) {
          assert.ok(
            result.causes.some((x) => x.reason === c.cause!.reason && x.field === c.cause!.field),
            `expected ${c.cause.reason} at ${c.cause.field}, got ${JSON.stringify(result.causes)}`,
          );
        } else {
          assert.deepEqual(result.causes, []);
          assert.deepEqual(result.unknownFields, [c.unknownField]);
        }
      });
    }
  });

  describe('messages worded like the apiserver', () => {
    const lb = (): KubeObject => valid('loadBalancer');
    const cases: Record<string, { reason: string; change: (o: any) => void; want: { reason: string; field: string; message: string } }> = {
      enum: {
        reason: 'FieldValueNotSupported lists every supported value quoted',
        change: (o) => (o.spec.ipam = 'foo'),
        want: { reason: 'FieldValueNotSupported', field: 'spec.ipam', message: 'Unsupported value: "foo": supported values: "pool", "dhcp"' },
      },
      required: {
        reason: 'FieldValueRequired says only "Required value"',
        change: (o) => delete o.spec.listeners[0].protocol,
        want: { reason: 'FieldValueRequired', field: 'spec.listeners[0].protocol', message: 'Required value' },
      },
      type: {
        reason: 'FieldValueTypeInvalid names the actual JSON type twice, as kube-openapi does',
        change: (o) => (o.spec.listeners[0].port = 'eighty'),
        want: {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.listeners[0].port',
          message: 'Invalid value: "string": spec.listeners[0].port in body must be of type integer: "string"',
        },
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(`${name}: ${c.reason}`, () => {
        const o = lb();
        c.change(o);
        assert.deepEqual(validateObject(KINDS.loadBalancer, o).causes, [c.want]);
      });
    }

    it('maximum: FieldValueInvalid with the bad value and the bound', () => {
      const o = valid('virtualMachineImage');
      (o.spec as any).retry = 11;
      assert.deepEqual(validateObject(KINDS.virtualMachineImage, o).causes, [
        { reason: 'FieldValueInvalid', field: 'spec.retry', message: 'Invalid value: 11: spec.retry in body should be less than or equal to 10' },
      ]);
    });

    it('int-or-string: a boolean names both allowed types', () => {
      const o = valid('service');
      (o.spec as any).ports[0].targetPort = true;
      const [cause] = validateObject(KINDS.service, o).causes;
      assert.equal(cause.message, 'Invalid value: "boolean": spec.ports[0].targetPort in body must be of type integer,string: "boolean"');
    });

    it('pattern: quotes the value and the expression', () => {
      const o = valid('persistentVolumeClaim');
      (o.spec as any).resources.requests.storage = '40 GB';
      const [cause] = validateObject(KINDS.persistentVolumeClaim, o).causes;
      assert.equal(cause.reason, 'FieldValueInvalid');
      assert.match(cause.message, /^Invalid value: "40 GB": spec\.resources\.requests\.storage in body should match '\^/);
    });

    it('several problems are all reported, each once', () => {
      const o = lb();
      (o.spec as any).ipam = 'x';
      (o.spec as any).workloadType = 'y';
      delete (o.spec as any).listeners[0].port;
      const fields = validateObject(KINDS.loadBalancer, o).causes.map((c) => c.field).sort();
      assert.deepEqual(fields, ['spec.ipam', 'spec.listeners[0].port', 'spec.workloadType']);
    });
  });

  describe('structural pruning, nulls and defaults', () => {
    it('prunes unknown fields at every depth and reports their paths', () => {
      const o = valid('loadBalancer') as any;
      o.spec.extra = 1;
      o.spec.listeners[0].extra = { a: 1 };
      o.status.allocatedAddress.extra = 'x';
      o.topLevel = true;
      const r = validateObject(KINDS.loadBalancer, o);
      assert.deepEqual(r.unknownFields.sort(), ['spec.extra', 'spec.listeners[0].extra', 'status.allocatedAddress.extra', 'topLevel']);
      assert.deepEqual(r.object, valid('loadBalancer'));
      assert.deepEqual(r.causes, []);
    });

    it('keeps unknown fields under x-kubernetes-preserve-unknown-fields (VM template metadata, metadata)', () => {
      const o = valid('virtualMachine') as any;
      o.spec.template.metadata.creationTimestamp = null;
      o.spec.template.metadata.somethingNew = { x: 1 };
      o.metadata.someFutureField = 'kept';
      const r = validateObject(KINDS.virtualMachine, o);
      assert.deepEqual(r.unknownFields, []);
      assert.equal(r.object.metadata.someFutureField, 'kept');
      assert.deepEqual((r.object as any).spec.template.metadata.somethingNew, { x: 1 });
      assert.equal((r.object as any).spec.template.metadata.creationTimestamp, null);
    });

    it('drops nulls of non-nullable fields silently, keeps them where nullable', () => {
      const o = valid('virtualMachine') as any;
      o.metadata.creationTimestamp = null;
      o.spec.running = null;
      const r = validateObject(KINDS.virtualMachine, o);
      assert.deepEqual(r.causes, []);
      assert.deepEqual(r.unknownFields, []);
      assert.ok(!('creationTimestamp' in r.object.metadata));
      assert.ok(!('running' in (r.object as any).spec));
      assert.equal((r.object as any).status.conditions[0].lastProbeTime, null);
    });

    it('applies schema defaults to absent and null fields', () => {
      const o = valid('virtualMachineImage') as any;
      delete o.spec.retry;
      o.spec.backend = null;
      delete o.status.failed;
      const r = validateObject(KINDS.virtualMachineImage, o);
      assert.equal(r.object.spec && (r.object.spec as any).retry, 3);
      assert.equal((r.object.spec as any).backend, 'backingimage');
      assert.equal((r.object as any).status.failed, 0);
    });

    it('never changes its input', () => {
      const o = valid('loadBalancer') as any;
      o.spec.extra = 1;
      o.spec.ipPool = null;
      const before = structuredClone(o);
      validateObject(KINDS.loadBalancer, o);
      assert.deepEqual(o, before);
    });

    it('an object with no properties (bridge: {}) prunes whatever is put inside it', () => {
      const o = valid('virtualMachineInstance') as any;
      o.spec.domain.devices.interfaces[0].bridge = { vlan: 20 };
      const r = validateObject(KINDS.virtualMachineInstance, o);
      assert.deepEqual(r.unknownFields, ['spec.domain.devices.interfaces[0].bridge.vlan']);
      assert.deepEqual((r.object as any).spec.domain.devices.interfaces[0].bridge, {});
    });
  });

  describe('real objects Harvester writes', () => {
    it('accepts a VirtualMachine carrying the server-added fields of a node-driver VM', () => {
      const o = valid('virtualMachine') as any;
      const spec = o.spec.template.spec;
      spec.architecture = 'amd64';
      spec.domain.cpu.maxSockets = 1;
      spec.domain.memory.guest = '4Gi';
      spec.domain.devices.disks.push({ name: 'hotplug-1', disk: { bus: 'scsi' } });
      spec.volumes.push({ name: 'hotplug-1', persistentVolumeClaim: { claimName: 'pvc-1', hotpluggable: true } });
      o.status.volumeSnapshotStatuses = [{ name: 'disk-0', enabled: true }];
      o.status.observedGeneration = 1;
      o.status.desiredGeneration = 2;
      o.metadata.finalizers = ['kubevirt.io/virtualMachineControllerFinalize'];
      const r = validateObject(KINDS.virtualMachine, o);
      assert.deepEqual(r.causes, []);
      assert.deepEqual(r.unknownFields, []);
    });

    it('accepts client-node style timestamps with milliseconds', () => {
      const o = valid('virtualMachineInstance') as any;
      o.status.phaseTransitionTimestamps[0].phaseTransitionTimestamp = '2026-11-22T06:15:59.000Z';
      assert.deepEqual(validateObject(KINDS.virtualMachineInstance, o).causes, []);
    });
  });

  it('uses a custom KindInfo schema (compiled per schema object)', () => {
    const kind: KindInfo = { ...KINDS.setting, schema: { type: 'object', properties: { value: { type: 'integer' } } } };
    const o = { apiVersion: 'x/v1', kind: 'X', metadata: {}, value: 'a' } as KubeObject;
    const r = validateObject(kind, o);
    assert.deepEqual(r.causes.map((c) => c.field), ['value']);
    assert.deepEqual(r.unknownFields.sort(), ['apiVersion', 'kind', 'metadata']);
  });
});

describe('openApiSchemaFor', () => {
  it('returns a copy of the schema tagged with the group-version-kind', () => {
    const s = openApiSchemaFor(KINDS.ipPool);
    assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: 'loadbalancer.harvesterhci.io', kind: 'IPPool', version: 'v1beta1' }]);
    assert.equal((s.properties as any).spec.required[0], 'ranges');
    assert.ok(!('x-kubernetes-group-version-kind' in KINDS.ipPool.schema));
  });

  it('names components as the apiserver does', () => {
    assert.equal(openApiComponentName(KINDS.loadBalancer), 'io.harvesterhci.loadbalancer.v1beta1.LoadBalancer');
    assert.equal(openApiComponentName(KINDS.service), 'io.k8s.api.core.v1.Service');
    assert.equal(openApiComponentName(KINDS.virtualMachine), 'io.kubevirt.v1.VirtualMachine');
    assert.equal(openApiComponentName(KINDS.storageClass), 'io.k8s.api.storage.v1.StorageClass');
  });
});
