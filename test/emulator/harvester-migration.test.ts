/**
 * Live migration as a person triggers it from the Harvester UI (which creates a kubevirt.io/v1
 * VirtualMachineInstanceMigration): KubeVirt's admission rules, the migration phases, the VMI moving to another
 * host (and Harvester re-mirroring that host's topology labels), an unschedulable target, and an abort by
 * deleting the migration. Plus the other host operation a person does from outside: cordon/uncordon.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { AGENT_USERDATA, expectStatusError, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';

function migration(name: string, vmiName: string | undefined): KubeObject {
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', metadata: { name, namespace: 'default' }, spec: vmiName === undefined ? {} : { vmiName } };
}

describe('simulated Harvester: live migration (VirtualMachineInstanceMigration)', () => {
  let sim: HarvesterSim;
  const delays = { vmiSchedule: 100, vmiBoot: 200, guestAgent: 100, migration: 500, migrationUnschedulableTimeout: 3000 };

  beforeEach(async () => {
    sim = await startHarvesterSim({ delays });
  });
  afterEach(() => sim.close());

  const vmi = (name: string): KubeObject | undefined => sim.store.get(sim.kinds.vmi, 'default', name);
  const vmim = (name: string): KubeObject | undefined => sim.store.get(sim.kinds.vmim, 'default', name);
  const status = (o: KubeObject | undefined): Record<string, any> => (o?.status ?? {}) as Record<string, any>;

  async function runningVm(name: string, opts: Parameters<typeof nodeDriverVm>[1] = {}): Promise<string> {
    sim.store.create(sim.kinds.vm, nodeDriverVm(name, { userData: AGENT_USERDATA, ...opts }));
    await sim.run(500);
    assert.equal(status(vmi(name)).phase, 'Running');
    return String(status(vmi(name)).nodeName);
  }

  it('moves a running VMI to another host through the KubeVirt migration phases', async () => {
    const source = await runningVm('mig-a');
    const sourceZone = sim.store.get(sim.kinds.node, undefined, source)!.metadata.labels!['topology.kubernetes.io/zone'];
    assert.equal(vmi('mig-a')!.metadata.annotations!['topology.kubernetes.io/zone'], sourceZone);

    // WHEN a migration is created (the UI's "Migrate" action)
    const created = sim.store.create(sim.kinds.vmim, migration('mig-a-1', 'mig-a'));
    // THEN KubeVirt's mutator labels it with the VMI name and adds its finalizer
    assert.equal(created.metadata.labels!['kubevirt.io/vmi-name'], 'mig-a');
    assert.deepEqual(created.metadata.finalizers, ['kubevirt.io/migrationJobFinalize']);
    await sim.run(0);
    assert.equal(status(vmim('mig-a-1')).phase, 'Scheduling');
    await sim.run(100);
    // the target pod is scheduled and the migration runs: the VM reads Migrating
    assert.equal(status(vmim('mig-a-1')).phase, 'Running');
    const inFlight = status(vmi('mig-a')).migrationState;
    assert.equal(inFlight.sourceNode, source);
    assert.notEqual(inFlight.targetNode, source);
    assert.equal(inFlight.migrationUid, created.metadata.uid);
    assert.equal(inFlight.completed, undefined);
    assert.equal(status(vmi('mig-a')).nodeName, source, 'still on the source until the migration completes');
    assert.equal(status(sim.store.get(sim.kinds.vm, 'default', 'mig-a')).printableStatus, 'Migrating');

    // WHEN the migration delay passes
    await sim.run(500);
    const moved = vmi('mig-a')!;
    const target = String(inFlight.targetNode);
    assert.equal(status(moved).nodeName, target);
    assert.equal(moved.metadata.labels!['kubevirt.io/nodeName'], target);
    assert.equal(status(moved).migrationState.completed, true);
    assert.ok(status(moved).migrationState.endTimestamp);
    assert.equal(status(moved).phase, 'Running');
    assert.equal(status(vmim('mig-a-1')).phase, 'Succeeded');
    assert.deepEqual(
      status(vmim('mig-a-1')).phaseTransitionTimestamps.map((p: any) => p.phase),
      ['Pending', 'Scheduling', 'Scheduled', 'PreparingTarget', 'TargetReady', 'Running', 'Succeeded'],
    );
    assert.equal(status(sim.store.get(sim.kinds.vm, 'default', 'mig-a')).printableStatus, 'Running');
    // AND Harvester mirrors the new host's topology onto the node-driver VMI (a VMI change triggers it)
    const targetZone = sim.store.get(sim.kinds.node, undefined, target)!.metadata.labels!['topology.kubernetes.io/zone'];
    assert.notEqual(targetZone, sourceZone);
    assert.equal(moved.metadata.annotations!['topology.kubernetes.io/zone'], targetZone);
    assert.equal(moved.metadata.annotations!['kubernetes.io/hostname'], target);

    // A finished migration object can be deleted; its finalizer goes at once.
    sim.store.delete(sim.kinds.vmim, 'default', 'mig-a-1');
    await sim.run(0);
    assert.equal(vmim('mig-a-1'), undefined);
  });

  it('admission: the VMI must exist and not be final, vmiName is required, one migration at a time, spec is immutable', async () => {
    const missing = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('m0', 'nope')));
    assert.equal(missing.code, 400);
    assert.equal(missing.status.message, 'admission webhook "migration-create-validator.kubevirt.io" denied the request: the VMI "default/nope" does not exist');
    const noName = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('m1', undefined)));
    assert.equal(noName.code, 422);
    assert.deepEqual((noName.status.details as any).causes.map((c: any) => [c.reason, c.field]), [['FieldValueRequired', 'spec.vmiName']]);

    await runningVm('mig-b');
    const first = sim.store.create(sim.kinds.vmim, migration('m2', 'mig-b'));
    const second = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('m3', 'mig-b')));
    assert.equal(second.code, 400);
    assert.equal(
      second.status.message,
      `admission webhook "migration-create-validator.kubevirt.io" denied the request: in-flight migration detected. Active migration job (${first.metadata.uid}) is currently already in progress for VMI mig-b.`,
    );
    const changed = expectStatusError(() => sim.store.patch(sim.kinds.vmim, 'default', 'm2', 'merge', { spec: { vmiName: 'other' } }));
    assert.equal(changed.code, 422);
    assert.match(changed.status.message ?? '', /update of Migration object's spec is restricted$/);
    // Once the first one is done, another migration is accepted.
    await sim.run(700);
    assert.equal(status(vmim('m2')).phase, 'Succeeded');
    sim.store.create(sim.kinds.vmim, migration('m3', 'mig-b'));
  });

  it('admission: refuses a finished VMI, and the selector label of an in-flight migration cannot change or go', async () => {
    const prefix = (hook: string) => `admission webhook "${hook}" denied the request: `;
    await runningVm('mig-c');
    sim.store.create(sim.kinds.vmim, migration('mc-1', 'mig-c'));
    const removed = expectStatusError(() => sim.store.patch(sim.kinds.vmim, 'default', 'mc-1', 'json', [{ op: 'remove', path: '/metadata/labels' }]));
    assert.deepEqual([removed.code, removed.status.message], [422, `${prefix('migration-update-validator.kubevirt.io')}selector label can't be removed from an in-flight migration`]);
    const relabelled = expectStatusError(() => sim.store.patch(sim.kinds.vmim, 'default', 'mc-1', 'merge', { metadata: { labels: { 'kubevirt.io/vmi-name': 'other' } } }));
    assert.deepEqual([relabelled.code, relabelled.status.message], [422, `${prefix('migration-update-validator.kubevirt.io')}selector label can't be modified on an in-flight migration`]);
    // A VMI in a final phase cannot be migrated.
    const live = vmi('mig-c')!;
    sim.store.update(sim.kinds.vmi, { ...live, status: { ...(live.status as object), phase: 'Failed' } }, { subresource: 'status' });
    const final = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('mc-2', 'mig-c')));
    assert.deepEqual([final.code, final.status.message], [400, `${prefix('migration-create-validator.kubevirt.io')}Cannot migrate VMI in finalized state.`]);
  });

  it('a VMI on a ReadWriteOnce volume is not live-migratable, and the webhook says so', async () => {
    const vm = nodeDriverVm('mig-rwo', { userData: AGENT_USERDATA });
    const ann = vm.metadata.annotations!;
    ann['harvesterhci.io/volumeClaimTemplates'] = ann['harvesterhci.io/volumeClaimTemplates'].replace('ReadWriteMany', 'ReadWriteOnce');
    sim.store.create(sim.kinds.vm, vm);
    await sim.run(500);
    const condition = status(vmi('mig-rwo')).conditions.find((c: any) => c.type === 'LiveMigratable');
    const why = 'cannot migrate VMI: PVC mig-rwo-disk-0-abcde is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)';
    assert.deepEqual([condition.status, condition.reason, condition.message], ['False', 'DisksNotLiveMigratable', why]);
    const onVm = status(sim.store.get(sim.kinds.vm, 'default', 'mig-rwo')).conditions.find((c: any) => c.type === 'LiveMigratable');
    assert.equal(onVm.reason, 'DisksNotLiveMigratable', 'the VM carries the VMI condition, as KubeVirt copies it');
    const refused = expectStatusError(() => sim.store.create(sim.kinds.vmim, migration('mig-rwo-1', 'mig-rwo')));
    assert.equal(refused.code, 400);
    assert.equal(refused.status.message, `admission webhook "migration-create-validator.kubevirt.io" denied the request: Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: ${why}`);
  });

  it('a VMI no other host can take keeps Scheduling, then fails after the unschedulable timeout', async () => {
    const pinned = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }] }],
        },
      },
    };
    const source = await runningVm('mig-c', { affinity: pinned });
    assert.equal(source, 'harvester-node-1');
    sim.store.create(sim.kinds.vmim, migration('mig-c-1', 'mig-c'));
    await sim.run(1000);
    assert.equal(status(vmim('mig-c-1')).phase, 'Scheduling');
    assert.equal(status(vmi('mig-c')).migrationState, undefined);
    await sim.run(2100);
    assert.equal(status(vmim('mig-c-1')).phase, 'Failed');
    assert.equal(status(vmi('mig-c')).nodeName, source);
    assert.equal(status(sim.store.get(sim.kinds.vm, 'default', 'mig-c')).printableStatus, 'Running');
  });

  it('deleting an in-flight migration aborts it: the VMI stays on its host', async () => {
    const source = await runningVm('mig-d');
    sim.store.create(sim.kinds.vmim, migration('mig-d-1', 'mig-d'));
    await sim.run(100);
    assert.equal(status(vmim('mig-d-1')).phase, 'Running');
    sim.store.delete(sim.kinds.vmim, 'default', 'mig-d-1');
    await sim.run(0);
    assert.equal(vmim('mig-d-1'), undefined, 'the finalizer is released once the abort is recorded');
    const state = status(vmi('mig-d')).migrationState;
    assert.equal(state.abortStatus, 'Succeeded');
    assert.equal(state.failed, true);
    assert.equal(state.completed, true);
    await sim.run(1000);
    assert.equal(status(vmi('mig-d')).nodeName, source);
  });

  it('a migration whose VMI goes away fails', async () => {
    await runningVm('mig-e');
    sim.store.create(sim.kinds.vmim, migration('mig-e-1', 'mig-e'));
    await sim.run(100);
    sim.store.patch(sim.kinds.vm, 'default', 'mig-e', 'merge', { spec: { runStrategy: 'Halted' } });
    await sim.run(100);
    assert.equal(vmi('mig-e'), undefined);
    assert.equal(status(vmim('mig-e-1')).phase, 'Failed');
  });
});

describe('out-of-band host operations driven by kubectl (cordon, "Migrate")', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 20, vmiBoot: 50, guestAgent: 20, migration: 150 } } });
  });
  after(() => t?.stop());

  it('kubectl create starts a migration, get vmim prints PHASE and VMI, wait sees it succeed on another host', async () => {
    const { store } = t.emulator;
    store.create(t.emulator.harvester!.kinds.vm, nodeDriverVm('kc-mig', { userData: AGENT_USERDATA }));
    await t.kubectlOk(['wait', '--for=jsonpath={.status.phase}=Running', 'vmi/kc-mig', '--timeout=20s']);
    const source = (await t.kubectlOk(['get', 'vmi', 'kc-mig', '-o', 'jsonpath={.status.nodeName}'])).trim();

    const manifest = 'apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstanceMigration\nmetadata: {name: kc-mig-1, namespace: default}\nspec: {vmiName: kc-mig}\n';
    assert.match(await t.kubectlOk(['create', '-f', '-'], { input: manifest }), /virtualmachineinstancemigration\.kubevirt\.io\/kc-mig-1 created/);
    const table = await t.kubectlOk(['get', 'vmim']);
    assert.match(table.split('\n')[0], /^NAME\s+PHASE\s+VMI\s*$/);
    assert.match(table, /kc-mig-1\s+\S+\s+kc-mig/);
    await t.kubectlOk(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'vmim/kc-mig-1', '--timeout=20s']);
    const target = (await t.kubectlOk(['get', 'vmi', 'kc-mig', '-o', 'jsonpath={.status.nodeName}'])).trim();
    assert.notEqual(target, source);
    assert.match(target, /^harvester-node-\d$/);

    // KubeVirt's denials carry no reason: kubectl prints them without one.
    const r = await t.kubectl(['create', '-f', '-'], { input: manifest.replace('kc-mig-1', 'kc-mig-2').replace('vmiName: kc-mig', 'vmiName: nope') });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server: error when creating "STDIN": admission webhook "migration-create-validator\.kubevirt\.io" denied the request: the VMI "default\/nope" does not exist/);
  });

  it('cordoning every host keeps a new VM unschedulable (get nodes says SchedulingDisabled) until one is uncordoned', async () => {
    const nodes = ['harvester-node-0', 'harvester-node-1', 'harvester-node-2'];
    for (const n of nodes) await t.kubectlOk(['cordon', n]);
    assert.equal((await t.kubectlOk(['get', 'nodes'])).match(/\sReady,SchedulingDisabled\s/g)?.length, 3);
    t.emulator.store.create(t.emulator.harvester!.kinds.vm, nodeDriverVm('kc-cordoned'));
    await t.kubectlOk(['wait', '--for=jsonpath={.status.printableStatus}=ErrorUnschedulable', 'vm/kc-cordoned', '--timeout=20s']);
    const message = await t.kubectlOk(['get', 'vm', 'kc-cordoned', '-o', "jsonpath={.status.conditions[?(@.type=='PodScheduled')].message}"]);
    assert.equal(message, '0/3 nodes are available: 3 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..');
    await t.kubectlOk(['uncordon', 'harvester-node-2']);
    await t.kubectlOk(['wait', '--for=jsonpath={.status.phase}=Running', 'vmi/kc-cordoned', '--timeout=20s']);
    assert.equal((await t.kubectlOk(['get', 'vmi', 'kc-cordoned', '-o', 'jsonpath={.status.nodeName}'])).trim(), 'harvester-node-2');
    for (const n of nodes.slice(0, 2)) await t.kubectlOk(['uncordon', n]);
  });
});
