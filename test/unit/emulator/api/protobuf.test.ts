import assert from 'node:assert/strict';
import { decodeProtobufObject } from '../../../../emulator/api/protobuf';
import { StatusError } from '../../../../emulator/api/errors';

// Bodies captured from `kubectl create service loadbalancer web --tcp=80:8080 --tcp=443:https` and
// `kubectl create configmap w1 --from-literal=a=b --from-file=bin=...` (kubectl 1.32).
const SERVICE =
  'azhzAAoNCgJ2MRIHU2VydmljZRKQAQofCgN3ZWISABoAIgAqADIAOABCAFoKCgNhcHASA3dlYhJpChsKBzgwLTgwODASA1RDUBhQIgcIABCQPxoAKAAKIgoJNDQzLWh0dHBzEgNUQ1AYuwMiCwgBEAAaBWh0dHBzKAASCgoDYXBwEgN3ZWIaACIMTG9hZEJhbGFuY2VyOgBCAFIAWgBgAGgAGgIKABoAIgA=';
const CONFIGMAP = 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEigKEgoCdzESABoAIgAqADIAOABCABIGCgFhEgFiEgoKA2JpbhIDdm0KGgAiAA==';

// Bodies captured from kubectl 1.32: `create serviceaccount sa2`, `create role r1 --verb=get,list
// --resource=configmaps --resource-name=a`, `create clusterrole cr1 --verb=get --non-resource-url=/logs/*`,
// `create clusterrole cr2 --aggregation-rule=rbac.example.com/aggregate-to-view=true`, `create rolebinding rb1x
// --clusterrole=view --serviceaccount=default:sa1 --user=alice --group=devs`, `create clusterrolebinding crb1
// --clusterrole=cr1 --group=devs`, `auth can-i --list -n default`.
const CAPTURED = {
  serviceAccount: 'azhzAAoUCgJ2MRIOU2VydmljZUFjY291bnQSFQoTCgNzYTISABoAIgAqADIAOABCABoAIgA=',
  role: 'azhzAAokChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgRSb2xlEjIKEgoCcjESABoAIgAqADIAOABCABIcCgNnZXQKBGxpc3QSABoKY29uZmlnbWFwcyIBYRoAIgA=',
  clusterRole: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRIlChMKA2NyMRIAGgAiACoAMgA4AEIAEg4KA2dldCoHL2xvZ3MvKhoAIgA=',
  aggregated: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtDbHVzdGVyUm9sZRJFChMKA2NyMhIAGgAiACoAMgA4AEIAGi4KLAoqCiJyYmFjLmV4YW1wbGUuY29tL2FnZ3JlZ2F0ZS10by12aWV3EgR0cnVlGgAiAA==',
  roleBinding: 'azhzAAorChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEgtSb2xlQmluZGluZxLAAQoUCgRyYjF4EgAaACIAKgAyADgAQgASKgoEVXNlchIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoFYWxpY2UiABIqCgVHcm91cBIZcmJhYy5hdXRob3JpemF0aW9uLms4cy5pbxoEZGV2cyIAEiAKDlNlcnZpY2VBY2NvdW50EgAaA3NhMSIHZGVmYXVsdBouChlyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvEgtDbHVzdGVyUm9sZRoEdmlldxoAIgA=',
  clusterRoleBinding: 'azhzAAoyChxyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvL3YxEhJDbHVzdGVyUm9sZUJpbmRpbmcScQoUCgRjcmIxEgAaACIAKgAyADgAQgASKgoFR3JvdXASGXJiYWMuYXV0aG9yaXphdGlvbi5rOHMuaW8aBGRldnMiABotChlyYmFjLmF1dGhvcml6YXRpb24uazhzLmlvEgtDbHVzdGVyUm9sZRoDY3IxGgAiAA==',
  rulesReview: 'azhzAAoxChdhdXRob3JpemF0aW9uLms4cy5pby92MRIWU2VsZlN1YmplY3RSdWxlc1JldmlldxIjChAKABIAGgAiACoAMgA4AEIAEgkKB2RlZmF1bHQaBBgAIgAaACIA',
};
const decoded = (name: keyof typeof CAPTURED) => decodeProtobufObject(Buffer.from(CAPTURED[name], 'base64'));
const RBAC = 'rbac.authorization.k8s.io';

describe('emulator/api/protobuf', () => {
  it('decodes what kubectl create serviceaccount|role|clusterrole|rolebinding|clusterrolebinding send', () => {
    assert.deepEqual(decoded('serviceAccount'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa2' } });
    // The core group is a list holding one empty string, kept as such.
    assert.deepEqual(decoded('role'), { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'r1' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }] });
    assert.deepEqual(decoded('clusterRole'), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'cr1' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }] });
    assert.deepEqual(decoded('aggregated'), {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'cr2' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }] },
    });
    assert.deepEqual(decoded('roleBinding'), {
      apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'rb1x' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'alice' }, { kind: 'Group', apiGroup: RBAC, name: 'devs' }, { kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }],
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' },
    });
    assert.deepEqual(decoded('clusterRoleBinding'), {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'crb1' },
      subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }],
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cr1' },
    });
    assert.deepEqual(decoded('rulesReview'), { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'default' } });
  });

  it('decodes a kubectl Service body, dropping zero values like omitempty', () => {
    assert.deepEqual(decodeProtobufObject(Buffer.from(SERVICE, 'base64')), {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        ports: [
          { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
          { name: '443-https', protocol: 'TCP', port: 443, targetPort: 'https' },
        ],
        selector: { app: 'web' },
        type: 'LoadBalancer',
      },
    });
  });

  it('decodes a kubectl ConfigMap body', () => {
    assert.deepEqual(decodeProtobufObject(Buffer.from(CONFIGMAP, 'base64')), {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' }, data: { a: 'b', bin: 'vm\n' },
    });
  });

  it('answers 415 for kinds it has no field table for and 400 for garbage', () => {
    const other = Buffer.from(SERVICE, 'base64');
    const patched = Buffer.from(other.toString('binary').replace('Service', 'Servicf'), 'binary');
    assert.throws(() => decodeProtobufObject(patched), (e: unknown) => e instanceof StatusError && e.code === 415);
    assert.throws(() => decodeProtobufObject(Buffer.from('{"a":1}')), (e: unknown) => e instanceof StatusError && e.code === 400);
  });
});
