/**
 * What every construct shares: props validated by the same zod model and rules as the Pulumi `check` (same
 * messages), and `kubernetes_manifest` resources with our field manager and the fields Harvester fills in marked
 * computed, so `terraform plan` shows no false drift.
 */
import type { Construct } from 'constructs';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import type { TerraformProvider } from 'cdktf';
import { formatFailure } from '../provider/core/input-errors';
import type { CheckFailure } from '../provider/core/types';

/** Field manager of every object the constructs write (the Pulumi provider uses the client's own). */
export const FIELD_MANAGER = 'harvester-iac-cdktf';

/** A provider to use instead of the stack's default kubernetes provider (e.g. an aliased one per cluster). */
export interface ProviderProps {
  provider?: TerraformProvider;
}

/** Validates props with a resource's pure check rules; throws one Error listing every failure, like `check`. */
export function validated<T>(
  className: string,
  props: object,
  validate: (raw: Record<string, unknown>) => { inputs?: T; failures: CheckFailure[] },
): T {
  const raw = Object.fromEntries(Object.entries(props).filter(([k, v]) => k !== 'provider' && v !== undefined));
  const v = validate(raw);
  if (v.failures.length || !v.inputs) {
    throw new Error(`${className}: invalid props:\n${v.failures.map((f) => `  - ${formatFailure(f)}`).join('\n')}\nFix the props above and synthesize again.`);
  }
  return v.inputs;
}

/** A kubernetes_manifest of `object` with our field manager; `computedFields` are what Harvester fills in. */
export function manifest(
  scope: Construct,
  id: string,
  object: object,
  options: { provider?: TerraformProvider; computedFields?: string[]; waitFields?: Record<string, string>; dependsOn?: import('cdktf').ITerraformDependable[] } = {},
): Manifest {
  return new Manifest(scope, id, {
    provider: options.provider,
    manifest: JSON.parse(JSON.stringify(object)) as Record<string, unknown>,
    fieldManager: { name: FIELD_MANAGER, forceConflicts: false },
    computedFields: ['metadata.labels', 'metadata.annotations', 'metadata.finalizers', ...(options.computedFields ?? [])],
    wait: options.waitFields ? { fields: options.waitFields } : undefined,
    dependsOn: options.dependsOn,
  });
}
