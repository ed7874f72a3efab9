/**
 * Holds our schemas (emulator/kinds) against the real CRDs kept in the research folder
 * `shared/harvester-api/` beside the repository (Harvester, load balancer, Multus CRDs; KubeVirt's
 * openAPIV3Schema as JSON). It never ships: without that folder the suite is skipped.
 *
 * The real schema is judged by ajv with fieldValidation=Strict semantics: every object node that neither
 * lists `additionalProperties` nor preserves unknown fields gets `additionalProperties: false`, so an
 * unknown field is an error there exactly when our validator reports it in `unknownFields`.
 * For each object of the corpus (every example object, our valid fixtures, our broken variants) both must
 * give the same verdict, and every path we blame must be one the real schema blames too.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import * as YAML from 'yaml';
import { addKubernetesFormats, validateObject } from '../../emulator/api/validation';
import { apiVersionOf, KindInfo, KubeObject } from '../../emulator/api/types';
import { createHarvesterRegistry, KINDS } from '../../emulator/kinds';
import { BROKEN_CASES, KindKey, valid } from '../unit/emulator/kinds/fixtures';
import { findSharedApi, loadCrds, strictify, type RealCrd } from '../support/real-crds';

/** Dotted apiserver path of an ajv error (array positions looked up in the data). */
function errorPath(e: ErrorObject, data: unknown): string {
  const segs = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') segs.push(String((e.params as any).missingProperty));
  if (e.keyword === 'additionalProperties') segs.push(String((e.params as any).additionalProperty));
  let out = '';
  let node: any = data;
  for (const s of segs) {
    if (Array.isArray(node)) out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
    node = node !== null && typeof node === 'object' ? node[s] : undefined;
  }
  return out;
}

const sorted = (v: unknown): string => JSON.stringify(Array.isArray(v) ? [...v].sort() : v ?? null);

/**
 * Walk our schema and the real one together and list every difference in what they accept: property sets,
 * types, required, enum, nullable, format, bounds, pattern, defaults. Subtrees we keep opaque
 * (preserve-unknown-fields) are not descended into; the real schema's root metadata is never modelled.
 */
function compareSchemas(ours: any, real: any, at: string, problems: string[]): void {
  const where = at || '<root>';
  if (!real) {
    problems.push(`${where}: not in the real schema`);
    return;
  }
  if (ours['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (ours['x-kubernetes-int-or-string'] === true) {
    if (real['x-kubernetes-int-or-string'] !== true) problems.push(`${where}: int-or-string here, not in the real schema`);
  } else if (ours.type !== real.type) {
    problems.push(`${where}: type ${ours.type} vs real ${real.type}`);
  }
  for (const key of ['required', 'enum']) {
    if (sorted(ours[key]) !== sorted(real[key])) problems.push(`${where}: ${key} ${sorted(ours[key])} vs real ${sorted(real[key])}`);
  }
  for (const key of ['nullable', 'format', 'minimum', 'maximum', 'pattern', 'default', 'maxLength', 'minLength']) {
    const a = key === 'nullable' ? ours[key] === true : ours[key];
    const b = key === 'nullable' ? real[key] === true : real[key];
    if (JSON.stringify(a) !== JSON.stringify(b)) problems.push(`${where}: ${key} ${JSON.stringify(a)} vs real ${JSON.stringify(b)}`);
  }
  const ourProps = ours.properties ?? {};
  const realProps = real.properties ?? {};
  const names = new Set([...Object.keys(ourProps), ...Object.keys(realProps)]);
  for (const name of [...names].sort()) {
    const child = at ? `${at}.${name}` : name;
    if (!at && name === 'metadata') continue;
    if (!(name in ourProps)) problems.push(`${child}: missing from our schema`);
    else compareSchemas(ourProps[name], realProps[name], child, problems);
  }
  if (ours.items) compareSchemas(ours.items, real.items, `${at}[]`, problems);
  if (typeof ours.additionalProperties === 'object') compareSchemas(ours.additionalProperties, real.additionalProperties, `${at}{}`, problems);
  else if (typeof real.additionalProperties === 'object') problems.push(`${where}: real schema is a map, ours is not`);
}

function crdKey(group: string, version: string, kind: string): string {
  return `${group}/${version}|${kind}`;
}

/**
 * CRD kinds we serve that the research folder holds no copy of, each with the reason. Anything else without a
 * real CRD fails the suite.
 */
const WITHOUT_RESEARCH_COPY: Record<string, string> = {
  'kubevirt.io/v1|VirtualMachineInstanceMigration':
    'written from KubeVirt virt-operator components/crds.go and the datree catalog schema; not copied into shared/harvester-api',
  'network.harvesterhci.io/v1beta1|ClusterNetwork':
    'written from harvester/network-controller-harvester manifests/crds/network.harvesterhci.io_clusternetworks.yaml; not copied into shared/harvester-api',
  'network.harvesterhci.io/v1beta1|VlanConfig':
    'written from harvester/network-controller-harvester manifests/crds/network.harvesterhci.io_vlanconfigs.yaml; not copied into shared/harvester-api',
};

function hasResearchCopy(kind: KindInfo): boolean {
  return WITHOUT_RESEARCH_COPY[crdKey(kind.group, kind.version, kind.kind)] === undefined;
}

const shared = findSharedApi();

describe('CRD conformance: our schemas against the real CRDs', function () {
  if (!shared) {
    it('skipped: shared/harvester-api (the research copy of the real CRDs) is not beside this repository', function () {
      this.skip();
    });
    return;
  }

  const registry = createHarvesterRegistry();
  const crds = loadCrds(shared);
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  addKubernetesFormats(ajv);
  const realValidators = new Map<string, ValidateFunction>();
  const realFor = (kind: KindInfo): ValidateFunction | undefined => {
    const key = crdKey(kind.group, kind.version, kind.kind);
    if (!realValidators.has(key)) {
      const crd = crds.find((c) => crdKey(c.group, c.version, c.kind) === key);
      if (!crd) return undefined;
      realValidators.set(key, ajv.compile(strictify(crd.schema) as object));
    }
    return realValidators.get(key);
  };

  /** Both validators must agree; when invalid, each path we blame must be blamed by the real schema. */
  function judgeAlike(kind: KindInfo, object: KubeObject): { realValid: boolean; ourPaths: string[] } {
    const real = realFor(kind);
    assert.ok(real, `no real CRD for ${kind.kind}`);
    const realValid = real(object) as boolean;
    const realPaths = new Set((real.errors ?? []).map((e) => errorPath(e, object)));
    const ours = validateObject(kind, object);
    const ourPaths = [...ours.causes.map((c) => c.field), ...ours.unknownFields];
    const ourValid = ourPaths.length === 0;
    assert.equal(
      ourValid,
      realValid,
      `verdicts differ. real: ${JSON.stringify([...realPaths])}; ours: ${JSON.stringify(ourPaths)}`,
    );
    for (const p of ourPaths) assert.ok(realPaths.has(p), `we blame ${p}; the real CRD blames ${JSON.stringify([...realPaths])}`);
    return { realValid, ourPaths };
  }

  it('finds a real CRD for every CRD kind we serve (except the few listed without a research copy)', () => {
    for (const kind of registry.all().filter((k) => !k.builtIn && hasResearchCopy(k))) {
      assert.ok(crds.some((c) => crdKey(c.group, c.version, c.kind) === crdKey(kind.group, kind.version, kind.kind)), kind.kind);
    }
  });

  describe('registry entries match the CRDs (names, scope, subresources, printer columns)', () => {
    for (const crd of crds.filter((c) => c.crd)) {
      const kind = registry.byKind(`${crd.group}/${crd.version}`, crd.kind);
      if (!kind) continue; // a version we do not serve (deprecated LoadBalancer v1alpha1)
      it(`${crd.kind} (${crd.file})`, () => {
        const names = crd.crd!.spec.names;
        assert.equal(kind.plural, names.plural);
        assert.equal(kind.singular, names.singular ?? names.kind.toLowerCase());
        assert.equal(kind.listKind, names.listKind ?? `${names.kind}List`);
        assert.deepEqual(kind.shortNames, names.shortNames ?? []);
        assert.equal(kind.namespaced, crd.crd!.spec.scope === 'Namespaced');
        assert.equal(kind.statusSubresource, crd.versionEntry!.subresources?.status !== undefined);
        const columns = (crd.versionEntry!.additionalPrinterColumns ?? [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }]) as Record<string, unknown>[];
        assert.deepEqual(
          kind.printerColumns?.map((c) => [c.name, c.type, c.jsonPath, c.priority ?? 0]),
          columns.map((c) => [c.name, c.type, c.jsonPath, c.priority ?? 0]),
        );
      });
    }
  });

  describe('schema structure: wherever we model an object, it has the real properties and constraints', () => {
    for (const kind of registry.all().filter((k) => !k.builtIn && hasResearchCopy(k))) {
      it(`${kind.kind} (${apiVersionOf(kind)})`, () => {
        const crd = crds.find((c) => crdKey(c.group, c.version, c.kind) === crdKey(kind.group, kind.version, kind.kind))!;
        const problems: string[] = [];
        compareSchemas(kind.schema, crd.schema, '', problems);
        assert.deepEqual(problems, []);
      });
    }
  });

  describe('example objects: both validators judge alike', () => {
    const files = fs.readdirSync(path.join(shared, 'examples')).filter((f) => f.endsWith('.yaml')).sort();
    for (const file of files) {
      const docs = YAML.parseAllDocuments(fs.readFileSync(path.join(shared, 'examples', file), 'utf8')).map((d) => d.toJS() as KubeObject);
      docs.forEach((object, i) => {
        const kind = registry.byKind(object.apiVersion, object.kind);
        const title = `${file} #${i} (${object.kind} ${object.metadata?.name})`;
        if (!kind) {
          it(`${title}: not served (${object.apiVersion}), nothing to compare`, () => {
            assert.equal(object.apiVersion, 'loadbalancer.harvesterhci.io/v1alpha1');
          });
          return;
        }
        it(title, () => {
          judgeAlike(kind, object);
        });
      });
    }

    it('the node-driver VirtualMachine and the guest-agent VMIs are valid', () => {
      for (const file of ['virtualmachine_node-driver_gc31-pool1.yaml', 'virtualmachineinstances_node-driver_with-guest-agent-status.yaml']) {
        for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(shared, 'examples', file), 'utf8'))) {
          const object = doc.toJS() as KubeObject;
          const kind = registry.byKind(object.apiVersion, object.kind)!;
          assert.deepEqual(judgeAlike(kind, object), { realValid: true, ourPaths: [] }, file);
        }
      }
    });
  });

  describe('our valid fixtures: valid for the real CRDs too', () => {
    for (const [key, kind] of Object.entries(KINDS) as [KindKey, KindInfo][]) {
      if (kind.builtIn || !hasResearchCopy(kind)) continue;
      it(`${key} (${apiVersionOf(kind)})`, () => {
        assert.deepEqual(judgeAlike(kind, valid(key)), { realValid: true, ourPaths: [] });
      });
    }
  });

  describe('broken variants: invalid for both, blamed at the same path', () => {
    for (const c of BROKEN_CASES.filter((b) => hasResearchCopy(KINDS[b.kind]))) {
      it(`${c.kind}: ${c.name}`, () => {
        const { realValid, ourPaths } = judgeAlike(KINDS[c.kind], c.object);
        assert.equal(realValid, false);
        assert.ok(ourPaths.includes(c.cause?.field ?? c.unknownField!), JSON.stringify(ourPaths));
      });
    }
  });
});
