/**
 * Conformance: kubectl read paths (get, -o yaml|jsonpath|name, -A, -l, --chunk-size, errors) against the
 * emulator over HTTPS, asserting both kubectl's output and what it sent (the request journal).
 */
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { describeResult } from '../support/kubectl';

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';

function configMap(namespace: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { k: name } };
}

describe('kubectl reads (conformance)', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({ controllers: false });
    const { store } = t.emulator;
    store.create(KINDS.configMap, configMap('default', 'app-a', { app: 'a', tier: 'web' }));
    store.create(KINDS.configMap, configMap('default', 'app-b', { app: 'b' }));
    store.create(KINDS.configMap, configMap('default', 'app-c', { app: 'c', tier: 'db' }));
    store.create(KINDS.configMap, configMap('default', 'plain'));
    store.create(KINDS.configMap, configMap('kube-system', 'sys-a', { app: 'a' }));
    store.create(KINDS.loadBalancer, {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
      kind: 'LoadBalancer',
      metadata: { name: 'lb1', namespace: 'default' },
      spec: { ipam: 'dhcp', workloadType: 'vm', description: 'front door', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }] },
    });
  });
  after(() => t?.stop());

  it('get nodes: aggregated discovery with its exact content type, then a Table list', async () => {
    const mark = t.emulator.journal.mark();
    const out = await t.kubectlOk(['get', 'nodes']);
    // The apiserver's node printer: STATUS and ROLES are computed, INTERNAL-IP and the rest only with -o wide.
    assert.match(out.split('\n')[0], /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s*$/);
    assert.match(out, /^harvester-node-0\s+Ready\s+control-plane,etcd,master\s+\d+[smhd]\S*\s+v1\.\d+\.\d+\S*$/m);
    const j = t.emulator.journal;
    const api = j.entries({ since: mark, path: '/api' })[0];
    assert.equal(api?.contentType, AGGREGATED_V2, j.format({ since: mark }));
    assert.equal(j.entries({ since: mark, path: '/apis' })[0]?.contentType, AGGREGATED_V2);
    const list = j.entries({ since: mark, path: '/api/v1/nodes' })[0];
    assert.equal(list.url, '/api/v1/nodes?limit=500');
    assert.equal(list.contentType, TABLE_V1);
    assert.match(list.userAgent ?? '', /^kubectl\/v1\.32\./, 'the dispatcher ran the kubectl matching minor 32');
  });

  it('get -o yaml returns the stored object', async () => {
    const out = await t.kubectlOk(['get', 'configmap', 'app-a', '-o', 'yaml']);
    const obj = parseYaml(out) as KubeObject;
    const stored = t.emulator.store.get(KINDS.configMap, 'default', 'app-a')!;
    assert.equal(obj.metadata.uid, stored.metadata.uid);
    assert.equal(obj.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.deepEqual(obj.data, { k: 'app-a' });
  });

  it('get -A lists across namespaces through the all-namespaces path, with labels from row metadata', async () => {
    const mark = t.emulator.journal.mark();
    const out = await t.kubectlOk(['get', 'cm', '-A', '--show-labels']);
    assert.match(out.split('\n')[0], /^NAMESPACE\s+NAME\s+DATA\s+AGE\s+LABELS|^NAMESPACE\s+NAME\s+AGE\s+LABELS/);
    assert.match(out, /^kube-system\s+sys-a\s.*app=a$/m);
    assert.match(out, /^default\s+app-a\s.*app=a,tier=web$/m);
    assert.ok(t.emulator.journal.entries({ since: mark, path: '/api/v1/configmaps' }).length === 1);
  });

  it('-l passes set-based selectors through and the server applies them', async () => {
    const names = async (selector: string): Promise<string[]> =>
      (await t.kubectlOk(['get', 'cm', '-l', selector, '-o', 'name'])).trim().split('\n').filter((s) => s !== '').sort();
    assert.deepEqual(await names('app in (a,b)'), ['configmap/app-a', 'configmap/app-b']);
    assert.deepEqual(await names('!app'), ['configmap/plain']);
    assert.deepEqual(await names('app notin (a),tier'), ['configmap/app-c']);
    assert.deepEqual(await names('app!=a,app'), ['configmap/app-b', 'configmap/app-c']);
  });

  it('--chunk-size pages with limit/continue until the list is complete', async () => {
    const mark = t.emulator.journal.mark();
    const out = await t.kubectlOk(['get', 'cm', '-A', '--chunk-size=2', '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.deepEqual(out.trim().split(' ').sort(), ['app-a', 'app-b', 'app-c', 'plain', 'sys-a']);
    const pages = t.emulator.journal.entries({ since: mark, path: '/api/v1/configmaps' });
    assert.equal(pages.length, 3, t.emulator.journal.format({ since: mark }));
    assert.equal(pages[0].url, '/api/v1/configmaps?limit=2');
    assert.match(pages[1].url, /[?&]continue=[^&]+/);
  });

  it('get one CRD object prints its printer columns', async () => {
    const out = await t.kubectlOk(['get', 'lb', 'lb1']);
    const [header, row] = out.trim().split('\n');
    assert.match(header, /^NAME\s+DESCRIPTION\s+WORKLOADTYPE\s+IPAM\s+ADDRESS\s+AGE$/);
    // The unset ADDRESS is a null cell, which kubectl prints as blank (as for a real CRD).
    assert.match(row, /^lb1\s+front door\s+vm\s+dhcp\s+\d+s$/);
  });

  it('errors read like a cluster: NotFound, unknown resource type, /openapi/v2', async () => {
    const nf = await t.kubectl(['get', 'cm', 'nope']);
    assert.equal(nf.code, 1, describeResult(nf));
    assert.match(nf.stderr, /Error from server \(NotFound\): configmaps "nope" not found/);
    const lbNf = await t.kubectl(['get', 'lb', 'nope']);
    assert.match(lbNf.stderr, /Error from server \(NotFound\): loadbalancers\.loadbalancer\.harvesterhci\.io "nope" not found/);
    const unknown = await t.kubectl(['get', 'widgets']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /the server doesn't have a resource type "widgets"/);
    const v2 = await t.kubectl(['get', '--raw', '/openapi/v2']);
    assert.equal(v2.code, 1);
    assert.match(v2.stderr, /NotFound|could not find the requested resource/);
  });

  it('serves /version, health and api-resources', async () => {
    const version = JSON.parse(await t.kubectlOk(['get', '--raw', '/version'])) as Record<string, string>;
    assert.equal(version.major, '1');
    assert.equal(version.minor, '32');
    assert.equal(await t.kubectlOk(['get', '--raw', '/readyz']), 'ok');
    const resources = await t.kubectlOk(['api-resources', '--api-group=loadbalancer.harvesterhci.io', '--no-headers']);
    assert.match(resources, /^loadbalancers\s+lb,lbs\s+loadbalancer\.harvesterhci\.io\/v1beta1\s+true\s+LoadBalancer$/m);
    assert.match(resources, /^ippools\s+pool,pools\s+loadbalancer\.harvesterhci\.io\/v1beta1\s+false\s+IPPool$/m);
  });
});
