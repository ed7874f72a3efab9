/**
 * A user's program for the contract's reference cases (references.test.ts), run by the local runner on the real
 * SDK. Stack config `conformance:case` picks what it declares:
 *   same-run-known    an IP pool and a load balancer taking `pool.name`, every other input known at preview
 *   same-run-unknown  the same, with another input of the load balancer unknown at preview (from the pool's id)
 *   missing           a load balancer naming a pool that is neither on the cluster nor declared
 *   pool-<kind>-known    an object of that kind (POOL_REFERENCES) and a machine pool taking its name (known at preview)
 *   pool-<kind>-unknown  the same, the pool taking its id ("namespace/name", unknown at preview)
 *   pool-missing         a machine pool naming a key pair that is neither on the cluster nor declared
 *   lb-no-pool-known     a load balancer naming no pool, with none on the cluster or in the program
 *   lb-no-pool-unknown   the same, its network a VM network of this program (unknown at preview)
 *   lb-pool-in-program   a load balancer naming no pool, and an IP pool of this program that serves it (no reference)
 */
import * as pulumi from '@pulumi/pulumi';
import * as harvester from 'harvester-iac';

const config = new pulumi.Config('conformance');
const which = config.require('case');
const listeners = [{ name: 'api', port: 6443, backendPort: 6443 }];
// The running VM the test made for the load balancers to front (Harvester's load balancer is Ready with a backend).
const backendServerSelector = { 'harvester-iac.io/resource-name': ['conformance-backends'] };

/** A resource of this program a machine pool references, as the pool sees it. */
type Referenced = { id: pulumi.Output<string>; name: pulumi.Output<string> };
type PoolArgs = ConstructorParameters<typeof harvester.HarvesterMachinePool>[1];

/**
 * One line per kind a machine pool references: the object made in this program, and the pool inputs taking it
 * through `take` (its name or its id). The test's table (references.test.ts) has the same keys.
 */
const POOL_REFERENCES: Record<string, (take: (r: Referenced) => pulumi.Input<string>) => Partial<PoolArgs>> = {
  image: (take) => ({ disks: [{ image: take(new harvester.HarvesterImage('conformance-image', { url: 'https://images.example.com/refs.qcow2' })), size: '10Gi' }] }),
  network: (take) => ({ networks: [{ network: take(new harvester.HarvesterNetwork('conformance-net', { vlan: 321 })) }] }),
  keyPair: (take) => ({ sshKeys: [take(new harvester.HarvesterKeyPair('conformance-key', { publicKey: config.require('publicKey') }))] }),
};

const poolBase: PoolArgs = {
  count: 1,
  disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }],
  networks: [{ network: 'default/vm-net' }],
  timeouts: { create: '2m', update: '2m', delete: '2m' },
};

const poolCase = /^pool-(\w+)-(known|unknown)$/.exec(which);
if (poolCase) {
  const take = poolCase[2] === 'known' ? (r: Referenced) => r.name : (r: Referenced) => r.id;
  new harvester.HarvesterMachinePool('conformance-refs', { ...poolBase, ...POOL_REFERENCES[poolCase[1]](take) });
} else if (which === 'pool-missing') {
  new harvester.HarvesterMachinePool('conformance-refs', { ...poolBase, sshKeys: ['conformance-ghost-key'] });
} else if (which === 'lb-no-pool-known' || which === 'lb-no-pool-unknown') {
  const network = which === 'lb-no-pool-known' ? 'default/vm-net' : new harvester.HarvesterNetwork('conformance-lb-net', { vlan: 322 }).id;
  new harvester.HarvesterLoadBalancer('unserved-lb', { network, listeners, backendServerSelector, timeouts: { create: '10s', update: '10s', delete: '30s' } });
} else if (which === 'lb-pool-in-program') {
  // No reference from the load balancer to the pool: Harvester chooses it by its selector (namespace default).
  const pool = new harvester.HarvesterIPPool('conformance-chosen', { ranges: [{ subnet: '10.197.1.0/29' }], selector: { scope: [{ namespace: 'default' }] } });
  new harvester.HarvesterLoadBalancer('chosen-lb', { listeners, backendServerSelector, description: 'served by a pool of this program' }, { dependsOn: [pool] });
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
