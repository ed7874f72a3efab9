/**
 * A decoder for the Kubernetes protobuf request bodies kubectl sends for built-in kinds.
 *
 * kubectl's typed clients (`kubectl create configmap|secret|namespace|service|serviceaccount|role|clusterrole|
 * rolebinding|clusterrolebinding`, `kubectl auth can-i`) POST
 * `application/vnd.kubernetes.protobuf` and do not fall back to JSON on 415, so a server that only speaks
 * JSON cannot serve them. The body is the `k8s\0` magic followed by a runtime.Unknown message
 * {1: TypeMeta{1: apiVersion, 2: kind}, 2: raw object, 3: contentEncoding, 4: contentType}; the raw object
 * is decoded with the field tables below (field numbers of k8s.io/api core/v1, checked against bodies
 * captured from kubectl 1.32). Zero values are dropped, as Go's `omitempty` JSON encoding would.
 * Responses stay JSON: kubectl's Accept lists application/json as well.
 */
import { StatusError, unsupportedMediaType } from './errors';

type FieldType = 'string' | 'bytes' | 'int' | 'bool' | 'mapString' | 'mapBytes' | 'mapQuantity' | 'intOrString' | Schema;
interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
}
interface Schema {
  [fieldNumber: number]: Field;
}

const TYPE_META: Schema = { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } };
const OWNER_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};
const OBJECT_META: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  11: { name: 'labels', type: 'mapString' },
  12: { name: 'annotations', type: 'mapString' },
  13: { name: 'ownerReferences', type: OWNER_REFERENCE, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};
const SERVICE_PORT: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'protocol', type: 'string' },
  3: { name: 'port', type: 'int' },
  4: { name: 'targetPort', type: 'intOrString' },
  5: { name: 'nodePort', type: 'int' },
  6: { name: 'appProtocol', type: 'string' },
};
const SERVICE_SPEC: Schema = {
  1: { name: 'ports', type: SERVICE_PORT, repeated: true },
  2: { name: 'selector', type: 'mapString' },
  3: { name: 'clusterIP', type: 'string' },
  4: { name: 'type', type: 'string' },
  5: { name: 'externalIPs', type: 'string', repeated: true },
  7: { name: 'sessionAffinity', type: 'string' },
  8: { name: 'loadBalancerIP', type: 'string' },
  9: { name: 'loadBalancerSourceRanges', type: 'string', repeated: true },
  10: { name: 'externalName', type: 'string' },
  11: { name: 'externalTrafficPolicy', type: 'string' },
  12: { name: 'healthCheckNodePort', type: 'int' },
  13: { name: 'publishNotReadyAddresses', type: 'bool' },
  17: { name: 'ipFamilyPolicy', type: 'string' },
  18: { name: 'clusterIPs', type: 'string', repeated: true },
  19: { name: 'ipFamilies', type: 'string', repeated: true },
  20: { name: 'allocateLoadBalancerNodePorts', type: 'bool' },
  21: { name: 'loadBalancerClass', type: 'string' },
  22: { name: 'internalTrafficPolicy', type: 'string' },
};

/** Kinds whose protobuf bodies we decode, by `apiVersion/kind`. */
// authorization.k8s.io/v1 access reviews (what `kubectl auth can-i` posts).
const RESOURCE_ATTRIBUTES: Schema = {
  1: { name: 'namespace', type: 'string' },
  2: { name: 'verb', type: 'string' },
  3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' },
  5: { name: 'resource', type: 'string' },
  6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
};
const NON_RESOURCE_ATTRIBUTES: Schema = { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } };
const REVIEW_ATTRIBUTES = {
  1: { name: 'resourceAttributes', type: RESOURCE_ATTRIBUTES },
  2: { name: 'nonResourceAttributes', type: NON_RESOURCE_ATTRIBUTES },
} satisfies Schema;

// core/v1 ServiceAccount and rbac.authorization.k8s.io/v1 (what `kubectl create serviceaccount|role|clusterrole|
// rolebinding|clusterrolebinding` post); field numbers of k8s.io/api generated.proto, checked against kubectl 1.32.
const OBJECT_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'fieldPath', type: 'string' },
};
const POLICY_RULE: Schema = {
  1: { name: 'verbs', type: 'string', repeated: true },
  2: { name: 'apiGroups', type: 'string', repeated: true },
  3: { name: 'resources', type: 'string', repeated: true },
  4: { name: 'resourceNames', type: 'string', repeated: true },
  5: { name: 'nonResourceURLs', type: 'string', repeated: true },
};
const LABEL_SELECTOR: Schema = {
  1: { name: 'matchLabels', type: 'mapString' },
  2: { name: 'matchExpressions', type: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'string', repeated: true } }, repeated: true },
};
const SUBJECT: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'apiGroup', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'namespace', type: 'string' },
};
const ROLE_REF: Schema = { 1: { name: 'apiGroup', type: 'string' }, 2: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' } };
const BINDING: Schema = {
  1: { name: 'metadata', type: OBJECT_META },
  2: { name: 'subjects', type: SUBJECT, repeated: true },
  3: { name: 'roleRef', type: ROLE_REF },
};

const KINDS: Record<string, Schema> = {
  'v1/ServiceAccount': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'secrets', type: OBJECT_REFERENCE, repeated: true },
    3: { name: 'imagePullSecrets', type: { 1: { name: 'name', type: 'string' } }, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
  'rbac.authorization.k8s.io/v1/Role': { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'rules', type: POLICY_RULE, repeated: true } },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'rules', type: POLICY_RULE, repeated: true },
    3: { name: 'aggregationRule', type: { 1: { name: 'clusterRoleSelectors', type: LABEL_SELECTOR, repeated: true } } },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  // What `kubectl auth can-i --list` posts.
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'spec', type: { 1: { name: 'namespace', type: 'string' } } } },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'spec', type: REVIEW_ATTRIBUTES } },
  'authorization.k8s.io/v1/SubjectAccessReview': {
    1: { name: 'metadata', type: OBJECT_META },
    2: {
      name: 'spec',
      type: { ...REVIEW_ATTRIBUTES, 3: { name: 'user', type: 'string' }, 4: { name: 'groups', type: 'string', repeated: true }, 6: { name: 'uid', type: 'string' } },
    },
  },
  'v1/ConfigMap': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'data', type: 'mapString' },
    3: { name: 'binaryData', type: 'mapBytes' },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'data', type: 'mapBytes' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'mapString' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/Namespace': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
  },
  'v1/Service': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'spec', type: SERVICE_SPEC },
  },
  // `kubectl create quota`: spec.hard is a map of resource.Quantity ({1: string}).
  'v1/ResourceQuota': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'spec', type: { 1: { name: 'hard', type: 'mapQuantity' }, 2: { name: 'scopes', type: 'string', repeated: true } } },
  },
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Media type of Kubernetes protobuf bodies. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const byte = this.buf[this.pos++];
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new Error('varint too long');
    }
  }
  bytes(): Buffer {
    const len = this.varint();
    if (this.pos + len > this.buf.length) throw new Error('truncated length-delimited field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function decodeMapEntry(buf: Buffer, value: 'mapString' | 'mapBytes' | 'mapQuantity'): [string, string] {
  const r = new Reader(buf);
  let key = '';
  let text = '';
  while (!r.done) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    if (tag % 8 !== 2) {
      r.skip(tag % 8);
      continue;
    }
    const b = r.bytes();
    if (field === 1) key = b.toString('utf8');
    else if (field === 2) text = value === 'mapBytes' ? b.toString('base64') : value === 'mapQuantity' ? String(decodeMessage(b, { 1: { name: 'string', type: 'string' } }).string ?? '') : b.toString('utf8');
  }
  return [key, text];
}

function decodeIntOrString(buf: Buffer): number | string | undefined {
  const m = decodeMessage(buf, { 1: { name: 'type', type: 'int' }, 2: { name: 'intVal', type: 'int' }, 3: { name: 'strVal', type: 'string' } });
  return m.type === 1 ? (m.strVal as string | undefined) : ((m.intVal as number | undefined) ?? 0);
}

function isEmpty(v: unknown): boolean {
  if (v === '' || v === 0 || v === false || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (v !== null && typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

function decodeMessage(buf: Buffer, schema: Schema): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const tag = r.varint();
    const number = Math.floor(tag / 8);
    const wire = tag % 8;
    const field = schema[number];
    if (!field) {
      r.skip(wire);
      continue;
    }
    let value: unknown;
    if (field.type === 'int' || field.type === 'bool') {
      if (wire !== 0) throw new Error(`field ${field.name}: expected a varint`);
      const n = r.varint();
      value = field.type === 'bool' ? n !== 0 : n > 0x7fffffff ? n - 2 ** 64 : n;
    } else {
      if (wire !== 2) throw new Error(`field ${field.name}: expected a length-delimited value`);
      const b = r.bytes();
      if (field.type === 'string') value = b.toString('utf8');
      else if (field.type === 'bytes') value = b.toString('base64');
      else if (field.type === 'mapString' || field.type === 'mapBytes' || field.type === 'mapQuantity') {
        const [k, v] = decodeMapEntry(b, field.type);
        const map = (out[field.name] as Record<string, string> | undefined) ?? {};
        map[k] = v;
        out[field.name] = map;
        continue;
      } else if (field.type === 'intOrString') value = decodeIntOrString(b);
      else value = decodeMessage(b, field.type);
    }
    if (field.repeated) {
      // An element is kept even when empty: `apiGroups: [""]` (the core group) is a list of one empty string.
      ((out[field.name] as unknown[] | undefined) ?? (out[field.name] = [])).push(value);
    } else {
      out[field.name] = value;
    }
  }
  for (const [k, v] of Object.entries(out)) if (isEmpty(v)) delete out[k];
  return out;
}

/**
 * Decode a `application/vnd.kubernetes.protobuf` body into a JSON object. 415 for kinds without a field
 * table (the client should send JSON for them), 400 for malformed bodies.
 */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) {
    throw new StatusError(400, 'BadRequest', 'the protobuf body does not start with the Kubernetes "k8s\\x00" prefix');
  }
  let envelope: Record<string, unknown>;
  let raw: Buffer | undefined;
  try {
    const r = new Reader(body.subarray(4));
    envelope = {};
    while (!r.done) {
      const tag = r.varint();
      const number = Math.floor(tag / 8);
      if (tag % 8 !== 2) {
        r.skip(tag % 8);
        continue;
      }
      const b = r.bytes();
      if (number === 1) envelope = decodeMessage(b, TYPE_META);
      else if (number === 2) raw = b;
    }
  } catch (err) {
    throw new StatusError(400, 'BadRequest', `invalid protobuf body: ${(err as Error).message}`);
  }
  const key = `${String(envelope.apiVersion ?? '')}/${String(envelope.kind ?? '')}`;
  const schema = KINDS[key];
  if (!schema || raw === undefined) throw unsupportedMediaType(['application/json', 'application/yaml']);
  try {
    return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...withMetadata(decodeMessage(raw, schema)) };
  } catch (err) {
    throw new StatusError(400, 'BadRequest', `invalid protobuf ${String(envelope.kind)} body: ${(err as Error).message}`);
  }
}

/** Make sure `metadata` is present (an all-default ObjectMeta is dropped as empty). */
function withMetadata(obj: Record<string, unknown>): Record<string, unknown> {
  return { ...obj, metadata: (obj.metadata as Record<string, unknown> | undefined) ?? {} };
}
