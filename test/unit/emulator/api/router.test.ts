import assert from 'node:assert/strict';
import { isWatchQuery, parseRoute, resourceVerb } from '../../../../emulator/api/router';

describe('emulator/api/router', () => {
  const cases: Record<string, { path: string; want: unknown }> = {
    'version': { path: '/version', want: { type: 'version' } },
    'health with sub-check': { path: '/readyz/ping', want: { type: 'health', path: '/readyz/ping' } },
    'core discovery': { path: '/api', want: { type: 'coreVersions' } },
    'group list': { path: '/apis/', want: { type: 'groupList' } },
    'one group': { path: '/apis/kubevirt.io', want: { type: 'group', group: 'kubevirt.io' } },
    'core resource list': { path: '/api/v1', want: { type: 'resourceList', group: '', version: 'v1' } },
    'group resource list': { path: '/apis/kubevirt.io/v1', want: { type: 'resourceList', group: 'kubevirt.io', version: 'v1' } },
    'openapi index': { path: '/openapi/v3', want: { type: 'openapiV3Index' } },
    'openapi doc': { path: '/openapi/v3/apis/kubevirt.io/v1', want: { type: 'openapiV3Document', gvPath: 'apis/kubevirt.io/v1' } },
    'openapi v2': { path: '/openapi/v2', want: { type: 'openapiV2' } },
    'cluster-scoped core list': { path: '/api/v1/nodes', want: { type: 'resource', group: '', version: 'v1', plural: 'nodes' } },
    'cluster-scoped item status': {
      path: '/api/v1/nodes/n1/status',
      want: { type: 'resource', group: '', version: 'v1', plural: 'nodes', name: 'n1', subresource: 'status' },
    },
    'namespaced core item': {
      path: '/api/v1/namespaces/default/configmaps/cm1',
      want: { type: 'resource', group: '', version: 'v1', plural: 'configmaps', namespace: 'default', name: 'cm1' },
    },
    'namespace object itself': { path: '/api/v1/namespaces/default', want: { type: 'resource', group: '', version: 'v1', plural: 'namespaces', name: 'default' } },
    'namespace status is the namespace subresource': {
      path: '/api/v1/namespaces/default/status',
      want: { type: 'resource', group: '', version: 'v1', plural: 'namespaces', name: 'default', subresource: 'status' },
    },
    'group all-namespaces list': {
      path: '/apis/loadbalancer.harvesterhci.io/v1beta1/loadbalancers',
      want: { type: 'resource', group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', plural: 'loadbalancers' },
    },
    'group namespaced item with encoded name': {
      path: '/apis/kubevirt.io/v1/namespaces/ns1/virtualmachines/vm%2Dx/status',
      want: { type: 'resource', group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines', namespace: 'ns1', name: 'vm-x', subresource: 'status' },
    },
    'too deep': { path: '/api/v1/namespaces/a/configmaps/b/c/d', want: { type: 'notFound' } },
    'wrong core version': { path: '/api/v2/nodes', want: { type: 'notFound' } },
    'empty segment': { path: '/api/v1//nodes', want: { type: 'notFound' } },
    'unknown root': { path: '/metrics', want: { type: 'notFound' } },
  };
  for (const [reason, c] of Object.entries(cases)) {
    it(`parses ${reason}`, () => assert.deepEqual(parseRoute(c.path), c.want));
  }

  it('maps methods to verbs and refuses the rest', () => {
    const coll = { type: 'resource' as const, group: '', version: 'v1', plural: 'configmaps' };
    const item = { ...coll, name: 'x' };
    assert.equal(resourceVerb('GET', coll, false), 'list');
    assert.equal(resourceVerb('GET', coll, true), 'watch');
    assert.equal(resourceVerb('GET', item, false), 'get');
    assert.equal(resourceVerb('GET', item, true), 'watch');
    assert.equal(resourceVerb('POST', coll, false), 'create');
    assert.equal(resourceVerb('POST', item, false), undefined);
    assert.equal(resourceVerb('PUT', coll, false), undefined);
    assert.equal(resourceVerb('PATCH', item, false), 'patch');
    assert.equal(resourceVerb('DELETE', coll, false), 'deletecollection');
    assert.equal(resourceVerb('OPTIONS', item, false), undefined);
  });

  it('accepts watch=1 and watch=true only', () => {
    assert.equal(isWatchQuery(new URLSearchParams('watch=1')), true);
    assert.equal(isWatchQuery(new URLSearchParams('watch=true')), true);
    assert.equal(isWatchQuery(new URLSearchParams('watch=false')), false);
    assert.equal(isWatchQuery(new URLSearchParams('')), false);
  });
});
