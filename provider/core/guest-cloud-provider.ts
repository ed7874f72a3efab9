/**
 * The version of the Harvester cloud provider a guest cluster runs: what decides which of its features a guest
 * has (topology labels that follow migrations from v0.2.0, load-balancer health checks read until v0.2.0). RKE2
 * and the harvester/charts chart install it as Deployment kube-system/harvester-cloud-provider
 * (docs/design/guest-cloud-provider.md §"Where it runs"); the version is its image's tag.
 */
import { HarvesterError } from '../client/errors';
import type { HarvesterClient } from '../client/harvester-client';
import type { KindSpec } from '../client/kinds';
import type { KubeObject } from '../client/objects';

/** apps/v1 Deployment, for the cloud provider's version. */
const DEPLOYMENT: KindSpec = { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, statusSubresource: true };
/** Name and namespace RKE2 and the harvester/charts chart give the cloud provider (charts/harvester-cloud-provider). */
export const CLOUD_PROVIDER_DEPLOYMENT = { namespace: 'kube-system', name: 'harvester-cloud-provider' } as const;

const get = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((c, k) => (c && typeof c === 'object' ? (c as Record<string, unknown>)[k] : undefined), o);

/** cloudProviderVersionFromImage: `rancher/harvester-cloud-provider:v0.2.7` → `v0.2.7` (digests ignored). */
export function cloudProviderVersionFromImage(image: string): string | undefined {
  const withoutDigest = image.split('@')[0];
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  if (colon <= slash) return undefined;
  return withoutDigest.slice(colon + 1) || undefined;
}

/** The guest's cloud provider version: the override, else the Deployment's image tag, else undefined. */
export async function cloudProviderVersion(guest: HarvesterClient, override?: string): Promise<string | undefined> {
  if (override) return override;
  let deployment: KubeObject | undefined;
  try {
    deployment = await guest.resource(DEPLOYMENT).get(CLOUD_PROVIDER_DEPLOYMENT.name, CLOUD_PROVIDER_DEPLOYMENT.namespace);
  } catch (err) {
    // Not served, or not readable with this kubeconfig: unknown (reported as a note).
    if (err instanceof HarvesterError && (err.code === 'NotFound' || err.code === 'Forbidden')) return undefined;
    throw err;
  }
  const containers = (get(deployment, 'spec', 'template', 'spec', 'containers') ?? []) as { name?: string; image?: string }[];
  const container = containers.find((c) => c.name === CLOUD_PROVIDER_DEPLOYMENT.name) ?? containers[0];
  return container?.image ? cloudProviderVersionFromImage(container.image) : undefined;
}
