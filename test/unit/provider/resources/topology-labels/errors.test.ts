import assert from 'node:assert/strict';
import { guestRefused, hostMissing } from '../../../../../provider/resources/topology-labels/errors';

describe('TopologyLabels check failures: full texts', () => {
  it('a missing host names the hosts there are, or says there are none', () => {
    assert.deepEqual(hostMissing('h9', ['h0', 'h1']), {
      property: 'hosts.h9',
      reason: 'hosts.h9: no Harvester host is named "h9" (hosts: h0, h1). Use a host name as `kubectl get nodes` lists it, or remove the entry.',
    });
    assert.match(hostMissing('h9', []).reason, /\(hosts: none\)/);
  });

  it('a guest that cannot sync joins every reason, then offers to only report the guest nodes', () => {
    assert.deepEqual(guestRefused(['RKE2 is too old.', 'So is the cloud provider.']), {
      property: 'waitForGuestSync',
      reason: 'waitForGuestSync: RKE2 is too old. Also, So is the cloud provider. Or set waitForGuestSync to false to only report the guest nodes.',
    });
  });
});
