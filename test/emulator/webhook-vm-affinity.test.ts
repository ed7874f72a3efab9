/**
 * The node affinity Harvester's VM mutator writes (emulator/webhooks/vm-affinity.ts; harvester
 * pkg/webhook/resources/virtualmachine/mutator.go patchAffinity, makeAffinityFromVMTemplate, addNodeSelectorTerms,
 * getNodeSelectorRequirementFromNetwork; docs/design/harvester-vms.md §"Node affinity from networks"): the mutator is
 * called in process on a fixed set of NADs, so any cluster-network label can be tried; the refusal of a VM whose
 * NAD does not exist also goes through a running simulation, as a client sees it.
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject, StoreReader } from '../../emulator/api/types';
import { harvesterKinds, HarvesterKinds } from '../../emulator/controllers/kinds';
import { createHarvesterRegistry } from '../../emulator/kinds';
import { virtualMachineWebhooks } from '../../emulator/webhooks/virtual-machine';
import { expectStatusError, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

type Obj = Record<string, any>;
const kinds: HarvesterKinds = harvesterKinds(createHarvesterRegistry());
const [mutator] = virtualMachineWebhooks(kinds, { volumeResizeRequiresStop: false });
const CN_LABEL = 'network.harvesterhci.io/clusternetwork';
const MUTATOR_DENIED = 'admission webhook "mutator.harvesterhci.io" denied the request: ';

function nad(namespace: string, name: string, clusterNetwork?: string): KubeObject {
  const labels: Record<string, string> = clusterNetwork === undefined ? {} : { [CN_LABEL]: clusterNetwork };
  return { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { namespace, name, labels }, spec: { config: '{}' } };
}

/** The NADs the mutator's cache holds: `zeta` and `alpha` on their own cluster networks, `plain` unlabelled. */
const NADS = [nad('default', 'zeta-net', 'zeta'), nad('default', 'alpha-net', 'alpha'), nad('other', 'mgmt-net', 'mgmt'), nad('default', 'plain')];
const reader: StoreReader = {
  get: (kind, ns, name) => (kind === kinds.nad ? NADS.find((o) => o.metadata.namespace === ns && o.metadata.name === name) : undefined),
  list: () => ({ items: [], resourceVersion: '1' }),
  listShared: () => ({ items: [], resourceVersion: '1' }),
};

/** A VM on `networks` (Multus names) with `affinity`, as the mutator leaves it on create (or update). */
function mutated(networks: string[], affinity?: Obj, extra: { dedicatedCpu?: boolean; operation?: 'CREATE' | 'UPDATE' } = {}): Obj {
  const vm = nodeDriverVm('vm', { affinity });
  const spec = (vm.spec as Obj).template.spec;
  spec.networks = networks.map((networkName, i) => ({ name: `nic-${i}`, multus: { networkName } }));
  if (extra.dedicatedCpu) spec.domain.cpu.dedicatedCpuPlacement = true;
  const operation = extra.operation ?? 'CREATE';
  const req: AdmissionRequest = { operation, kind: kinds.vm, dryRun: false, object: vm, oldObject: operation === 'UPDATE' ? structuredClone(vm) : undefined, store: reader };
  mutator.mutate!(req);
  return (req.object!.spec as Obj).template.spec;
}

const rule = (key: string) => ({ key, operator: 'In', values: ['true'] });
const required = (...terms: Obj[][]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })) } } });
const ZONE = { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a'] };

describe('Harvester VM mutator: node affinity as upstream rebuilds it', () => {
  it('keeps the order of the VM networks, not the cluster networks sorted', () => {
    assert.deepEqual(mutated(['default/zeta-net', 'alpha-net']).affinity, required([rule('network.harvesterhci.io/zeta'), rule('network.harvesterhci.io/alpha')]));
  });

  it('adds one rule for a cluster network two networks share', () => {
    assert.deepEqual(mutated(['zeta-net', 'default/zeta-net']).affinity, required([rule('network.harvesterhci.io/zeta')]));
  });

  it('beside a user\'s rule of the same shape on another key, adds the network rule once per term', () => {
    const gpu = rule('gpu');
    assert.deepEqual(mutated(['zeta-net', 'default/zeta-net'], required([gpu], [ZONE])).affinity, required([gpu, rule('network.harvesterhci.io/zeta')], [ZONE, rule('network.harvesterhci.io/zeta')]));
  });

  it('clears stale network and cpumanager rules from a VM that asks for none, leaving an empty affinity', () => {
    const stale = required([rule('network.harvesterhci.io/mgmt'), rule('cpumanager')]);
    assert.deepEqual(mutated(['plain'], stale).affinity, {});
  });

  it('clears them on update too', () => {
    const stale = required([ZONE, rule('network.harvesterhci.io/gone')]);
    assert.deepEqual(mutated(['plain'], stale, { operation: 'UPDATE' }).affinity, required([ZONE]));
  });

  it('writes an empty affinity for a VM without networks rules or an affinity of its own', () => {
    assert.deepEqual(mutated(['plain']).affinity, {});
  });

  it('drops a term that only held Harvester rules, keeping the other terms', () => {
    const affinity = required([rule('network.harvesterhci.io/old')], [ZONE]);
    assert.deepEqual(mutated(['alpha-net'], affinity).affinity, required([ZONE, rule('network.harvesterhci.io/alpha')]));
  });

  it('drops a term with matchFields only: upstream keeps a term by its matchExpressions alone', () => {
    const byName = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }] } } };
    assert.deepEqual(mutated(['alpha-net'], byName).affinity, required([rule('network.harvesterhci.io/alpha')]));
  });

  it("replaces the user's requirement on the same key with another operator", () => {
    const notIn = { key: 'network.harvesterhci.io/alpha', operator: 'NotIn', values: ['true'] };
    assert.deepEqual(mutated(['alpha-net'], required([ZONE, notIn])).affinity, required([ZONE, rule('network.harvesterhci.io/alpha')]));
  });

  it('keeps preferred terms and drops only the required part when no rule is left', () => {
    const preferred = [{ weight: 1, preference: { matchExpressions: [ZONE] } }];
    const affinity = { nodeAffinity: { ...required([rule('cpumanager')]).nodeAffinity, preferredDuringSchedulingIgnoredDuringExecution: preferred } };
    assert.deepEqual(mutated(['plain'], affinity).affinity, { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } });
  });

  it('appends cpumanager after the network rules with dedicated CPUs', () => {
    assert.deepEqual(mutated(['other/mgmt-net'], undefined, { dedicatedCpu: true }).affinity, required([rule('network.harvesterhci.io/mgmt'), rule('cpumanager')]));
  });

  it('refuses a network name with more than one slash (500, the plain error)', () => {
    const err = expectStatusError(() => mutated(['a/b/c']));
    assert.deepEqual([err.status.code, err.status.reason, err.status.message], [500, 'InternalError', `${MUTATOR_DENIED}invalid network name a/b/c`]);
  });

  it('refuses a VM whose NAD does not exist: the cache NotFound as a 500, through the API', async () => {
    const sim = await startHarvesterSim();
    try {
      const err = expectStatusError(() => sim.store.create(sim.kinds.vm, nodeDriverVm('lost', { network: 'default/missing-net' })));
      assert.deepEqual(
        { code: err.status.code, reason: err.status.reason, message: err.status.message, details: err.status.details },
        { code: 500, reason: 'InternalError', message: `${MUTATOR_DENIED}network-attachment-definitions.k8s.cni.cncf.io "missing-net" not found`, details: undefined },
      );
      assert.equal(sim.store.get(sim.kinds.vm, 'default', 'lost'), undefined);
    } finally {
      sim.close();
    }
  });
});
