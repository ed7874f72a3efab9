import assert from 'node:assert/strict';
import { ManualClock } from '../../../../emulator/clock';
import { ObjectStore } from '../../../../emulator/api/store';
import { validateObject } from '../../../../emulator/api/validation';
import { createHarvesterRegistry, KINDS } from '../../../../emulator/kinds';

describe('ObjectStore built-in strategies', () => {
  function storeWithDefaultNamespace(): ObjectStore {
    const store = new ObjectStore(createHarvesterRegistry(), new ManualClock(), { validate: validateObject });
    store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    return store;
  }

  it('merges Secret stringData into base64 data (stringData wins), drops it, and defaults type to Opaque', () => {
    const store = storeWithDefaultNamespace();
    const out = store.create(KINDS.secret, {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default' },
      data: { a: Buffer.from('old').toString('base64'), b: Buffer.from('keep').toString('base64') },
      stringData: { a: 'new', c: '#cloud-config\n' },
    });
    assert.equal(out.stringData, undefined);
    assert.equal(out.type, 'Opaque');
    const data = out.data as Record<string, string>;
    assert.deepEqual(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()])), {
      a: 'new', b: 'keep', c: '#cloud-config\n',
    });
  });

  it('keeps an explicit Secret type and applies the same rules on update', () => {
    const store = storeWithDefaultNamespace();
    const created = store.create(KINDS.secret, {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2', namespace: 'default' }, type: 'kubernetes.io/ssh-auth', data: {},
    });
    assert.equal(created.type, 'kubernetes.io/ssh-auth');
    const updated = store.update(KINDS.secret, { ...created, stringData: { userdata: 'x' } });
    assert.equal(updated.stringData, undefined);
    assert.equal(Buffer.from((updated.data as Record<string, string>).userdata, 'base64').toString(), 'x');
  });
});

describe('ObjectStore Service strategy (defaults and allocation, on every store)', () => {
  function store(): ObjectStore {
    const s = new ObjectStore(createHarvesterRegistry(), new ManualClock(), { validate: validateObject });
    s.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    return s;
  }
  const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec });

  it('defaults the spec and allocates a cluster IP, as the apiserver does for any Service', () => {
    const s = store();
    const out = s.create(KINDS.service, service('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }));
    const spec = out.spec as Record<string, any>;
    assert.equal(spec.type, 'ClusterIP');
    assert.equal(spec.sessionAffinity, 'None');
    assert.equal(spec.internalTrafficPolicy, 'Cluster');
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.match(spec.clusterIP, /^10\.43\.\d+\.\d+$/);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.deepEqual(spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.equal(spec.externalTrafficPolicy, undefined, 'only NodePort and LoadBalancer Services have one');
  });

  it('gives LoadBalancer and NodePort Services distinct node ports, kept across updates that omit them', () => {
    const s = store();
    const lb = s.create(KINDS.service, service('lb', { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443 }] }));
    const np = s.create(KINDS.service, service('np', { type: 'NodePort', ports: [{ port: 80 }] }));
    const lbPorts = (lb.spec as any).ports.map((p: any) => p.nodePort);
    const npPort = (np.spec as any).ports[0].nodePort;
    for (const p of [...lbPorts, npPort]) assert.ok(p >= 30000 && p <= 32767, String(p));
    assert.equal(new Set([...lbPorts, npPort]).size, 3);
    assert.equal((lb.spec as any).externalTrafficPolicy, 'Cluster');
    assert.equal((lb.spec as any).allocateLoadBalancerNodePorts, true);
    assert.notEqual((lb.spec as any).clusterIP, (np.spec as any).clusterIP);
    // PUT without clusterIP and nodePorts (a client that never read them back): the allocations stay.
    const updated = s.update(KINDS.service, service('lb', { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443 }] }));
    assert.equal((updated.spec as any).clusterIP, (lb.spec as any).clusterIP);
    assert.deepEqual((updated.spec as any).ports.map((p: any) => p.nodePort), lbPorts);
  });

  it('leaves headless and ExternalName Services without a cluster IP', () => {
    const s = store();
    const headless = s.create(KINDS.service, service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }));
    assert.equal((headless.spec as any).clusterIP, 'None');
    const ext = s.create(KINDS.service, service('ext', { type: 'ExternalName', externalName: 'example.com' }));
    assert.equal((ext.spec as any).clusterIP, undefined);
  });
});
