/**
 * The readiness wait and a VM no host can take (unschedulable.ts, apply.ts), against an emulator of two small hosts:
 * a VM the scheduler could not place is reported at once, but only after the capacity is read afresh: when the room
 * came back in between (another workload went), the wait goes on and the scheduler places the VM; and a VM waiting
 * for the room of one this update deletes is never reported (the scheduler places it once that room is back).
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { validateInputs } from '../../provider/resources/machine-pool/validate';
import { sizedVm } from '../emulator/harvester-fixture';
import { eventually, startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';

const pinned = (host: string) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] } } });

describe('machine pool: a VM no host can take, during up', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const progress: string[] = [];
  const provider = createMachinePoolProvider({ connect: fastConnect(4), onProgress: (line) => progress.push(line) });
  before(async () => {
    // 8 cores, 1 taken by Harvester's own pods: 6020m free, eleven 8-vCPU VMs (505m each at cpu 1600%).
    t = await startTestEmulator({
      hosts: { count: 2, cpu: '8', memory: '32Gi', systemRequests: { cpu: '1', memory: '4Gi' } },
      harvester: { delays: { vmiSchedule: 5, vmiBoot: 10, guestAgent: 10, imageImport: 10 } },
    });
  });
  after(() => t?.stop());

  const kinds = () => t.emulator.harvester!.kinds;
  const inputsOf = (name: string, extra: Record<string, unknown>) =>
    validateInputs({
      kubeconfig: t.emulator.kubeconfig,
      name,
      cpu: 8,
      memory: '2Gi',
      disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }],
      networks: [{ network: 'default/vm-net' }],
      timeouts: { create: '30s', update: '30s', delete: '30s' },
      ...extra,
    }).inputs!;
  const running = (names: string[]) =>
    eventually(() => names.every((n) => (t.emulator.store.get(kinds().vm, 'default', n)?.status as { printableStatus?: string } | undefined)?.printableStatus === 'Running'), `${names.join(', ')} running`);

  it('keeps waiting when the room came back before the capacity was read, and the scheduler places the VM', async () => {
    const theirs = Array.from({ length: 11 }, (_, i) => `theirs-${i}`);
    for (const name of theirs) t.emulator.store.create(kinds().vm, sizedVm(name, 8, '2Gi', {}, { affinity: pinned('harvester-node-0') }));
    await running(theirs);
    const mark = t.emulator.journal.mark();
    // The fresh read of the pods is slow; meanwhile the other workload goes.
    t.emulator.faults.add({ name: 'slow-pods', match: { verb: 'list', resource: 'pods' }, action: { type: 'latency', ms: 1500 }, times: 1 });
    const creating = provider.create(inputsOf('patient', { count: 1, affinity: pinned('harvester-node-0') }) as never);
    await eventually(() => t.emulator.journal.entries({ since: mark, verb: 'list', resource: 'pods' }).length > 0, 'the pods read under way');
    for (const name of theirs) t.emulator.store.delete(kinds().vm, 'default', name);
    const created = await creating;
    assert.equal(created.outs!.readyCount, 1);
    assert.ok(progress.includes('patient-0: not placed yet, but the hosts have room for it now; waiting for the scheduler'), progress.join('\n'));
    await provider.delete(created.id, created.outs as unknown as Record<string, unknown>);
  });

  it('a roll on a full host: each replacement waits for the room of the VM it replaces and is never reported', async () => {
    // Eleven VMs fill harvester-node-1; with maxSurge 0 each replacement needs the room of the VM deleted first.
    const program = { count: 11, affinity: pinned('harvester-node-1'), rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
    const created = await provider.create(inputsOf('full', program) as never);
    assert.equal(created.outs!.readyCount, 11);
    const olds = created.outs as unknown as MachinePoolOutputs;
    const updated = await provider.update(created.id, olds as never, inputsOf('full', { ...program, userData: '#cloud-config\nhostname: rolled\n' }) as never);
    assert.equal(updated.outs!.readyCount, 11);
    assert.deepEqual(updated.outs!.machines.map((m) => m.index), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21], 'every VM replaced');
    await provider.delete(created.id, updated.outs as unknown as Record<string, unknown>);
    const ours = t.emulator.store.list(KINDS.pod, { namespace: 'default' }).items.filter((p) => p.metadata.labels?.['vm.kubevirt.io/name']?.startsWith('full-'));
    assert.deepEqual(ours, [], 'destroy leaves no launcher pod of the pool');
  });
});
