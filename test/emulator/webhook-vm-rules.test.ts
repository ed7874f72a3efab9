/**
 * Harvester's VirtualMachine webhooks (pkg/webhook/resources/virtualmachine/mutator.go, validator.go; tag v1.6.1
 * for the validator's wording), beyond harvester-vm/-volumes/-capacity tests: the node affinity a VM network adds
 * (a bare NAD name is looked up in the VM's namespace; a NAD without the cluster-network label adds none; stale
 * cpumanager rules go), each 422's cause field, the reservedMemory rules (reached in the validator when the
 * overcommit-config Setting is absent: the mutator then skips, as getOvercommit does on NotFound), when an update
 * recomputes requests, the 10Mi guest floor, and what "stopped" means for a resize under volumeResizeRequiresStop.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { AGENT_USERDATA, expectStatusError, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

const VALIDATOR = 'admission webhook "validator.harvesterhci.io" denied the request: ';
const MUTATOR = 'admission webhook "mutator.harvesterhci.io" denied the request: ';
const RESERVED = 'harvesterhci.io/reservedMemory';
const RESERVED_FIELD = `metadata.annotations[${RESERVED}]`;
const TEMPLATES = 'harvesterhci.io/volumeClaimTemplates';

type Obj = Record<string, any>;
const podSpec = (vm: KubeObject): Obj => (vm.spec as Obj).template.spec;

/** The 422 as the client sees it: message and causes. */
function invalid(fn: () => unknown): { code?: number; message?: string; causes?: unknown } {
  const err = expectStatusError(fn);
  return { code: err.status.code, message: err.status.message, causes: err.status.details?.causes };
}
const cause = (message: string, field: string) => [{ reason: 'FieldValueInvalid', message, field }];

describe('Harvester VM webhooks: affinity, cause fields, reservedMemory, recomputed requests, resize when stopped', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 50, vmiBoot: 100, guestAgent: 50 } });
  });
  afterEach(() => sim.close());

  const getVm = (name: string) => sim.store.get(sim.kinds.vm, 'default', name)!;
  const requiredTerms = (vm: KubeObject) => podSpec(vm).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const MGMT_RULE = { key: 'network.harvesterhci.io/mgmt', operator: 'In', values: ['true'] };

  describe('mutator: node affinity from the networks', () => {
    it('looks a bare network name up in the VM namespace', () => {
      const vm = sim.store.create(sim.kinds.vm, nodeDriverVm('bare-name', { network: 'vm-net' }));
      assert.deepEqual(requiredTerms(vm), [{ matchExpressions: [MGMT_RULE] }]);
    });

    it('adds no rule for a NAD without the cluster-network label (upstream: no requirement)', () => {
      const config = { cniVersion: '0.3.1', name: 'unlabelled', type: 'bridge', bridge: 'mgmt-br', promiscMode: true, vlan: 200, ipam: {} };
      sim.store.create(sim.kinds.nad, { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name: 'unlabelled', namespace: 'default' }, spec: { config: JSON.stringify(config) } });
      const vm = sim.store.create(sim.kinds.vm, nodeDriverVm('no-label', { network: 'default/unlabelled' }));
      assert.equal(requiredTerms(vm), undefined);
    });

    it('drops a stale cpumanager rule from a VM without dedicated CPUs, keeping the user\'s rules', () => {
      const zone = { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a'] };
      const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [zone, { key: 'cpumanager', operator: 'In', values: ['true'] }] }] } } };
      const vm = sim.store.create(sim.kinds.vm, nodeDriverVm('stale-cpu', { affinity }));
      assert.deepEqual(requiredTerms(vm), [{ matchExpressions: [zone, MGMT_RULE] }]);
    });
  });

  describe('validator: the field of each 422', () => {
    it('an annotation that does not parse: field metadata.annotations', () => {
      const vm = nodeDriverVm('bad-json');
      vm.metadata.annotations![TEMPLATES] = '[{';
      const got = invalid(() => sim.store.create(sim.kinds.vm, vm));
      assert.equal(got.code, 422);
      assert.deepEqual((got.causes as Obj[]).map((c) => c.field), ['metadata.annotations']);
      assert.match(got.message!, /^admission webhook "validator\.harvesterhci\.io" denied the request: the volumeClaimTemplates annotaion is invalid: /);
    });

    it('a template without a PVC name: field metadata.annotations', () => {
      const vm = nodeDriverVm('no-pvc-name');
      vm.metadata.annotations![TEMPLATES] = JSON.stringify([{ metadata: {}, spec: {} }]);
      const message = 'the volumeClaimTemplates annotaion is invalid: PVC name is required';
      assert.deepEqual(invalid(() => sim.store.create(sim.kinds.vm, vm)), { code: 422, message: VALIDATOR + message, causes: cause(message, 'metadata.annotations') });
    });

    it('a PVC another VM uses: field spec.templates.spec.volumes', () => {
      sim.store.create(sim.kinds.vm, nodeDriverVm('owner', { claims: [{ name: 'shared-disk', storage: '10Gi' }] }));
      const message = 'the volume shared-disk is already used by VM default/owner';
      assert.deepEqual(invalid(() => sim.store.create(sim.kinds.vm, nodeDriverVm('thief', { claims: [{ name: 'shared-disk', storage: '10Gi' }] }))), {
        code: 422,
        message: VALIDATOR + message,
        causes: cause(message, 'spec.templates.spec.volumes'),
      });
    });

    it('a negative termination grace period: field spec.Template.Spec.TerminationGracePeriodSeconds', () => {
      const vm = nodeDriverVm('grace');
      podSpec(vm).terminationGracePeriodSeconds = -1;
      const message = "Termination grace period can't be negative";
      assert.deepEqual(invalid(() => sim.store.create(sim.kinds.vm, vm)), { code: 422, message: VALIDATOR + message, causes: cause(message, 'spec.Template.Spec.TerminationGracePeriodSeconds') });
    });
  });

  describe('validator: reservedMemory', () => {
    const withReserved = (name: string, reserved: string) => {
      const vm = nodeDriverVm(name);
      vm.metadata.annotations![RESERVED] = reserved;
      return vm;
    };
    const dropOvercommit = () => sim.store.delete(sim.kinds.setting, undefined, 'overcommit-config');

    it('refuses a negative value', () => {
      const message = 'reservedMemory cannot be less than 0';
      assert.deepEqual(invalid(() => sim.store.create(sim.kinds.vm, withReserved('neg', '-1Mi'))), { code: 422, message: VALIDATOR + message, causes: cause(message, RESERVED_FIELD) });
    });

    it('admits zero', () => {
      sim.store.create(sim.kinds.vm, withReserved('zero', '0'));
      assert.equal(getVm('zero').metadata.annotations![RESERVED], '0');
    });

    it('refuses a value equal to limits.memory (the mutator skipped: no overcommit-config)', () => {
      dropOvercommit();
      const message = 'reservedMemory cannot be equal or greater than limits.memory';
      assert.deepEqual(invalid(() => sim.store.create(sim.kinds.vm, withReserved('equal', '4Gi'))), { code: 422, message: VALIDATOR + message, causes: cause(message, RESERVED_FIELD) });
    });

    it('refuses a value that is not a quantity (the mutator skipped: no overcommit-config)', () => {
      dropOvercommit();
      const message = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
      assert.deepEqual(invalid(() => sim.store.create(sim.kinds.vm, withReserved('nonsense', 'lots'))), { code: 422, message: VALIDATOR + message, causes: cause(message, RESERVED_FIELD) });
    });

    it('refuses guest memory plus reservedMemory over limits.memory, in bytes (an update that keeps the limits)', () => {
      sim.store.create(sim.kinds.vm, withReserved('over', '256Mi'));
      const vm = getVm('over');
      podSpec(vm).domain.memory.guest = '3900Mi'; // the mutator left 3840Mi; limits and annotation unchanged
      const message = 'guest memory 4089446400 plus reservedMemory 268435456 cannot be greater than limits.memory 4294967296';
      assert.deepEqual(invalid(() => sim.store.update(sim.kinds.vm, vm)), { code: 422, message: VALIDATOR + message, causes: cause(message, RESERVED_FIELD) });
    });

    it('admits guest memory plus reservedMemory equal to limits.memory', () => {
      sim.store.create(sim.kinds.vm, withReserved('exact', '256Mi'));
      assert.equal(podSpec(getVm('exact')).domain.memory.guest, '3840Mi');
    });

    it('admits a value just under limits.memory (the mutator skipped: no overcommit-config)', () => {
      dropOvercommit();
      sim.store.create(sim.kinds.vm, withReserved('under', '4095Mi'));
      assert.equal(getVm('under').metadata.annotations![RESERVED], '4095Mi');
    });
  });

  describe('mutator: requests on update, the guest floor', () => {
    it('recomputes guest memory when only the reservedMemory annotation changes', () => {
      sim.store.create(sim.kinds.vm, nodeDriverVm('res-upd'));
      assert.equal(podSpec(getVm('res-upd')).domain.memory.guest, '4Gi');
      const updated = sim.store.patch(sim.kinds.vm, 'default', 'res-upd', 'merge', { metadata: { annotations: { [RESERVED]: '256Mi' } } }).object;
      assert.equal(podSpec(updated).domain.memory.guest, '3840Mi');
    });

    it('recomputes the CPU request when dedicated CPU placement is switched on', () => {
      sim.store.create(sim.kinds.vm, nodeDriverVm('dedicated', { runStrategy: 'Halted' }));
      assert.equal(podSpec(getVm('dedicated')).domain.resources.requests.cpu, '125m');
      const updated = sim.store.patch(sim.kinds.vm, 'default', 'dedicated', 'merge', { spec: { template: { spec: { domain: { cpu: { dedicatedCpuPlacement: true } } } } } }).object;
      assert.equal(podSpec(updated).domain.resources.requests.cpu, '2');
    });

    it('refuses guest memory under 10Mi, in bytes', () => {
      const vm = nodeDriverVm('tiny');
      podSpec(vm).domain.resources.limits.memory = '5Mi';
      const err = expectStatusError(() => sim.store.create(sim.kinds.vm, vm));
      assert.deepEqual([err.status.code, err.status.message], [500, `${MUTATOR}guest memory is under the minimum requirement (10 Mi), original: 5242880, final: 5242880`]);
    });
  });

  describe('validator: growing a volume with volumeResizeRequiresStop', () => {
    beforeEach(async () => {
      sim.close();
      sim = await startHarvesterSim({ volumeResizeRequiresStop: true, delays: { vmiSchedule: 50, vmiBoot: 100, guestAgent: 50 } });
    });
    const grow = (name: string) => {
      const vm = getVm(name);
      const templates = JSON.parse(vm.metadata.annotations![TEMPLATES]);
      templates[0].spec.resources.requests.storage = '20Gi';
      vm.metadata.annotations![TEMPLATES] = JSON.stringify(templates);
      return () => sim.store.update(sim.kinds.vm, vm);
    };
    const STOP_FIRST = `${VALIDATOR}please stop the VM before resizing volumes`;

    it('a VM asked to run is not stopped even before its VMI exists', () => {
      sim.store.create(sim.kinds.vm, nodeDriverVm('starting', { userData: AGENT_USERDATA }));
      assert.equal(sim.store.get(sim.kinds.vmi, 'default', 'starting'), undefined);
      assert.equal(invalid(grow('starting')).message, STOP_FIRST);
    });

    it('a halted VM whose VMI is still there is not stopped yet', async () => {
      sim.store.create(sim.kinds.vm, nodeDriverVm('stopping', { userData: AGENT_USERDATA }));
      await sim.run(300);
      sim.store.patch(sim.kinds.vm, 'default', 'stopping', 'merge', { spec: { runStrategy: 'Halted' } });
      assert.ok(sim.store.get(sim.kinds.vmi, 'default', 'stopping'), 'the VMI has not gone yet');
      assert.equal(invalid(grow('stopping')).message, STOP_FIRST);
    });
  });
});
