import assert from 'node:assert/strict';
import {
  aggregatedDiscovery, compareVersions, legacyGroupList, legacyResourceList, negotiateDiscovery,
} from '../../../../emulator/api/discovery';
import { OpenApiPublisher } from '../../../../emulator/api/openapi';
import { createHarvesterRegistry } from '../../../../emulator/kinds';

const AGG = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('emulator/api/discovery and openapi', () => {
  const registry = createHarvesterRegistry();

  it('negotiates the aggregated format kubectl asks for', () => {
    assert.equal(negotiateDiscovery(AGG), 'v2');
    assert.equal(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'), 'v2beta1');
    assert.equal(negotiateDiscovery('application/json, */*'), 'legacy');
  });

  it('orders versions by Kubernetes priority', () => {
    assert.deepEqual(['v1alpha1', 'v1beta1', 'v2', 'v1', 'v1beta2', 'foo'].sort(compareVersions), ['v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'foo']);
  });

  it('lists core alone on /api and every named group on /apis, with short names and status subresources', () => {
    const core = aggregatedDiscovery(registry, true, 'v2') as { items: { metadata: { name: string } }[] };
    assert.deepEqual(core.items.map((i) => i.metadata.name), ['']);
    const apis = aggregatedDiscovery(registry, false, 'v2') as { apiVersion: string; items: { metadata: { name: string }; versions: { resources: Record<string, unknown>[] }[] }[] };
    assert.equal(apis.apiVersion, 'apidiscovery.k8s.io/v2');
    const lbGroup = apis.items.find((i) => i.metadata.name === 'loadbalancer.harvesterhci.io')!;
    const lb = lbGroup.versions[0].resources.find((r) => r.resource === 'loadbalancers')!;
    assert.deepEqual(lb.shortNames, ['lb', 'lbs']);
    assert.equal(lb.scope, 'Namespaced');
    assert.equal(lb.subresources, undefined, 'Harvester LoadBalancer has no status subresource');
    const vm = apis.items.find((i) => i.metadata.name === 'kubevirt.io')!.versions[0].resources.find((r) => r.resource === 'virtualmachines')!;
    assert.equal((vm.subresources as { subresource: string }[])[0].subresource, 'status');
  });

  it('lists a subresource right after its parent in legacy APIResourceList', () => {
    const list = legacyResourceList(registry, 'kubevirt.io', 'v1') as { resources: { name: string }[] };
    const names = list.resources.map((r) => r.name);
    assert.equal(names.indexOf('virtualmachines/status'), names.indexOf('virtualmachines') + 1);
    assert.equal(legacyResourceList(registry, 'nope.io', 'v1'), undefined);
    const groups = legacyGroupList(registry) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    assert.ok(groups.groups.some((g) => g.name === 'harvesterhci.io' && g.preferredVersion.groupVersion === 'harvesterhci.io/v1beta1'));
  });

  it('publishes one v3 document per group-version whose PATCH carries the GVK and fieldValidation', () => {
    const pub = new OpenApiPublisher(registry);
    const index = pub.index() as { paths: Record<string, { serverRelativeURL: string }> };
    assert.ok(index.paths['api/v1'].serverRelativeURL.startsWith('/openapi/v3/api/v1?hash='));
    const doc = pub.document('apis/loadbalancer.harvesterhci.io/v1beta1')!;
    assert.equal(index.paths['apis/loadbalancer.harvesterhci.io/v1beta1'].serverRelativeURL.endsWith(doc.hash), true);
    const parsed = JSON.parse(doc.body) as { paths: Record<string, Record<string, { parameters: { name: string }[]; 'x-kubernetes-group-version-kind': unknown; requestBody: { content: Record<string, unknown> } }>> };
    const patch = parsed.paths['/apis/loadbalancer.harvesterhci.io/v1beta1/namespaces/{namespace}/loadbalancers/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', kind: 'LoadBalancer' });
    assert.ok(patch.parameters.some((p) => p.name === 'fieldValidation'));
    assert.equal('application/strategic-merge-patch+json' in patch.requestBody.content, false);
    assert.equal(pub.document('apis/nope/v1'), undefined);
  });
});
