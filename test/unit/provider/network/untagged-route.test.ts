/**
 * An untagged network has no route (Harvester drops it), so check refuses a route field on it — on the field the
 * program set, through the provider object programs reach (`harvester-iac/provider`'s `network.check`; a refused
 * input is refused before any cluster is asked). Found by the conformance suite's case 9 (vlan turned off with a
 * route that names a DHCP server), which was told "route.cidr".
 */
import assert from 'node:assert/strict';
import { network } from '../../../../provider';

describe('HarvesterNetwork check: a route on an untagged network is refused on the field set', () => {
  for (const [route, property] of [
    [{ mode: 'auto', dhcpServer: '10.0.0.2' }, 'route.dhcpServer'],
    [{ mode: 'auto', cidr: '10.0.0.0/24' }, 'route.cidr'],
    [{ mode: 'auto', gateway: '10.0.0.1' }, 'route.gateway'],
    [{ mode: 'manual', cidr: '10.0.0.0/24', gateway: '10.0.0.1' }, 'route.mode'],
  ] as const) {
    it(`${JSON.stringify(route)} without vlan: refused on ${property}`, async () => {
      const r = await network.check({}, { name: 'untagged', route });
      assert.deepEqual(r.failures?.map((f) => f.property), [property]);
      assert.match(r.failures![0].reason, /^a route applies to VLAN networks only/);
    });
  }
});
