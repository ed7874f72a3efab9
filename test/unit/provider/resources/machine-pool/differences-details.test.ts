import assert from 'node:assert/strict';
import type { VirtualMachine } from '../../../../../provider/client/objects';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { judgeMachine, type MachineDifference, type MachineJudgement } from '../../../../../provider/resources/machine-pool/differences';
import { asHarvesterServes, context, inputs } from './fixtures';

type Obj = Record<string, any>;
const CLAIMS = 'harvesterhci.io/volumeClaimTemplates';
const SSH = 'harvesterhci.io/sshNames';

/** The judgement after `edit` changes a copy of what Harvester serves for the pool's first VM. */
function judgedAfter(edit: (live: Obj) => void, args: Partial<MachinePoolArgs> = {}): MachineJudgement {
  const desired = desiredVirtualMachines(inputs(args), context()).machines[0].vm;
  const live = asHarvesterServes(desired);
  edit(live as unknown as Obj);
  return judgeMachine(live, desired, 'default');
}
const diffsAfter = (edit: (live: Obj) => void, args: Partial<MachinePoolArgs> = {}): MachineDifference[] => judgedAfter(edit, args).differences;
const rolled = (input: MachineDifference['input'], detail: string): MachineDifference => ({ input, detail, inPlace: false });
const unread = (field: string, detail: string): MachineDifference => ({ field, detail: `${detail} (no input reads it back)`, inPlace: false });

/** Edits the first claim template in the live VM's volumeClaimTemplates annotation. */
const editClaim = (change: (t: Obj, list: Obj[]) => void) => (live: Obj) => {
  const list = JSON.parse(live.metadata.annotations[CLAIMS]) as Obj[];
  change(list[0], list);
  live.metadata.annotations[CLAIMS] = JSON.stringify(list);
};
const claimField = (path: string) => `metadata.annotations["${CLAIMS}"]${path}`;

describe('machine-pool planner judgement details', () => {
  it('names the user labels as they are and as the inputs say, and patches each missing, extra or changed key in place', () => {
    const judged = judgedAfter((live) => {
      const labels = live.metadata.labels;
      delete labels.keep;
      labels.team = 'b';
      labels.added = '1';
    }, { labels: { team: 'a', keep: 'x' } });
    assert.deepEqual(judged.differences, [{ input: 'labels', detail: 'labels is {"added":"1","team":"b"}, inputs say {"keep":"x","team":"a"}', inPlace: true }]);
    assert.deepEqual(judged.patch, { labels: { added: null, keep: 'x', team: 'a' }, annotations: {}, templateLabels: {} });
  });

  it('sees a user label changed on the template only (so on the VMI), and patches the template alone', () => {
    const judged = judgedAfter((live) => { live.spec.template.metadata.labels.team = 'b'; }, { labels: { team: 'a' } });
    assert.deepEqual(judged.differences, [{ input: 'labels', detail: 'labels is {"team":"b"}, inputs say {"team":"a"}', inPlace: true }]);
    assert.deepEqual(judged.patch, { labels: {}, annotations: {}, templateLabels: { team: 'a' } });
  });

  it('treats a key that only starts like an exact reserved key as a user label', () => {
    const key = 'app.kubernetes.io/managed-by-team';
    const judged = judgedAfter((live) => { live.metadata.labels[key] = 'x'; });
    assert.deepEqual(judged.differences, [{ input: 'labels', detail: `labels is {"${key}":"x"}, inputs say {}`, inPlace: true }]);
    assert.deepEqual(judged.patch.labels, { [key]: null });
  });

  it('names a changed system label no input reads back by its field, and rolls the VM', () => {
    const diffs = diffsAfter((live) => {
      live.metadata.labels['harvesterhci.io/machineSetName'] = 'other';
      live.metadata.labels['harvester-iac.io/pool-index'] = '7';
    });
    assert.deepEqual(diffs, [
      unread('metadata.labels["harvester-iac.io/pool-index"]', 'metadata.labels["harvester-iac.io/pool-index"] is "7", the pool writes "0"'),
      unread('metadata.labels["harvesterhci.io/machineSetName"]', 'metadata.labels["harvesterhci.io/machineSetName"] is "other", the pool writes "default-pool-a"'),
    ]);
  });

  it('reports changed cloud-init digests without their content', () => {
    const diffs = diffsAfter((live) => {
      live.metadata.annotations['harvester-iac.io/user-data-hash'] = 'hmac-sha256:0';
      live.metadata.annotations['harvester-iac.io/network-data-hash'] = 'hmac-sha256:1';
    });
    assert.deepEqual(diffs, [
      rolled('userData', 'cloud-init user data differs from the inputs (userData, guestAgent, sshKeys or guestCredentials)'),
      rolled('networkData', 'booted from other cloud-init network data than the inputs\' networkData'),
    ]);
  });

  const sshCases: [string, string | undefined, string[], string][] = [
    ['another key', '["default/other"]', ['ops-key'], 'sshKeys is default/other, inputs say default/ops-key'],
    ['one more key', '["default/ops-key","default/other"]', ['ops-key'], 'sshKeys is default/ops-key, default/other, inputs say default/ops-key'],
    ['an unreadable list', 'not json', [], 'sshKeys is not json, inputs say none'],
    ['two wanted, one live', '["default/ops-key"]', ['ops-key', 'other'], 'sshKeys is default/ops-key, inputs say default/ops-key, default/other'],
    ['no annotation, one wanted', undefined, ['ops-key'], 'sshKeys is none, inputs say default/ops-key'],
  ];
  for (const [name, live, sshKeys, detail] of sshCases) {
    it(`names the live and wanted key pairs: ${name}`, () => {
      const ctx = { 'default/ops-key': 'k1', 'default/other': 'k2' };
      const desired = desiredVirtualMachines(inputs({ sshKeys }), context({ keyPairPublicKeys: ctx })).machines[0].vm;
      const vm = asHarvesterServes(desired) as Obj;
      if (live === undefined) delete vm.spec.template.metadata.annotations[SSH];
      else vm.spec.template.metadata.annotations[SSH] = live;
      assert.deepEqual(judgeMachine(vm as VirtualMachine, desired, 'default').differences, [rolled('sshKeys', detail)]);
    });
  }

  it('sees no key-pair drift when the live list is the wanted one, or absent while none is wanted (both read back as no key pairs)', () => {
    const desired = desiredVirtualMachines(inputs({ sshKeys: ['ops-key'] }), context()).machines[0].vm;
    assert.deepEqual(judgeMachine(asHarvesterServes(desired), desired, 'default').differences, []);
    assert.deepEqual(diffsAfter((live) => { delete live.spec.template.metadata.annotations[SSH]; }), []);
  });

  const zoneTerm = (zone: string) => ({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] }] } });
  const zoneCases: [string, string[], Obj | undefined, string][] = [
    ['moved to another zone', ['z1'], zoneTerm('z2'), 'pinned to zone "z2", inputs place it in zone "z1"'],
    ['unpinned', ['z1'], undefined, 'pinned to zone "none", inputs place it in zone "z1"'],
    ['pinned without zones', [], zoneTerm('z2'), 'pinned to zone "z2", inputs place it in zone "none"'],
  ];
  for (const [name, zones, nodeAffinity, detail] of zoneCases) {
    it(`names a zone change: ${name}`, () => {
      const diffs = diffsAfter((live) => {
        const aff = live.spec.template.spec.affinity;
        if (nodeAffinity) aff.nodeAffinity = nodeAffinity;
        else delete aff.nodeAffinity;
      }, { zones });
      assert.deepEqual(diffs, [rolled('zones', detail)]);
    });
  }

  it('reports user affinity added out of band', () => {
    const diffs = diffsAfter((live) => { live.spec.template.spec.affinity.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [] }; });
    assert.deepEqual(diffs, [rolled('affinity', 'affinity is {"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[]},"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":"harvesterhci.io/creator","operator":"Exists"}]},"topologyKey":"kubernetes.io/hostname"},"weight":100}]}}, inputs say {}')]);
  });

  it('names a list we write that grew, with no input reading the new item, by its field', () => {
    const diffs = diffsAfter((live) => { live.spec.template.spec.domain.devices.interfaces.push({ name: 'nic-9', bridge: {} }); });
    assert.deepEqual(diffs, [unread('spec.template.spec.domain.devices.interfaces', 'spec.template.spec.domain.devices.interfaces differs from what the pool writes')]);
  });

  const claimCases: [string, (t: Obj, list: Obj[]) => void, MachineDifference][] = [
    ['storage class of an image disk (the image\'s)', (t) => { t.spec.storageClassName = 'other'; },
      unread(claimField('[0].spec.storageClassName'), `${claimField('[0].spec.storageClassName')} is "other", the pool writes "longhorn-ubuntu-22.04-server-cloudimg"`)],
    ['image', (t) => { t.metadata.annotations['harvesterhci.io/imageId'] = 'default/other'; },
      rolled('disks', 'disks is default/other 40Gi virtio, inputs say default/ubuntu-22.04-server-cloudimg 40Gi virtio')],
    ['size', (t) => { t.spec.resources.requests.storage = '50Gi'; },
      rolled('disks', 'disks is default/ubuntu-22.04-server-cloudimg 50Gi virtio, inputs say default/ubuntu-22.04-server-cloudimg 40Gi virtio')],
    ['volume mode', (t) => { t.spec.volumeMode = 'Filesystem'; },
      unread(claimField('[0].spec.volumeMode'), `${claimField('[0].spec.volumeMode')} is "Filesystem", the pool writes "Block"`)],
    ['access modes', (t) => { t.spec.accessModes = ['ReadWriteOnce']; },
      unread(claimField('[0].spec.accessModes[0]'), `${claimField('[0].spec.accessModes[0]')} is "ReadWriteOnce", the pool writes "ReadWriteMany"`)],
    ['one more template', (t, list) => { list.push(t); },
      unread(claimField(''), `${claimField('')} differs from what the pool writes`)],
  ];
  for (const [name, change, expected] of claimCases) {
    it(`reports a claim template edit: ${name}`, () => assert.deepEqual(diffsAfter(editClaim(change)), [expected]));
  }

  it('reads an annotation that is not a list of claim templates as disks of unknown size, and rolls', () => {
    const diffs = diffsAfter((live) => { live.metadata.annotations[CLAIMS] = 'not json'; });
    assert.deepEqual(diffs.map((d) => d.input ?? d.field), ['disks', claimField('')]);
  });

  it('ignores a claim template respelt (size by value, key order)', () => {
    assert.deepEqual(diffsAfter(editClaim((t) => { t.spec.resources.requests.storage = '40960Mi'; t.spec = { ...t.spec }; })), []);
  });
});
