/** The simulated Harvester on a real clock (as startEmulator runs it): short delays, clean stop. */
import { strict as assert } from 'node:assert';
import { ObjectStore } from '../../emulator/api/store';
import { validateObject } from '../../emulator/api/validation';
import { RealClock } from '../../emulator/clock';
import { installHarvester, seedHarvester } from '../../emulator/harvester';
import { createHarvesterRegistry } from '../../emulator/kinds';
import { AGENT_USERDATA, nodeDriverVm } from './harvester-fixture';

describe('simulated Harvester on a real clock', () => {
  const clock = new RealClock();
  const store = new ObjectStore(createHarvesterRegistry(), clock, { validate: validateObject });
  seedHarvester(store);
  const harvester = installHarvester(store, clock, { delays: { vmiSchedule: 5, vmiBoot: 10, guestAgent: 5, imageImport: 20 } });

  after(() => {
    harvester.stop();
    clock.clearAll();
  });

  it('brings a VM to Running with an IP, watched through the store', async () => {
    const seen: string[] = [];
    const running = new Promise<void>((resolve) => {
      const w = store.watch(harvester.kinds.vmi, {}, (event) => {
        const st = (event.object as any).status ?? {};
        if (st.phase && seen[seen.length - 1] !== st.phase) seen.push(st.phase);
        if (st.phase === 'Running' && st.interfaces?.[0]?.ipAddress) {
          w.stop();
          resolve();
        }
      });
    });
    store.create(harvester.kinds.vm, nodeDriverVm('rt', { userData: AGENT_USERDATA }));
    await running;
    assert.deepEqual(seen, ['Pending', 'Scheduling', 'Scheduled', 'Running']);
    assert.deepEqual(harvester.errors(), []);
  });

  it('seeding twice is harmless', () => {
    const before = store.resourceVersion();
    seedHarvester(store);
    assert.equal(store.resourceVersion(), before);
  });
});
