/**
 * The SDK's HarvesterLoadBalancerArgs is a union on workloadType, generated from the model's variant marks
 * (provider/core/input-flags.ts inputVariants): TypeScript asks for listeners and backendServerSelector with "vm"
 * (the default) and for guestKubeconfig, guestClusterName and ports with "cluster" — before, such a program compiled
 * and only preview refused it. The `@ts-expect-error` lines are the test: `npm test` compiles this file, and tsc fails
 * the build when one of them compiles without an error.
 */
import assert from 'node:assert/strict';
import { HarvesterLoadBalancer, type HarvesterLoadBalancerArgs } from '../../../sdk';
import { inputVariants } from '../../../provider/core/input-flags';
import { loadBalancerSchema } from '../../../provider/resources/load-balancer/model';

/** Never called: its body is checked by the compiler. */
export function programs(): void {
  // @ts-expect-error listeners and backendServerSelector are required for "vm" (the default)
  new HarvesterLoadBalancer('no-listeners', { network: 'default/vm-net' });
  // @ts-expect-error backendServerSelector is required for "vm"
  new HarvesterLoadBalancer('no-selector', { workloadType: 'vm', listeners: [{ name: 'http', port: 80, backendPort: 80 }] });
  new HarvesterLoadBalancer('vm', { listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: { app: ['web'] } });
  // @ts-expect-error guestKubeconfig, guestClusterName and ports are required for "cluster"
  new HarvesterLoadBalancer('no-guest', { workloadType: 'cluster' });
  new HarvesterLoadBalancer('cluster', { workloadType: 'cluster', guestKubeconfig: 'kubeconfig', guestClusterName: 'guest', ports: [{ name: 'https', port: 443 }] });
}

describe('sdk: HarvesterLoadBalancerArgs is a union on workloadType', () => {
  it('is generated from the model\'s variants: what each workload type needs, and what only it takes', () => {
    const variants = inputVariants(loadBalancerSchema)!;
    assert.equal(variants.discriminator, 'workloadType');
    assert.equal(variants.defaultValue, 'vm');
    assert.deepEqual(variants.variants.vm.required, ['listeners', 'backendServerSelector']);
    assert.deepEqual(variants.variants.cluster.required, ['guestKubeconfig', 'guestClusterName', 'ports']);
    const vm: HarvesterLoadBalancerArgs = { listeners: [], backendServerSelector: {} };
    assert.ok(vm, 'a vm load balancer needs no workloadType (its default)');
  });
});
