/**
 * The guest cluster's cloud provider as TopologyLabels sees it: its Deployment (where the version is read from)
 * and the oldest versions, which copy no region/zone at all (below v0.1.4: cloud-provider-harvester#21).
 */
import { strict as assert } from 'node:assert';
import { ObjectStore } from '../../emulator/api/store';
import { validateObject } from '../../emulator/api/validation';
import { installGuestCluster } from '../../emulator/harvester';
import { createGuestRegistry, KINDS } from '../../emulator/kinds';
import { deploymentKind } from '../../emulator/kinds';
import { AGENT_USERDATA, nodeDriverVm, settle, startHarvesterSim } from './harvester-fixture';

async function guestWith(ccmVersion: string) {
  const sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 50, guestAgent: 20 } });
  const guest = new ObjectStore(createGuestRegistry(), sim.clock, { validate: validateObject });
  const handle = installGuestCluster(guest, sim.store, sim.clock, { clusterName: 'gc1', ccmVersion, delays: { nodeRegister: 50, ccmInit: 20, kubeVip: 20 } });
  const run = async (ms: number) => {
    for (let t = 0; t <= ms; t += 10) {
      for (let i = 0; i < 5; i++) {
        await settle(guest, sim.clock);
        await settle(sim.store, sim.clock);
      }
      if (t < ms) sim.clock.advance(Math.min(10, ms - t));
    }
  };
  const stop = () => {
    handle.stop();
    assert.deepEqual(handle.errors(), []);
    sim.close();
  };
  return { sim, guest, run, stop };
}

describe('guest cluster: the cloud provider seen by TopologyLabels', () => {
  it('runs the cloud provider as Deployment kube-system/harvester-cloud-provider, its image tagged with the version', async () => {
    const w = await guestWith('v0.2.4');
    try {
      const d = w.guest.get(deploymentKind, 'kube-system', 'harvester-cloud-provider')!;
      const containers = (d.spec as any).template.spec.containers;
      assert.deepEqual(containers.map((c: any) => [c.name, c.image]), [['harvester-cloud-provider', 'rancher/harvester-cloud-provider:v0.2.4']]);
      assert.ok(containers[0].args.includes('--cluster-name=gc1'));
    } finally {
      w.stop();
    }
  });

  it('below v0.1.4 initialises guest nodes without region or zone (no topology in InstanceMetadata)', async () => {
    const w = await guestWith('v0.1.3');
    try {
      w.sim.store.create(w.sim.kinds.vm, nodeDriverVm('gc1-old-a', { cluster: 'gc1', userData: AGENT_USERDATA }));
      await w.run(400);
      const vmi = w.sim.store.get(w.sim.kinds.vmi, 'default', 'gc1-old-a')!;
      assert.ok(vmi.metadata.annotations!['topology.kubernetes.io/zone'], 'Harvester still mirrors the host labels onto the VMI');
      const node = w.guest.get(KINDS.node, undefined, 'gc1-old-a')!;
      assert.ok((node.spec as any).providerID, 'initialised');
      assert.equal(node.metadata.labels!['topology.kubernetes.io/zone'], undefined);
      assert.equal(node.metadata.labels!['topology.kubernetes.io/region'], undefined);
    } finally {
      w.stop();
    }
  });
});
