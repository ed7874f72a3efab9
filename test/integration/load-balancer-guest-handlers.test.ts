/**
 * HarvesterLoadBalancer (workloadType "cluster") handler paths on the emulator's guest cluster: check with an
 * unreachable guest and with a Service we do not own; the address wait's timeout; a Service outside "default"
 * created, read back (drift per key, "unset" for a removed one), patched (removed annotations and selector keys
 * nulled) and deleted; delete waiting for the Service and for the cloud provider's LoadBalancer. Emulator only.
 */
import assert from 'node:assert/strict';
import { waitFor, waitForDeletion } from '../../provider/await';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { KubeObject } from '../../provider/client/objects';
import type { ResourceClient } from '../../provider/client/resource-client';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import type { LoadBalancerOutputs } from '../../provider/resources/load-balancer/model';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { fastConnect } from '../support/fast-connect';
import { checkedBy, rejectsWith } from './load-balancer-support';

type Raw = Record<string, unknown>;
const CLUSTER = 'gc1';
const HOLD = 'test.example/hold';
const OURS = 'cloudprovider.harvesterhci.io/';

describe('HarvesterLoadBalancer cluster handlers: check, waits, patch, read-back and delete', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let guest: HarvesterClient;
  const lbs = createLoadBalancerProvider({ connect: fastConnect() });
  const args = (overrides: Raw = {}): Raw => ({
    kubeconfig: t.emulator.kubeconfig,
    name: 'edge',
    namespace: 'kube-system',
    workloadType: 'cluster',
    guestKubeconfig: t.emulator.guest!.kubeconfig,
    guestClusterName: CLUSTER,
    network: 'default/vm-net',
    description: 'front door',
    ports: [{ name: 'https', port: 443, targetPort: 8443 }],
    podSelector: { app: 'edge', tier: 'web' },
    timeouts: { create: '20s', update: '20s', delete: '1s' },
    ...overrides,
  });
  const checked = (raw: Raw) => checkedBy(lbs, raw);
  /** Adds (or removes) a finalizer of ours, so a delete can be seen waiting. */
  const hold = async <T extends KubeObject>(resource: ResourceClient<T>, name: string, namespace: string, on: boolean) => {
    const live = (await resource.get(name, namespace))!;
    const others = (live.metadata.finalizers ?? []).filter((f) => f !== HOLD);
    await resource.mergePatch(name, { metadata: { finalizers: on ? [...others, HOLD] : others } }, { namespace });
  };
  /** Watches (no polling) until the object exists, or is gone; 5 s at most. */
  const exists = <T extends KubeObject>(resource: ResourceClient<T>, name: string, namespace: string) =>
    waitFor<T>({ resource, name, namespace, timeoutMs: 5000, what: `${namespace}/${name} to exist`, timeoutOption: 'test', check: ([o]) => ({ done: o !== undefined, description: '' }) });
  const gone = <T extends KubeObject>(resource: ResourceClient<T>, name: string, namespace: string) =>
    waitForDeletion<T>({ resource, name, namespace, timeoutMs: 5000, what: `${namespace}/${name} to be gone`, timeoutOption: 'test' });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ guest: { clusterName: CLUSTER, delays: { nodeRegister: 20, ccmInit: 10 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    guest = await HarvesterClient.connect({ kubeconfig: t.emulator.guest!.kubeconfig });
    // Someone else's Service, of the name a resource below asks for.
    await guest.services.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'theirs', namespace: 'default' }, spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80 }] } });
  });
  after(async () => t?.stop());

  it('check: an unreachable guest is one failure on no property (the kubeconfig is secret); a Service we do not own is refused on name', async () => {
    const r = await lbs.check({}, args({ guestKubeconfig: '/nonexistent/guest-kubeconfig' }));
    assert.equal(r.failures?.length, 1, JSON.stringify(r.failures));
    assert.equal(r.failures![0].property, '');
    assert.match(r.failures![0].reason, /^cannot check the inputs against the guest cluster \(guestKubeconfig\): \S/);
    const theirs = await lbs.check({}, args({ name: 'theirs', namespace: 'default' }));
    assert.deepEqual(theirs.failures?.map((f) => f.property), ['name']);
    assert.match(theirs.failures![0].reason, /^Refusing to manage Service default\/theirs: it is not managed by harvester-iac .*`kubectl label -n default service theirs --overwrite .*`\. Or delete it in the guest cluster if nothing uses it\.$/);
    await rejectsWith(lbs.update('default/theirs', {}, args({ name: 'theirs', namespace: 'default' })), /^Refusing to update Service default\/theirs: it is not managed by harvester-iac/);
  });

  it('a Service that gets no address (no IP pool) times out naming it, the cloud provider and the option; even when deleted meanwhile', async () => {
    const creating = lbs.create(await checked(args({ name: 'stuck', timeouts: { create: '2s', update: '2s', delete: '10s' } })));
    creating.catch(() => undefined); // asserted below; not unhandled meanwhile
    await exists(guest.services, 'stuck', 'kube-system');
    await guest.services.delete('stuck', { namespace: 'kube-system' });
    await rejectsWith(
      creating,
      /^Timed out after 2s waiting for guest Service kube-system\/stuck to get a load-balancer address\. Last seen: guest Service kube-system\/stuck: waiting for the guest's Harvester cloud provider\. /,
      /Still pending: an ingress address on the Service \(is the Harvester cloud provider running in the guest, with the right --cluster-name\?\)\./,
      /raise `timeouts\.create` \(now 2s\)/,
    );
  });

  it('creates a Service outside "default", reads it back exactly, shows drift per key and patches it to the inputs', async () => {
    await client.ipPools.create({
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'global' },
      spec: { ranges: [{ subnet: '10.40.0.0/24', rangeStart: '10.40.0.10', rangeEnd: '10.40.0.20' }], selector: { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } },
    });
    const inputs = await checked(args());
    const made = await lbs.create(inputs);
    assert.equal(made.id, 'kube-system/edge');
    const clean = await lbs.read(made.id, made.outs as unknown as Raw);
    assert.deepEqual([clean.props!.drift, clean.inputs], [[], inputs]);

    await guest.services.mergePatch('edge', { metadata: { annotations: { [`${OURS}network`]: null, [`${OURS}description`]: 'theirs' } } }, { namespace: 'kube-system' });
    const drifted = await lbs.read(made.id, made.outs as unknown as Raw);
    assert.deepEqual(drifted.props!.drift, [
      'Service kube-system/edge (guest): description is "theirs", this resource set "front door"',
      'Service kube-system/edge (guest): network is unset, this resource set "default/vm-net"',
    ]);
    assert.equal('network' in drifted.inputs!, false, 'an unset input is left out, not undefined');

    const { description: _, ...rest } = args({ podSelector: { app: 'edge' }, ports: [{ name: 'https', port: 443, targetPort: 9443 }] });
    await lbs.update(made.id, drifted.props as Raw, await checked(rest));
    const svc = (await guest.services.get('edge', 'kube-system'))!;
    const ours = Object.fromEntries(Object.entries(svc.metadata.annotations ?? {}).filter(([k]) => k.startsWith(OURS)));
    assert.deepEqual(ours, { [`${OURS}ipam`]: 'pool', [`${OURS}network`]: 'default/vm-net' }, 'the removed description is gone, ours kept');
    assert.deepEqual(svc.spec!.selector, { app: 'edge' }, 'the removed selector key is gone');
    assert.equal(svc.spec!.ports![0].targetPort, 9443);
  });

  it('delete waits for the cloud provider\'s LoadBalancer to go, naming it when it does not', async () => {
    const outs = (await lbs.read('kube-system/edge', args() as Raw)).props as LoadBalancerOutputs;
    const [lbNamespace, lbName] = outs.harvesterLoadBalancer.split('/');
    await hold(client.loadBalancers, lbName, lbNamespace, true);
    await rejectsWith(
      lbs.delete('kube-system/edge', outs as unknown as Raw),
      new RegExp(`^Timed out after 1s waiting for LoadBalancer ${lbNamespace}/${lbName} \\(made by the guest's cloud provider\\) to be deleted\\.`),
      /raise `timeouts\.delete` \(now 1s\)/,
    );
    assert.equal(await guest.services.get('edge', 'kube-system'), undefined, 'the Service went first');
    await hold(client.loadBalancers, lbName, lbNamespace, false);
    await gone(client.loadBalancers, lbName, lbNamespace);
  });

  it('delete waits for the guest Service to go, naming it when it does not', async () => {
    const made = await lbs.create(await checked(args({ name: 'held', namespace: 'default' })));
    await hold(guest.services, 'held', 'default', true);
    await rejectsWith(
      lbs.delete(made.id, made.outs as unknown as Raw),
      /^Timed out after 1s waiting for guest Service default\/held to be deleted\./,
      /raise `timeouts\.delete` \(now 1s\)/,
    );
    await hold(guest.services, 'held', 'default', false);
    await gone(guest.services, 'held', 'default');
  });
});
