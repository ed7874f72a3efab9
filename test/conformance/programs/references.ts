/**
 * A user's program for the contract's reference cases (references.test.ts), run by the local runner on the real
 * SDK. Stack config `conformance:case` picks what it declares:
 *   same-run-known    an IP pool and a load balancer taking `pool.name`, every other input known at preview
 *   same-run-unknown  the same, with another input of the load balancer unknown at preview (from the pool's id)
 *   missing           a load balancer naming a pool that is neither on the cluster nor declared
 *   image-pool        an image, and a machine pool whose boot disk takes `image.id` (unknown at preview)
 */
import * as pulumi from '@pulumi/pulumi';
import * as harvester from 'harvester-iac';

const config = new pulumi.Config('conformance');
const which = config.require('case');
const listeners = [{ name: 'api', port: 6443, backendPort: 6443 }];
// The running VM the test made for the load balancers to front (Harvester's load balancer is Ready with a backend).
const backendServerSelector = { 'harvester-iac.io/resource-name': ['conformance-backends'] };

if (which === 'image-pool') {
  const image = new harvester.HarvesterImage('conformance-image', { url: 'https://images.example.com/conformance.qcow2' });
  new harvester.HarvesterMachinePool('conformance-from-image', { count: 1, disks: [{ image: image.id, size: '10Gi' }], networks: [{ network: 'default/vm-net' }] });
} else if (which === 'missing') {
  new harvester.HarvesterLoadBalancer('ghost-lb', { ipPool: 'conformance-ghost-pool', listeners, backendServerSelector });
} else {
  const pool = new harvester.HarvesterIPPool('conformance-tiny', { ranges: [{ subnet: '10.197.0.0/29' }] });
  new harvester.HarvesterLoadBalancer('conformance-lb', {
    ipPool: pool.name,
    listeners,
    backendServerSelector,
    description: which === 'same-run-unknown' ? pulumi.interpolate`in front of pool ${pool.id}` : 'in front of a pool of this program',
  });
}
