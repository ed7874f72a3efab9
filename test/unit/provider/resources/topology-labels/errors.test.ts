import assert from 'node:assert/strict';
import { concurrentEdit, guestRefused, hostGone, hostMissing } from '../../../../../provider/resources/topology-labels/errors';

describe('TopologyLabels check failures: full texts', () => {
  it('a missing host names the hosts there are, or says there are none', () => {
    assert.deepEqual(hostMissing('h9', ['h0', 'h1']), {
      property: 'hosts.h9',
      reason: 'no Harvester host is named "h9" (hosts: h0, h1). Use a host name as `kubectl get nodes` lists it, or remove the entry.',
    });
    assert.match(hostMissing('h9', []).reason, /\(hosts: none\)/);
  });

  it('a guest that cannot sync joins every reason, then offers to only report the guest nodes', () => {
    assert.deepEqual(guestRefused(['RKE2 is too old.', 'So is the cloud provider.']), {
      property: 'waitForGuestSync',
      reason: 'RKE2 is too old. Also, So is the cloud provider. Or set waitForGuestSync to false to only report the guest nodes.',
    });
  });

  it('a host gone at apply, and a host whose region and zone both changed under the write, name the Node', () => {
    const gone = hostGone('h3');
    assert.deepEqual([gone.code, gone.object, gone.message], ['NotFound', 'Node h3', 'Host h3 does not exist on the Harvester cluster. Remove it from hosts, or re-add the host to Harvester.']);
    const host = (region: string, zone: string) => ({ name: 'h1', labels: { 'topology.kubernetes.io/region': region, 'topology.kubernetes.io/zone': zone }, annotations: {} });
    const edit = concurrentEdit('h1', host('r1', 'z1'), host('r2', 'z2'));
    assert.equal(edit.object, 'Node h1');
    assert.match(edit.message, /^Host h1 changed while its topology labels were being written \(topology\.kubernetes\.io\/region "r1" → "r2", topology\.kubernetes\.io\/zone "z1" → "z2"\)/);
  });
});
