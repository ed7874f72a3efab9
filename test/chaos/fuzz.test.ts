/**
 * Property-based fuzzing of the four models' pure check (fast-check): from a valid base, inputs with keys dropped,
 * values replaced by anything JSON can hold, and unknown keys added. No input makes validation throw; every
 * refusal names a field (a non-empty property, printed once before a reason that never repeats it, or "" for a secret
 * input with the field first in its reason);
 * every accepted input parses with defaults. The number of runs is small in `npm test` and set by CHAOS_FUZZ_RUNS.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validateInputs as validateIpPool } from '../../provider/resources/ip-pool/validate';
import { validateInputs as validateLb } from '../../provider/resources/load-balancer/validate';
import { validateInputs as validatePool } from '../../provider/resources/machine-pool/validate';
import { validateInputs as validateTopology } from '../../provider/resources/topology-labels/validate';
import type { CheckFailure } from '../../provider/core/types';
import { formatFailure } from '../../provider/core/input-errors';

const RUNS = Number(process.env.CHAOS_FUZZ_RUNS ?? 150);
const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

const TARGETS: { name: string; base: Record<string, unknown>; validate: (raw: Record<string, unknown>) => { inputs?: unknown; failures: CheckFailure[] }; secret: string[] }[] = [
  { name: 'HarvesterMachinePool', base: { name: 'p', disks: [{ image: 'img', size: '10Gi' }], networks: [{ network: 'net' }], userData: '#cloud-config\n' }, validate: validatePool, secret: ['userData', 'networkData', 'kubeconfig'] },
  { name: 'HarvesterIPPool', base: { name: 'p', ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20' }], selector: { scope: [{ namespace: 'a' }] } }, validate: validateIpPool, secret: ['kubeconfig'] },
  { name: 'HarvesterLoadBalancer', base: { name: 'web', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['web'] }, healthCheck: { port: 8080 } }, validate: validateLb, secret: ['kubeconfig', 'guestKubeconfig'] },
  { name: 'TopologyLabels', base: { name: 'site', hosts: { h0: { region: 'r', zone: 'z' } } }, validate: validateTopology, secret: ['kubeconfig', 'guestKubeconfig'] },
];

/** Anything an input can be: JSON values, the preview unknown, numbers at the edges. */
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(UNKNOWN),
  fc.constantFrom(-1, 0, 65536, 1.5, Number.MAX_SAFE_INTEGER, '', ' ', '0.0.0.0/0', '10.0.0.0/33', '#!/bin/sh'),
);

/** A mutation of `base`: some top-level keys dropped, some replaced, some nested values replaced, some keys added. */
function mutated(base: Record<string, unknown>) {
  const keys = Object.keys(base);
  return fc
    .record({
      drop: fc.subarray(keys),
      replace: fc.dictionary(fc.constantFrom(...keys), anyValue, { maxKeys: 3 }),
      extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), anyValue, { maxKeys: 2 }),
      deep: fc.option(fc.tuple(fc.constantFrom(...keys), anyValue)),
    })
    .map(({ drop, replace, extra, deep }) => {
      const out: Record<string, unknown> = JSON.parse(JSON.stringify(base));
      for (const k of drop) delete out[k];
      Object.assign(out, replace, extra);
      if (deep) {
        const [k, v] = deep;
        const target = out[k];
        if (Array.isArray(target) && target.length && typeof target[0] === 'object' && target[0]) (target[0] as Record<string, unknown>)[Object.keys(target[0])[0] ?? 'x'] = v;
        else if (target && typeof target === 'object') (target as Record<string, unknown>)[Object.keys(target)[0] ?? 'x'] = v;
      }
      return out;
    });
}

describe('chaos: fuzzing the models\' check (fast-check)', () => {
  for (const target of TARGETS) {
    it(`${target.name}: never throws, and every refusal names its field (${RUNS} runs)`, () => {
      assert.deepEqual(target.validate(target.base).failures, [], 'the base is valid');
      fc.assert(
        fc.property(mutated(target.base), (raw) => {
          const v = target.validate(raw);
          for (const f of v.failures) {
            if (f.property === '') assert.ok(target.secret.some((s) => f.reason.startsWith(s)), `a failure on "" must be a secret input's: ${f.reason}`);
            else {
              assert.ok(!f.reason.startsWith(`${f.property}:`), `the reason repeats its field ${f.property}: ${f.reason}`);
              assert.ok(formatFailure(f).startsWith(f.property), `printed, the failure starts with its field ${f.property}: ${formatFailure(f)}`);
            }
          }
          if (v.failures.length === 0 && v.inputs) assert.equal(typeof v.inputs, 'object');
        }),
        { numRuns: RUNS, seed: 20261125 },
      );
    });
  }
});
