import assert from 'node:assert/strict';
import { buildTable, humanDuration, negotiateTable, tableContentType } from '../../../../emulator/api/table';
import { evaluateJsonPath } from '../../../../emulator/api/jsonpath';
import type { KindInfo, KubeObject } from '../../../../emulator/api/types';
import { KINDS } from '../../../../emulator/kinds';

const kind: KindInfo = {
  group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', kind: 'LoadBalancer', listKind: 'LoadBalancerList',
  plural: 'loadbalancers', singular: 'loadbalancer', shortNames: ['lb'], namespaced: true, statusSubresource: false,
  hasGeneration: true, builtIn: false, allowUnconditionalUpdate: false, schema: {},
  printerColumns: [
    { name: 'IPAM', type: 'string', jsonPath: '.spec.ipam' },
    { name: 'PORT', type: 'integer', jsonPath: '.spec.listeners[0].port' },
    { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

describe('emulator/api/table', () => {
  it('renders durations like apimachinery HumanDuration', () => {
    const s = 1000;
    const cases: [number, string][] = [
      [-5 * s, '<invalid>'], [0, '0s'], [119 * s, '119s'], [125 * s, '2m5s'], [600 * s, '10m'],
      [3 * 3600 * s + 5 * 60 * s, '3h5m'], [47 * 3600 * s, '47h'], [3 * 86400 * s + 3600 * s, '3d1h'],
      [690 * 86400 * s, '690d'], [3 * 365 * 86400 * s + 2 * 86400 * s, '3y2d'], [9 * 365 * 86400 * s, '9y'],
    ];
    for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
  });

  it('prefers Table only when the client lists it first', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    assert.equal(negotiateTable(kubectl), 'v1');
    assert.equal(negotiateTable('application/json;as=Table;v=v1beta1;g=meta.k8s.io'), 'v1beta1');
    assert.equal(negotiateTable('application/json, */*;q=0.8'), undefined);
    assert.equal(negotiateTable(undefined), undefined);
    assert.equal(tableContentType('v1'), 'application/json;as=Table;v=v1;g=meta.k8s.io');
  });

  it('builds rows from printer columns with PartialObjectMetadata objects', () => {
    const obj: KubeObject = {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer',
      metadata: { name: 'lb1', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } },
      spec: { ipam: 'pool', listeners: [{ port: 443 }] },
      status: { conditions: [{ type: 'Other', status: 'False' }, { type: 'Ready', status: 'True' }] },
    };
    const t = buildTable(kind, [obj], { version: 'v1', now: new Date('2026-01-01T01:00:00Z'), listMeta: { resourceVersion: '7' } });
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(t.metadata, { resourceVersion: '7' });
    const cols = (t.columnDefinitions as { name: string }[]).map((c) => c.name);
    assert.deepEqual(cols, ['Name', 'IPAM', 'PORT', 'READY', 'AGE']);
    const row = (t.rows as { cells: unknown[]; object: Record<string, unknown> }[])[0];
    assert.deepEqual(row.cells, ['lb1', 'pool', 443, 'True', '60m']);
    assert.equal(row.object.kind, 'PartialObjectMetadata');
    assert.deepEqual((row.object.metadata as Record<string, unknown>).labels, { a: 'b' });
  });

  it('uses an Age column when a kind has no printer columns, and null for missing cells', () => {
    const bare = { ...kind, printerColumns: undefined };
    const t = buildTable(bare, [{ apiVersion: 'v1', kind: 'X', metadata: { name: 'x' } }], { version: 'v1', now: new Date(), includeObject: 'None' });
    assert.deepEqual((t.columnDefinitions as { name: string }[]).map((c) => c.name), ['Name', 'Age']);
    const row = (t.rows as Record<string, unknown>[])[0];
    assert.deepEqual(row.cells, ['x', null]);
    assert.equal('object' in row, false);
  });

  describe('built-in kinds print like the apiserver\'s own table convertors', () => {
    const now = new Date('2026-01-01T01:00:00Z');
    const table = (k: KindInfo, o: KubeObject) => {
      const t = buildTable(k, [o], { version: 'v1', now });
      const names = (t.columnDefinitions as { name: string; priority: number }[]).map((c) => `${c.name}${c.priority ? '*' : ''}`);
      return { names, cells: (t.rows as { cells: unknown[] }[])[0].cells };
    };
    const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, creationTimestamp: '2026-01-01T00:00:00Z', ...extra });

    it('Node: STATUS with SchedulingDisabled, ROLES from node-role labels, wide columns', () => {
      const node: KubeObject = {
        apiVersion: 'v1', kind: 'Node',
        metadata: meta('n1', { labels: { 'node-role.kubernetes.io/control-plane': 'true', 'node-role.kubernetes.io/etcd': 'true' } }),
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.11' }, { type: 'Hostname', address: 'n1' }],
          nodeInfo: { kubeletVersion: 'v1.32.4+rke2r1', osImage: 'Harvester v1.6.1', kernelVersion: '5.14.21', containerRuntimeVersion: 'containerd://1.7.23-k3s2' },
        },
      };
      const { names, cells } = table(KINDS.node, node);
      assert.deepEqual(names, ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP*', 'External-IP*', 'OS-Image*', 'Kernel-Version*', 'Container-Runtime*']);
      assert.deepEqual(cells, ['n1', 'Ready,SchedulingDisabled', 'control-plane,etcd', '60m', 'v1.32.4+rke2r1', '10.0.0.11', '<none>', 'Harvester v1.6.1', '5.14.21', 'containerd://1.7.23-k3s2']);
      const bare = table(KINDS.node, { apiVersion: 'v1', kind: 'Node', metadata: meta('n2') });
      assert.deepEqual(bare.cells.slice(1, 3), ['Unknown', '<none>']);
    });

    it('Service: TYPE, CLUSTER-IP, EXTERNAL-IP (<pending> until ingress), PORT(S), wide SELECTOR', () => {
      const svc: KubeObject = {
        apiVersion: 'v1', kind: 'Service', metadata: meta('web'),
        spec: { type: 'LoadBalancer', clusterIP: '10.43.0.10', selector: { app: 'web' }, ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] },
      };
      const pending = table(KINDS.service, svc);
      assert.deepEqual(pending.names, ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*']);
      assert.deepEqual(pending.cells, ['web', 'LoadBalancer', '10.43.0.10', '<pending>', '80:30080/TCP,53/UDP', '60m', 'app=web']);
      const ready = table(KINDS.service, { ...svc, status: { loadBalancer: { ingress: [{ ip: '192.168.10.10' }] } } });
      assert.equal(ready.cells[3], '192.168.10.10');
      const internal = table(KINDS.service, { apiVersion: 'v1', kind: 'Service', metadata: meta('c'), spec: { type: 'ClusterIP', clusterIP: '10.43.0.11' } });
      assert.deepEqual(internal.cells, ['c', 'ClusterIP', '10.43.0.11', '<none>', '<none>', '60m', '<none>']);
    });

    it('ConfigMap and Secret: DATA counts the keys', () => {
      const cm = table(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } });
      assert.deepEqual([cm.names, cm.cells], [['Name', 'Data', 'Age'], ['cm', 3, '60m']]);
      const secret = table(KINDS.secret, { apiVersion: 'v1', kind: 'Secret', metadata: meta('s'), type: 'Opaque', data: { userdata: 'eA==' } });
      assert.deepEqual([secret.names, secret.cells], [['Name', 'Type', 'Data', 'Age'], ['s', 'Opaque', 1, '60m']]);
    });
  });

  it('evaluates the JSONPath subset', () => {
    const v = { metadata: { labels: { 'kubernetes.io/hostname': 'n1' } }, items: [{ a: 1 }, { a: 2 }] };
    assert.deepEqual(evaluateJsonPath(v, '.metadata.labels.kubernetes\\.io/hostname'), ['n1']);
    assert.deepEqual(evaluateJsonPath(v, "{.metadata.labels['kubernetes.io/hostname']}"), ['n1']);
    assert.deepEqual(evaluateJsonPath(v, '.items[*].a'), [1, 2]);
    assert.deepEqual(evaluateJsonPath(v, '.items[-1].a'), [2]);
    assert.deepEqual(evaluateJsonPath(v, '.items[?(@.a==2)].a'), [2]);
    assert.deepEqual(evaluateJsonPath(v, '.nothing.here'), []);
    assert.throws(() => evaluateJsonPath(v, '.items[1:2]'), /unsupported JSONPath/);
  });
});
