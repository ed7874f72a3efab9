/**
 * The guest cluster's cloud provider with credentials: given a cloud-config kubeconfig (the shape Harvester's
 * generator and GuestClusterCredentials produce), its LoadBalancer calls are authenticated and
 * RBAC-authorized. Bound by a RoleBinding to harvesterhci.io:cloudprovider in the VMs' namespace it gets its
 * address; bound elsewhere the Service stays pending and the event carries the CCM's error with
 * kube-apiserver's 403 message; a deleted token is refused (401).
 */
import assert from 'node:assert/strict';
import { stringify as toYaml } from 'yaml';
import { startEmulator, Emulator } from '../../emulator';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually } from '../support/emulator-harness';

const NS = 'default';
const SA_USER = `system:serviceaccount:${NS}:gc1`;

function cloudConfig(server: string, token: string, namespace: string): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'default', user: { token } }],
    contexts: [{ name: 'default', context: { cluster: 'default', user: 'default', namespace } }],
    'current-context': 'default',
  });
}

function lbService(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { 'cloudprovider.harvesterhci.io/ipam': 'dhcp' } },
    spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
  };
}

describe('emulator: the guest cloud provider calls Harvester with its credentials (RBAC)', function () {
  this.timeout(30_000);
  let emu: Emulator;
  let token: string;

  /** A token Secret for ServiceAccount gc1, once the tokens controller filled it: the token. */
  async function mintToken(name: string): Promise<string> {
    emu.store.create(KINDS.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name, namespace: NS, annotations: { 'kubernetes.io/service-account.name': 'gc1' } },
    });
    const secret = await eventually(() => {
      const s = emu.store.get(KINDS.secret, NS, name);
      return (s?.data as Record<string, string> | undefined)?.token ? s : undefined;
    }, `token Secret ${name} filled`);
    return Buffer.from((secret.data as Record<string, string>).token, 'base64').toString('utf8');
  }

  before(async () => {
    emu = await startEmulator({ guest: { clusterName: 'gc1' } });
    emu.store.create(KINDS.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc1', namespace: NS } });
    token = await mintToken('gc1-token');
    emu.guest!.setCloudConfig(cloudConfig(emu.url, token, NS));
  });
  after(() => emu?.stop());

  const ingress = (name: string) => ((emu.guest!.store.get(KINDS.service, 'default', name)?.status as any)?.loadBalancer?.ingress ?? []) as { ip: string }[];
  const eventFor = (name: string) => emu.guest!.handle.events().filter((e) => e.object === `Service default/${name}`).at(-1);

  it('bound elsewhere: the Service stays pending; the event carries the CCM error and the 403', async () => {
    emu.store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } });
    emu.store.create(KINDS.roleBinding, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'default-gc1', namespace: 'elsewhere' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' },
      subjects: [{ kind: 'ServiceAccount', name: 'gc1', namespace: NS }],
    });
    emu.guest!.store.create(KINDS.service, lbService('web'));
    const event = await eventually(() => eventFor('web'), 'a sync failure event');
    assert.equal(event.reason, 'SyncLoadBalancerFailed');
    assert.match(
      event.message,
      new RegExp(
        `^Error syncing load balancer: failed to ensure load balancer: create or update lb default/gc1-default-web-[0-9a-f]+ failed, error: loadbalancers\\.loadbalancer\\.harvesterhci\\.io "gc1-default-web-[0-9a-f]+" is forbidden: User "${SA_USER}" cannot get resource "loadbalancers" in API group "loadbalancer\\.harvesterhci\\.io" in the namespace "default"$`,
      ),
    );
    assert.deepEqual(ingress('web'), []);
    assert.equal(emu.store.list(KINDS.loadBalancer, { namespace: NS }).items.length, 0);
  });

  it('bound by the cloudprovider role in the VMs namespace: the load balancer is created and the Service gets its address', async () => {
    emu.store.create(KINDS.roleBinding, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'default-gc1', namespace: NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' },
      subjects: [{ kind: 'ServiceAccount', name: 'gc1', namespace: NS }],
    });
    // A Service change makes the service controller sync again, as on a real cluster.
    emu.guest!.store.patch(KINDS.service, 'default', 'web', 'merge', { metadata: { labels: { retry: '1' } } });
    await eventually(() => ingress('web').length > 0, 'the Service got an ingress IP', 10_000);
    const lb = emu.store.list(KINDS.loadBalancer, { namespace: NS }).items[0];
    assert.match(String(lb.metadata.name), /^gc1-default-web-/);
  });

  it('a deleted token is refused (401): the next sync fails with Unauthorized', async () => {
    emu.store.delete(KINDS.secret, NS, 'gc1-token');
    emu.guest!.store.create(KINDS.service, lbService('api'));
    const event = await eventually(() => eventFor('api'), 'a sync failure event');
    assert.match(event.message, /create or update lb default\/gc1-default-api-[0-9a-f]+ failed, error: Unauthorized$/);
    assert.deepEqual(ingress('api'), []);
  });

  it('without credentials the CCM acts as the admin (the default)', async () => {
    emu.guest!.setCloudConfig(undefined);
    await eventually(() => ingress('api').length > 0, 'the Service got an ingress IP as admin', 10_000);
  });

  it('without an explicit cloud-config the CCM reads the one cloud-init writes on the guest VMs', async () => {
    const { store } = emu;
    const second = await mintToken('gc1-token-2');
    const userData = `#cloud-config\n${toYaml({ write_files: [{ path: '/etc/kubernetes/cloud-config', encoding: 'b64', owner: 'root:root', permissions: '0600', content: Buffer.from(cloudConfig(emu.url, second, NS)).toString('base64') }] })}`;
    store.create(KINDS.virtualMachine, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'gc1-pool-a', namespace: NS, labels: { 'guestcluster.harvesterhci.io/name': 'gc1' } },
      spec: {
        runStrategy: 'Halted',
        template: {
          spec: {
            domain: { devices: { disks: [{ name: 'cloudinitdisk', disk: { bus: 'virtio' } }] }, resources: { requests: { memory: '1Gi' } } },
            volumes: [{ name: 'cloudinitdisk', cloudInitNoCloud: { userData } }],
          },
        },
      },
    });
    // Allowed by the RoleBinding in the VMs' namespace; then, with it gone, refused for that token.
    emu.guest!.store.create(KINDS.service, lbService('from-vm'));
    await eventually(() => ingress('from-vm').length > 0, 'the Service got an ingress IP with the VM cloud-config', 10_000);
    store.delete(KINDS.roleBinding, NS, 'default-gc1');
    emu.guest!.store.create(KINDS.service, lbService('denied'));
    const event = await eventually(() => eventFor('denied'), 'a sync failure event');
    assert.match(event.message, new RegExp(`is forbidden: User "${SA_USER}" cannot get resource "loadbalancers"`));
  });
});
