/**
 * Observe: the Harvester hosts as they are, with one LIST of Nodes (never per-host GETs for reads), and
 * single GETs where apply needs the latest version of one host. Never writes.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { Node } from '../../client/objects';
import type { LiveHost } from './plan';

/** toLiveHost keeps what the plan needs of a Node. */
export function toLiveHost(node: Node): LiveHost {
  return {
    name: node.metadata.name ?? '',
    labels: { ...(node.metadata.labels ?? {}) },
    annotations: { ...(node.metadata.annotations ?? {}) },
    resourceVersion: node.metadata.resourceVersion,
  };
}

/** listHosts: every Harvester host, by name. */
export async function listHosts(client: HarvesterClient): Promise<Map<string, LiveHost>> {
  const nodes = await client.nodes.list();
  return new Map(nodes.items.map((n) => [n.metadata.name ?? '', toLiveHost(n)]));
}

/** getHost: one host at its latest version, or undefined. */
export async function getHost(client: HarvesterClient, name: string): Promise<LiveHost | undefined> {
  const node = await client.nodes.get(name);
  return node ? toLiveHost(node) : undefined;
}
