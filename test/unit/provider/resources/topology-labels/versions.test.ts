import assert from 'node:assert/strict';
import { rke2Refusal, syncSupport } from '../../../../../provider/resources/topology-labels/versions';
import { cloudProviderVersionFromImage } from '../../../../../provider/core/guest-cloud-provider';

describe('TopologyLabels version gating', () => {
  // The RKE2 table of harvester/docs node-driver.md: minimums per line below v1.25, anything from v1.25 on.
  const rke2: [string, boolean][] = [
    ['v1.22.11+rke2r1', false], ['v1.22.12+rke2r1', true], ['v1.22.13+rke2r1', true],
    ['v1.23.8+rke2r2', false], ['v1.23.9+rke2r1', true],
    ['v1.24.2+rke2r1', false], ['v1.24.3+rke2r1', true], ['v1.24.17+rke2r1', true],
    ['v1.21.14+rke2r1', false], ['v1.25.0+rke2r1', true], ['v1.32.4+rke2r1', true],
    ['v1.24.2+k3s1', true], // not RKE2: not judged by the RKE2 table
  ];
  for (const [version, ok] of rke2) {
    it(`${ok ? 'accepts' : 'refuses'} RKE2 ${version}`, () => {
      const refusal = rke2Refusal(version);
      if (ok) assert.equal(refusal, undefined);
      else assert.match(refusal!, new RegExp(`RKE2 ${version.replace(/[.+]/g, '\\$&')}, which cannot sync topology labels`));
    });
  }

  it('names the minimum of the line in the refusal', () => {
    assert.match(rke2Refusal('v1.23.8+rke2r1')!, /at least v1\.23\.9\+rke2r1 on the v1\.23 line, or v1\.25 or later/);
  });

  const ccm: [string, 'refused' | 'init-only' | 'resyncs'][] = [
    ['v0.1.3', 'refused'], ['v0.1.4', 'init-only'], ['v0.1.5', 'init-only'], ['v0.2.0', 'resyncs'], ['v0.2.7', 'resyncs'],
  ];
  for (const [version, verdict] of ccm) {
    it(`cloud provider ${version}: ${verdict}`, () => {
      const s = syncSupport('v1.28.10+rke2r1', version);
      assert.equal(s.refusals.length > 0, verdict === 'refused');
      assert.equal(s.resyncs, verdict === 'resyncs');
      if (verdict === 'init-only') assert.match(s.notes.join(' '), /only when it is initialised.*zone node affinity/);
    });
  }

  it('notes an unknown cloud provider version instead of guessing', () => {
    const s = syncSupport('v1.28.10+rke2r1', undefined);
    assert.deepEqual(s.refusals, []);
    assert.match(s.notes[0], /version of the guest is unknown.*guestCloudProviderVersion/);
  });

  it('assumes a cloud provider built from source (no release tag) re-syncs, and says so', () => {
    const s = syncSupport('v1.28.10+rke2r1', 'main-abc123');
    assert.deepEqual([s.refusals, s.resyncs], [[], true]);
    assert.deepEqual(s.notes, ['the Harvester cloud provider version "main-abc123" is not a release version: assuming it syncs labels after migration.']);
  });

  it('reads the version from the image tag, with a registry port and a digest', () => {
    assert.equal(cloudProviderVersionFromImage('rancher/harvester-cloud-provider:v0.2.7'), 'v0.2.7');
    assert.equal(cloudProviderVersionFromImage('registry.local:5000/rancher/harvester-cloud-provider:v0.1.5@sha256:abc'), 'v0.1.5');
    assert.equal(cloudProviderVersionFromImage('registry.local:5000/rancher/harvester-cloud-provider'), undefined);
  });

  it('words each refusal and note in full: what runs, why it cannot sync, the way out', () => {
    assert.equal(
      rke2Refusal('v1.21.14+rke2r1'),
      'the guest runs RKE2 v1.21.14+rke2r1, which cannot sync topology labels to its nodes (Harvester\'s node-driver docs require ' +
        'v1.22.12+rke2r1, v1.23.9+rke2r1, v1.24.3+rke2r1 or v1.25 and later). Upgrade the guest cluster\'s Kubernetes version.',
    );
    assert.deepEqual(syncSupport('v1.28.10+k3s1', 'v0.2.7'), {
      refusals: [],
      notes: ['the guest runs Kubernetes v1.28.10+k3s1, not RKE2: its Harvester cloud provider must be installed by hand (at least v0.1.4).'],
      resyncs: true,
    });
    assert.deepEqual(syncSupport('v1.28.10+rke2r1', 'v0.1.3').refusals, [
      'the guest runs Harvester cloud provider v0.1.3, which never copies region/zone to guest nodes (topology needs at least v0.1.4). ' +
        'Upgrade the cloud provider (with RKE2 it comes with the Kubernetes version).',
    ]);
    assert.deepEqual(syncSupport('v1.28.10+rke2r1', 'v0.1.5').notes, [
      'the guest runs Harvester cloud provider v0.1.5 (below v0.2.0): labels are copied to a guest node only when it is initialised, ' +
        'never after a host label change or a migration. Give the machine pool zone node affinity (zones) so rebuilt VMs stay in their zone, ' +
        'or upgrade the cloud provider to v0.2.0 or later.',
    ]);
  });
});
