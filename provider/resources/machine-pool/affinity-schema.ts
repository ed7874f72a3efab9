/**
 * The `affinity` input, typed as Kubernetes' Affinity (core/v1 NodeAffinity, PodAffinity, PodAntiAffinity),
 * strictly: a misspelt field is refused at `check` with its path and a hint. It cannot be accepted loosely,
 * because the API server prunes fields its schema does not know: the VM would be created without the rule,
 * and every later diff would see the rule missing and roll the pool again.
 *
 * Fields newer than the Kubernetes types Harvester's KubeVirt serves (matchLabelKeys, mismatchLabelKeys)
 * are left out for the same reason. Value rules follow the API server's validation (operator/values).
 */
import { z } from 'zod';
import { containsUnknown } from '../../core/unknowns';

type Requirement = { operator?: unknown; values?: unknown };

/**
 * The API server's rule for a requirement's values: In/NotIn need values, Exists/DoesNotExist take none,
 * Gt/Lt take one integer. Skipped while anything in the requirement is unknown (preview).
 */
function valuesRule(req: Requirement, ctx: z.RefinementCtx): void {
  if (containsUnknown(req)) return;
  const values = Array.isArray(req.values) ? req.values : [];
  const problem = (message: string) => ctx.addIssue({ code: 'custom', path: ['values'], message });
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) problem(`must list at least one value with operator ${req.operator}`);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) problem(`must be empty with operator ${req.operator} (got ${values.length} values); remove values`);
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1 || !/^-?\d+$/.test(String(values[0]))) problem(`must be exactly one integer with operator ${req.operator}, e.g. ["3"]`);
      break;
  }
}

const key = z.string().min(1);
const values = z.array(z.string()).optional();

const nodeSelectorRequirement = z.strictObject({
  key,
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
  values,
}).superRefine(valuesRule);

const nodeSelectorTerm = z.strictObject({
  matchExpressions: z.array(nodeSelectorRequirement).optional(),
  matchFields: z.array(nodeSelectorRequirement).optional(),
});

const weight = z.number().int().min(1).max(100);

/** Kubernetes NodeAffinity. */
export const nodeAffinitySchema = z.strictObject({
  requiredDuringSchedulingIgnoredDuringExecution: z.strictObject({
    nodeSelectorTerms: z.array(nodeSelectorTerm).min(1),
  }).optional(),
  preferredDuringSchedulingIgnoredDuringExecution: z.array(z.strictObject({ weight, preference: nodeSelectorTerm })).optional(),
}).meta({ id: 'KubernetesNodeAffinity' });

const labelSelector = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(z.strictObject({
    key,
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
    values,
  }).superRefine(valuesRule)).optional(),
});

const podAffinityTerm = z.strictObject({
  labelSelector: labelSelector.optional(),
  namespaceSelector: labelSelector.optional(),
  namespaces: z.array(z.string()).optional(),
  topologyKey: z.string().min(1, { error: 'is required, e.g. "kubernetes.io/hostname" (one host) or "topology.kubernetes.io/zone"' }),
});

/** Kubernetes PodAffinity and PodAntiAffinity (the same shape). */
export const podAffinitySchema = z.strictObject({
  requiredDuringSchedulingIgnoredDuringExecution: z.array(podAffinityTerm).optional(),
  preferredDuringSchedulingIgnoredDuringExecution: z.array(z.strictObject({ weight, podAffinityTerm })).optional(),
}).meta({ id: 'KubernetesPodAffinity' });
