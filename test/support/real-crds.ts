/**
 * The real CRDs in `shared/harvester-api/` beside the repository (never shipped): where they are, their schemas
 * per kind and version, and fieldValidation=Strict over them. Suites using them skip when the folder is absent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as YAML from 'yaml';

/** Walk up from this file (source tree or dist/) to the first directory with a `shared/harvester-api` child. */
export function findSharedApi(): string | undefined {
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'shared', 'harvester-api');
    if (fs.existsSync(path.join(candidate, 'crds'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export interface RealCrd {
  file: string;
  group: string;
  version: string;
  kind: string;
  schema: Record<string, unknown>;
  /** Absent for KubeVirt, whose files hold only the openAPIV3Schema. */
  crd?: Record<string, any>;
  versionEntry?: Record<string, any>;
}

const KUBEVIRT_FILES: Record<string, string> = {
  'kubevirt.io_virtualmachines.v1.schema.json': 'VirtualMachine',
  'kubevirt.io_virtualmachineinstances.v1.schema.json': 'VirtualMachineInstance',
};

export function loadCrds(dir: string): RealCrd[] {
  const out: RealCrd[] = [];
  for (const file of fs.readdirSync(path.join(dir, 'crds')).sort()) {
    const text = fs.readFileSync(path.join(dir, 'crds', file), 'utf8');
    if (file.endsWith('.json') && KUBEVIRT_FILES[file]) {
      out.push({ file, group: 'kubevirt.io', version: 'v1', kind: KUBEVIRT_FILES[file], schema: JSON.parse(text) });
    } else if (file.endsWith('.yaml')) {
      const crd = YAML.parse(text) as Record<string, any>;
      for (const v of crd.spec.versions) {
        out.push({ file, group: crd.spec.group, version: v.name, kind: crd.spec.names.kind, schema: v.schema.openAPIV3Schema, crd, versionEntry: v });
      }
    }
  }
  return out;
}

/** fieldValidation=Strict over the real schema: close every object node that does not keep unknown fields. */
export function strictify(node: unknown, isRoot = true): unknown {
  if (Array.isArray(node)) return node.map((n) => strictify(n, false));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && typeof v === 'object' && v !== null) {
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, s]) => [name, isRoot && name === 'metadata' ? s : strictify(s, false)]),
      );
    } else if (k === 'enum' || k === 'default' || k === 'example') {
      out[k] = v;
    } else {
      out[k] = strictify(v, false);
    }
  }
  const s = node as Record<string, unknown>;
  const isObject = s.type === 'object' || s.properties !== undefined;
  if (isObject && s.additionalProperties === undefined && s['x-kubernetes-preserve-unknown-fields'] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

