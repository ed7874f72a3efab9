import * as assert from 'node:assert/strict';
import { apiVersionOf, KindInfo } from '../../../../emulator/api/types';
import { createGuestRegistry, createHarvesterRegistry, KINDS, StaticKindRegistry } from '../../../../emulator/kinds';

describe('kind registry', () => {
  describe('createHarvesterRegistry', () => {
    const registry = createHarvesterRegistry();

    it('serves every KINDS entry, findable by apiVersion/kind and by group/version/plural', () => {
      assert.equal(registry.all().length, Object.keys(KINDS).length);
      for (const k of Object.values(KINDS)) {
        assert.equal(registry.byKind(apiVersionOf(k), k.kind), k, `${k.kind} by kind`);
        assert.equal(registry.byResource(k.group, k.version, k.plural), k, `${k.plural} by resource`);
      }
    });

    it('answers undefined for what it does not serve', () => {
      assert.equal(registry.byKind('loadbalancer.harvesterhci.io/v1alpha1', 'LoadBalancer'), undefined);
      assert.equal(registry.byKind('v1', 'ReplicationController'), undefined);
      assert.equal(registry.byResource('', 'v1', 'replicationcontrollers'), undefined);
      assert.equal(registry.byResource('kubevirt.io', 'v1', 'VirtualMachine'), undefined, 'plural, not kind');
    });
  });

  describe('createGuestRegistry', () => {
    it('serves exactly the core kinds a guest RKE2 cluster exposes to its cloud provider, and the Deployment it runs as', () => {
      const kinds = createGuestRegistry().all().map((k) => k.kind).sort();
      assert.deepEqual(kinds, ['ConfigMap', 'Deployment', 'Namespace', 'Node', 'Secret', 'Service']);
    });
  });

  it('refuses two entries for the same kind', () => {
    const copy: KindInfo = { ...KINDS.loadBalancer, plural: 'loadbalancers2' };
    assert.throws(() => new StaticKindRegistry([KINDS.loadBalancer, copy]), /LoadBalancer .* registered twice/);
  });

  it('refuses two entries for the same resource', () => {
    const copy: KindInfo = { ...KINDS.loadBalancer, kind: 'OtherLB' };
    assert.throws(() => new StaticKindRegistry([KINDS.loadBalancer, copy]), /resource loadbalancers .* registered twice/);
  });

  it('entries are frozen: an accidental edit throws instead of leaking into other stores', () => {
    assert.throws(() => {
      (KINDS.loadBalancer as { plural: string }).plural = 'x';
    }, TypeError);
    assert.throws(() => {
      ((KINDS.loadBalancer.schema.properties as any).spec.properties as any).ipam = {};
    }, TypeError);
  });

  describe('entries match the real resources', () => {
    // [kind, namespaced, statusSubresource, hasGeneration, builtIn, allowUnconditionalUpdate, shortNames]
    const table: [keyof typeof KINDS, boolean, boolean, boolean, boolean, boolean, string[]][] = [
      ['namespace', false, true, false, true, true, ['ns']],
      ['node', false, true, false, true, true, ['no']],
      ['service', true, true, false, true, true, ['svc']],
      ['secret', true, false, false, true, true, []],
      ['configMap', true, false, false, true, true, ['cm']],
      ['persistentVolumeClaim', true, true, false, true, true, ['pvc']],
      ['pod', true, true, false, true, true, ['po']],
      ['event', true, false, false, true, true, ['ev']],
      ['resourceQuota', true, true, false, true, true, ['quota']],
      ['storageClass', false, false, false, true, true, ['sc']],
      ['virtualMachine', true, true, true, false, false, ['vm', 'vms']],
      ['virtualMachineInstance', true, true, true, false, false, ['vmi', 'vmis']],
      ['virtualMachineInstanceMigration', true, true, true, false, false, ['vmim', 'vmims']],
      // Harvester's and Multus' CRDs declare no status subresource.
      ['virtualMachineImage', true, false, true, false, false, ['vmimage', 'vmimages']],
      ['keyPair', true, false, true, false, false, ['kp', 'kps']],
      ['setting', false, false, true, false, false, []],
      ['loadBalancer', true, false, true, false, false, ['lb', 'lbs']],
      ['ipPool', false, false, true, false, false, ['pool', 'pools']],
      ['networkAttachmentDefinition', true, false, true, false, false, ['net-attach-def']],
    ];
    for (const [key, namespaced, status, generation, builtIn, unconditional, shortNames] of table) {
      it(key, () => {
        const k = KINDS[key];
        assert.deepEqual(
          [k.namespaced, k.statusSubresource, k.hasGeneration, k.builtIn, k.allowUnconditionalUpdate, k.shortNames],
          [namespaced, status, generation, builtIn, unconditional, shortNames],
        );
        assert.equal(k.listKind, `${k.kind}List`);
        assert.ok(k.plural.length > 0 && k.singular.length > 0);
        assert.equal(k.smpMergeKeys !== undefined, k.builtIn, 'merge keys only for built-ins');
      });
    }
  });

  it('core strategic-merge keys follow the Go types (Service ports by port, Node conditions/addresses by type)', () => {
    assert.equal(KINDS.service.smpMergeKeys?.['spec.ports'], 'port');
    assert.equal(KINDS.node.smpMergeKeys?.['status.conditions'], 'type');
    assert.equal(KINDS.node.smpMergeKeys?.['status.addresses'], 'type');
    assert.equal(KINDS.secret.smpMergeKeys?.['data'], undefined);
  });

  it('printer columns mirror the CRDs (LoadBalancer, IPPool, Setting, VirtualMachineInstanceMigration)', () => {
    assert.deepEqual(KINDS.virtualMachineInstanceMigration.printerColumns?.map((c) => [c.name, c.jsonPath]), [['Phase', '.status.phase'], ['VMI', '.spec.vmiName']]);
    assert.deepEqual(KINDS.loadBalancer.printerColumns?.map((c) => c.name), ['DESCRIPTION', 'WORKLOADTYPE', 'IPAM', 'ADDRESS', 'AGE']);
    assert.deepEqual(KINDS.ipPool.printerColumns?.map((c) => c.jsonPath), ['.spec.description', '.spec.ranges', '.spec.selector.priority', '.metadata.creationTimestamp']);
    assert.deepEqual(KINDS.setting.printerColumns, [{ name: 'VALUE', type: 'string', jsonPath: '.value' }]);
  });

  it('every schema is a whole-object schema with apiVersion, kind and metadata', () => {
    for (const k of Object.values(KINDS)) {
      const props = k.schema.properties as Record<string, Record<string, unknown>>;
      assert.equal(props.apiVersion.type, 'string', k.kind);
      assert.equal(props.kind.type, 'string', k.kind);
      assert.equal(props.metadata['x-kubernetes-preserve-unknown-fields'], true, k.kind);
    }
  });
});
