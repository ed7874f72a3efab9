import assert from 'node:assert/strict';
import type { VirtualMachine } from '../../../../../provider/client/objects';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { inputForPath, vmDifferences, type MachineDifference } from '../../../../../provider/resources/machine-pool/normalize';
import { asHarvesterServes, context, inputs } from './fixtures';

type Obj = Record<string, any>;
const CLAIMS = 'harvesterhci.io/volumeClaimTemplates';
const SSH = 'harvesterhci.io/sshNames';

/** The differences after `edit` changes a copy of what Harvester serves for the pool's first VM. */
function diffsAfter(edit: (live: Obj) => void, args: Partial<MachinePoolArgs> = {}): MachineDifference[] {
  const desired = desiredVirtualMachines(inputs(args), context()).machines[0].vm;
  const live = asHarvesterServes(desired);
  edit(live as unknown as Obj);
  return vmDifferences(live, desired);
}
const rolled = (input: string, path: string, detail: string): MachineDifference => ({ input, path, detail, inPlace: false });

/** Edits the first claim template in the live VM's volumeClaimTemplates annotation. */
const editClaim = (change: (t: Obj, list: Obj[]) => void) => (live: Obj) => {
  const list = JSON.parse(live.metadata.annotations[CLAIMS]) as Obj[];
  change(list[0], list);
  live.metadata.annotations[CLAIMS] = JSON.stringify(list);
};
const CLAIMS_DIFFER = rolled('disks', `metadata.annotations["${CLAIMS}"]`, 'volume claim templates (disk size, image or storage class) differ');

describe('machine-pool drift details', () => {
  it('names each user label that is missing, extra or changed, in key order, patched in place', () => {
    const diffs = diffsAfter((live) => {
      const labels = live.metadata.labels;
      delete labels.keep;
      labels.team = 'b';
      labels.added = '1';
    }, { labels: { team: 'a', keep: 'x' } });
    const at = (key: string, detail: string) => ({ input: 'labels', path: `metadata.labels["${key}"]`, detail, inPlace: true });
    assert.deepEqual(diffs, [at('added', 'added is set but not in inputs'), at('keep', 'keep is missing'), at('team', 'team is "b", inputs say "a"')]);
  });

  it('treats a key that only starts like an exact reserved key as a user label', () => {
    const diffs = diffsAfter((live) => { live.metadata.labels['app.kubernetes.io/managed-by-team'] = 'x'; });
    const key = 'app.kubernetes.io/managed-by-team';
    assert.deepEqual(diffs, [{ input: 'labels', path: `metadata.labels["${key}"]`, detail: `${key} is set but not in inputs`, inPlace: true }]);
  });

  it('names a changed system label by the input that sets it, and rolls the VM', () => {
    const diffs = diffsAfter((live) => {
      live.metadata.labels['harvesterhci.io/machineSetName'] = 'other';
      live.metadata.labels['harvester-iac.io/pool-index'] = '7';
    });
    assert.deepEqual(diffs, [
      rolled('labels', 'metadata.labels["harvester-iac.io/pool-index"]', 'harvester-iac.io/pool-index is "7", inputs say "0"'),
      rolled('guestCluster', 'metadata.labels["harvesterhci.io/machineSetName"]', 'harvesterhci.io/machineSetName is "other", inputs say "default-pool-a"'),
    ]);
  });

  it('reports changed cloud-init hashes without their content', () => {
    const diffs = diffsAfter((live) => {
      live.metadata.annotations['harvester-iac.io/user-data-hash'] = 'hmac-sha256:0';
      live.metadata.annotations['harvester-iac.io/network-data-hash'] = 'hmac-sha256:1';
    });
    assert.deepEqual(diffs, [
      rolled('userData', 'metadata.annotations["harvester-iac.io/user-data-hash"]', 'cloud-init user data differs (userData, guestAgent or sshKeys)'),
      rolled('networkData', 'metadata.annotations["harvester-iac.io/network-data-hash"]', 'cloud-init network data differs'),
    ]);
  });

  const sshPath = `spec.template.metadata.annotations["${SSH}"]`;
  const sshCases: [string, string | undefined, string[], string][] = [
    ['another key', '["default/other"]', ['ops-key'], 'key pairs are "default/other", inputs say "default/ops-key"'],
    ['one more key', '["default/ops-key","default/other"]', ['ops-key'], 'key pairs are "default/ops-key, default/other", inputs say "default/ops-key"'],
    ['an unreadable list', 'not json', [], 'key pairs are "", inputs say ""'],
    ['two wanted, one live', '["default/ops-key"]', ['ops-key', 'other'], 'key pairs are "default/ops-key", inputs say "default/ops-key, default/other"'],
    ['no annotation', undefined, [], 'key pairs are "", inputs say ""'],
  ];
  for (const [name, live, sshKeys, detail] of sshCases) {
    it(`names the live and wanted key pairs: ${name}`, () => {
      const ctx = { 'default/ops-key': 'k1', 'default/other': 'k2' };
      const desired = desiredVirtualMachines(inputs({ sshKeys }), context({ keyPairPublicKeys: ctx })).machines[0].vm;
      const vm = asHarvesterServes(desired) as Obj;
      if (live === undefined) delete vm.spec.template.metadata.annotations[SSH];
      else vm.spec.template.metadata.annotations[SSH] = live;
      assert.deepEqual(vmDifferences(vm as VirtualMachine, desired), [rolled('sshKeys', sshPath, detail)]);
    });
  }

  it('sees no key-pair drift when the live list is the wanted one', () => {
    const desired = desiredVirtualMachines(inputs({ sshKeys: ['ops-key'] }), context()).machines[0].vm;
    assert.deepEqual(vmDifferences(asHarvesterServes(desired), desired), []);
  });

  const zoneTerm = (zone: string) => ({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] }] } });
  const zoneCases: [string, string[], Obj | undefined, string][] = [
    ['moved to another zone', ['z1'], zoneTerm('z2'), 'zone is "z2", should be "z1"'],
    ['unpinned', ['z1'], undefined, 'zone is "none", should be "z1"'],
    ['pinned without zones', [], zoneTerm('z2'), 'zone is "z2", should be "none"'],
  ];
  for (const [name, zones, nodeAffinity, detail] of zoneCases) {
    it(`names a zone change: ${name}`, () => {
      const diffs = diffsAfter((live) => {
        const aff = live.spec.template.spec.affinity;
        if (nodeAffinity) aff.nodeAffinity = nodeAffinity;
        else delete aff.nodeAffinity;
      }, { zones });
      assert.deepEqual(diffs, [rolled('zones', 'spec.template.spec.affinity', detail)]);
    });
  }

  it('reports user affinity added out of band', () => {
    const diffs = diffsAfter((live) => { live.spec.template.spec.affinity.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [] }; });
    assert.deepEqual(diffs, [rolled('affinity', 'spec.template.spec.affinity', 'affinity differs')]);
  });

  it('names a non-leaf spec difference by its path', () => {
    const diffs = diffsAfter((live) => { live.spec.template.spec.domain.devices.interfaces.push({ name: 'nic-9', bridge: {} }); });
    assert.deepEqual(diffs.map((d) => [d.input, d.detail]), [['networks', 'template.spec.domain.devices.interfaces differs']]);
  });

  const claimCases: [string, (t: Obj, list: Obj[]) => void][] = [
    ['storage class', (t) => { t.spec.storageClassName = 'other'; }],
    ['image', (t) => { t.metadata.annotations['harvesterhci.io/imageId'] = 'default/other'; }],
    ['volume mode', (t) => { t.spec.volumeMode = 'Filesystem'; }],
    ['access modes', (t) => { t.spec.accessModes = ['ReadWriteOnce']; }],
    ['one more template', (t, list) => { list.push(t); }],
  ];
  for (const [name, change] of claimCases) {
    it(`reports a claim template edit: ${name}`, () => assert.deepEqual(diffsAfter(editClaim(change)), [CLAIMS_DIFFER]));
  }

  it('ignores a claim template respelt (size by value, key order)', () => {
    assert.deepEqual(diffsAfter(editClaim((t) => { t.spec.resources.requests.storage = '40960Mi'; t.spec = { ...t.spec }; })), []);
  });
});

describe('machine-pool inputForPath', () => {
  const cases: [string, string][] = [
    ['template.spec.domain.cpu.cores', 'cpu'],
    ['template.spec.domain.resources.limits.memory', 'memory'],
    ['template.spec.domain.devices.disks[0].disk.bus', 'disks'],
    ['template.spec.volumes[1]', 'disks'],
    ['template.spec.domain.devices.interfaces', 'networks'],
    ['template.spec.networks[0].multus', 'networks'],
    ['template.spec.domain.resources.limits.memoryX', 'spec'],
    ['x.template.spec.volumes', 'spec'],
    ['x.template.spec.networks', 'spec'],
    ['template.spec.volumesX', 'spec'],
    ['template.spec.running', 'spec'],
  ];
  for (const [path, input] of cases) it(`${path} → ${input}`, () => assert.equal(inputForPath(path), input));
});
