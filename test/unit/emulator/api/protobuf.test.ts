import assert from 'node:assert/strict';
import { decodeProtobufObject } from '../../../../emulator/api/protobuf';
import { StatusError } from '../../../../emulator/api/errors';

// Bodies captured from `kubectl create service loadbalancer web --tcp=80:8080 --tcp=443:https` and
// `kubectl create configmap w1 --from-literal=a=b --from-file=bin=...` (kubectl 1.32).
const SERVICE =
  'azhzAAoNCgJ2MRIHU2VydmljZRKQAQofCgN3ZWISABoAIgAqADIAOABCAFoKCgNhcHASA3dlYhJpChsKBzgwLTgwODASA1RDUBhQIgcIABCQPxoAKAAKIgoJNDQzLWh0dHBzEgNUQ1AYuwMiCwgBEAAaBWh0dHBzKAASCgoDYXBwEgN3ZWIaACIMTG9hZEJhbGFuY2VyOgBCAFIAWgBgAGgAGgIKABoAIgA=';
const CONFIGMAP = 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEigKEgoCdzESABoAIgAqADIAOABCABIGCgFhEgFiEgoKA2JpbhIDdm0KGgAiAA==';

describe('emulator/api/protobuf', () => {
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
