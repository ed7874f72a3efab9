/**
 * KubeVirt's VirtualMachine validator (pkg/network/admitter: every interface names a network; masquerade only on the
 * pod network) and its VirtualMachineInstanceMigration admitters (migration-create-admitter.go,
 * migration-update-admitter.go), pinned word for word: the 422 Invalid status with its causes (KubeVirt's
 * webhookutils.ToAdmissionResponse joins the causes' messages with ", "), the 400 denials without a reason.
 * The update admitter's rule for a migration that never had the selector label is reached by calling the webhook
 * directly: such a migration predates the mutator (it labels every new one).
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { migrationWebhooks } from '../../emulator/webhooks/virtual-machine-instance-migration';
import { AGENT_USERDATA, expectStatusError, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

const VM_DENIED = 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: ';
const CREATE_DENIED = 'admission webhook "migration-create-validator.kubevirt.io" denied the request: ';
const UPDATE_DENIED = 'admission webhook "migration-update-validator.kubevirt.io" denied the request: ';
const IFACE = (i: number) => `spec.template.spec.domain.devices.interfaces[${i}].name`;

function migration(name: string, vmiName: string | undefined, labels?: Record<string, string>, phase?: string): KubeObject {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    spec: vmiName === undefined ? {} : { vmiName },
    ...(phase ? { status: { phase } } : {}),
  };
}

describe('KubeVirt webhooks: VirtualMachine interfaces and VirtualMachineInstanceMigration, exact statuses', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 100, vmiBoot: 200, guestAgent: 100, migration: 500 } });
  });
  afterEach(() => sim.close());

  /** A node-driver VM whose interfaces and networks are replaced. */
  function vmWith(name: string, interfaces: Record<string, unknown>[], networks: Record<string, unknown>[]): KubeObject {
    const vm = nodeDriverVm(name, { userData: AGENT_USERDATA });
    const spec = (vm.spec as any).template.spec;
    spec.domain.devices.interfaces = interfaces;
    spec.networks = networks;
    return vm;
  }

  describe('virtualmachine-validator.kubevirt.io', () => {
    it('refuses an interface without a network of its name: 422 Invalid, "<field> \'<name>\' not found."', () => {
      const vm = vmWith('vm-nonet', [{ name: 'nic-9', model: 'virtio', bridge: {} }], [{ name: 'nic-0', multus: { networkName: 'default/vm-net' } }]);
      const err = expectStatusError(() => sim.store.create(sim.kinds.vm, vm));
      assert.deepEqual(
        { code: err.status.code, reason: err.status.reason, message: err.status.message, causes: err.status.details?.causes },
        {
          code: 422,
          reason: 'Invalid',
          message: `${VM_DENIED}${IFACE(0)} 'nic-9' not found.`,
          causes: [{ reason: 'FieldValueInvalid', message: `${IFACE(0)} 'nic-9' not found.`, field: IFACE(0) }],
        },
      );
    });

    it('refuses masquerade on a Multus network and joins every cause\'s message with ", "', () => {
      const vm = vmWith(
        'vm-masq',
        [{ name: 'nic-0', model: 'virtio', masquerade: {} }, { name: 'nic-9', model: 'virtio', bridge: {} }],
        [{ name: 'nic-0', multus: { networkName: 'default/vm-net' } }],
      );
      const err = expectStatusError(() => sim.store.create(sim.kinds.vm, vm));
      assert.equal(err.status.reason, 'Invalid');
      assert.equal(err.status.message, `${VM_DENIED}Masquerade interface only implemented with pod network, ${IFACE(1)} 'nic-9' not found.`);
      assert.deepEqual(err.status.details?.causes, [
        { reason: 'FieldValueInvalid', message: 'Masquerade interface only implemented with pod network', field: IFACE(0) },
        { reason: 'FieldValueInvalid', message: `${IFACE(1)} 'nic-9' not found.`, field: IFACE(1) },
      ]);
    });

    it('admits masquerade on the pod network', () => {
      const vm = vmWith('vm-pod', [{ name: 'default', model: 'virtio', masquerade: {} }], [{ name: 'default', pod: {} }]);
      sim.store.create(sim.kinds.vm, vm);
      const stored = sim.store.get(sim.kinds.vm, 'default', 'vm-pod')!;
      assert.deepEqual((stored.spec as any).template.spec.networks, [{ name: 'default', pod: {} }]);
    });
  });

  describe('migration-create-validator.kubevirt.io', () => {
    it('refuses a migration without spec.vmiName: 422 Invalid, "vmiName is missing"', () => {
      const err = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('m-noname', undefined)));
      assert.deepEqual(
        { code: err.status.code, reason: err.status.reason, message: err.status.message, causes: err.status.details?.causes },
        { code: 422, reason: 'Invalid', message: `${CREATE_DENIED}vmiName is missing`, causes: [{ reason: 'FieldValueRequired', message: 'vmiName is missing', field: 'spec.vmiName' }] },
      );
    });

    it('refuses a VMI whose LiveMigratable=False condition has no reason or message, printing them empty', async () => {
      sim.store.create(sim.kinds.vm, nodeDriverVm('mig-bare', { userData: AGENT_USERDATA }));
      await sim.run(500);
      const live = sim.store.get(sim.kinds.vmi, 'default', 'mig-bare')!;
      const conditions = ((live.status as any).conditions ?? []).filter((c: any) => c.type !== 'LiveMigratable');
      sim.store.update(sim.kinds.vmi, { ...live, status: { ...(live.status as object), conditions: [...conditions, { type: 'LiveMigratable', status: 'False' }] } }, { subresource: 'status' });
      const err = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('m-bare', 'mig-bare')));
      assert.deepEqual([err.status.code, err.status.message], [400, `${CREATE_DENIED}Cannot migrate VMI, Reason: , Message: `]);
    });
  });

  describe('migration-update-validator.kubevirt.io', () => {
    async function inFlight(vm: string, name: string): Promise<KubeObject> {
      sim.store.create(sim.kinds.vm, nodeDriverVm(vm, { userData: AGENT_USERDATA }));
      await sim.run(500);
      const created = sim.store.create(sim.kinds.vmim, migration(name, vm));
      await sim.run(0);
      return created;
    }

    it('refuses a spec change: 422 Invalid, cause FieldValueNotSupported without a field', async () => {
      await inFlight('mig-s', 'ms-1');
      const err = expectStatusError(() => sim.store.patch(sim.kinds.vmim, 'default', 'ms-1', 'merge', { spec: { vmiName: 'other' } }));
      assert.deepEqual(
        { code: err.status.code, reason: err.status.reason, message: err.status.message, causes: err.status.details?.causes },
        { code: 422, reason: 'Invalid', message: `${UPDATE_DENIED}update of Migration object's spec is restricted`, causes: [{ reason: 'FieldValueNotSupported', message: "update of Migration object's spec is restricted" }] },
      );
    });

    it('refuses removing the selector label from an in-flight migration, cause FieldValueNotSupported', async () => {
      await inFlight('mig-r', 'mr-1');
      const err = expectStatusError(() => sim.store.patch(sim.kinds.vmim, 'default', 'mr-1', 'json', [{ op: 'remove', path: '/metadata/labels' }]));
      assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldValueNotSupported', message: "selector label can't be removed from an in-flight migration" }]);
    });

    it('refuses changing the selector label of an in-flight migration, cause FieldValueNotSupported', async () => {
      await inFlight('mig-l', 'ml-1');
      const err = expectStatusError(() => sim.store.patch(sim.kinds.vmim, 'default', 'ml-1', 'merge', { metadata: { labels: { 'kubevirt.io/vmi-name': 'other' } } }));
      assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldValueNotSupported', message: "selector label can't be modified on an in-flight migration" }]);
    });

    it('admits other label changes on an in-flight migration, the selector label kept', async () => {
      await inFlight('mig-o', 'mo-1');
      const stored = sim.store.patch(sim.kinds.vmim, 'default', 'mo-1', 'merge', { metadata: { labels: { team: 'a' } } }).object;
      assert.deepEqual(stored.metadata.labels, { 'kubevirt.io/vmi-name': 'mig-o', team: 'a' });
    });

    it('admits changing the selector label once the migration has succeeded', async () => {
      await inFlight('mig-d', 'md-1');
      await sim.run(700);
      assert.equal((sim.store.get(sim.kinds.vmim, 'default', 'md-1')!.status as any).phase, 'Succeeded');
      const stored = sim.store.patch(sim.kinds.vmim, 'default', 'md-1', 'merge', { metadata: { labels: { 'kubevirt.io/vmi-name': 'other' } } }).object;
      assert.equal(stored.metadata.labels!['kubevirt.io/vmi-name'], 'other');
    });

    it('admits any label edit of an in-flight migration that never had the selector label (called directly)', () => {
      const validator = migrationWebhooks(sim.kinds).find((h) => h.name === 'migration-update-validator.kubevirt.io')!;
      const old = migration('legacy', 'vmi-a', { team: 'a' }, 'Running');
      const next = migration('legacy', 'vmi-a', undefined, 'Running');
      assert.doesNotThrow(() => validator.validate!({ operation: 'UPDATE', kind: sim.kinds.vmim, object: next, oldObject: old, dryRun: false, store: sim.store }));
    });
  });
});
