/**
 * The reads the capacity check needs, all GET/LIST, made once per preview and shared by every resource of the
 * program that asks within a few seconds (one dynamic-provider process serves them all): hosts, the pods'
 * requests, Harvester's settings, the namespace's ResourceQuotas and, where readable, Longhorn's disks
 * (docs/design/capacity.md §reads). A read that is forbidden or fails is not an error: it becomes a warning
 * naming the permission or the failure, and the verdict built on it is no longer certain.
 */
import type { HarvesterClient } from '../client/harvester-client';
import { isHarvesterError, NotFoundError } from '../client/errors';
import type { KubeObject, LonghornNode, Node, Pod, ResourceQuota, Setting } from '../client/objects';

/** What was read (undefined: could not be read; see `warnings`). */
export interface CapacityReads {
  nodes?: Node[];
  /** Pods not Succeeded/Failed, all namespaces; undefined when they could not be listed. */
  pods?: Pod[];
  settings: { overcommit?: Setting | null; overheadRatio?: Setting | null; serverVersion?: Setting | null };
  /** Which settings could be read at all (a missing setting reads as null). */
  settingsRead: { overcommit: boolean; overheadRatio: boolean; serverVersion: boolean };
  /** The namespace asked about, and its ResourceQuotas (undefined: unreadable). */
  namespace?: string;
  quotas?: ResourceQuota[];
  /** Longhorn nodes (longhorn-system) and its two scheduling settings (percent), when readable. */
  longhorn?: { nodes: LonghornNode[]; overProvisioning?: number; minimalAvailable?: number };
  warnings: string[];
  /** When the reads were made (ISO). */
  readAt: string;
}

/** Options of readCapacity. */
export interface ReadOptions {
  /** The namespace whose quotas count. */
  namespace?: string;
  /** Read Longhorn's disks too. @default true */
  storage?: boolean;
}

function describeFailure(err: unknown, permission: string): string {
  if (isHarvesterError(err, 'Forbidden')) return `forbidden: the credentials lack ${permission}`;
  if (err instanceof NotFoundError && err.apiMissing) return 'not served by this cluster';
  return err instanceof Error ? err.message.split('\n')[0] : String(err);
}

/** Runs one read; a failure becomes a warning and undefined. */
async function attempt<T>(warnings: string[], what: string, permission: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    warnings.push(`capacity: could not read ${what} (${describeFailure(err, permission)})`);
    return undefined;
  }
}

async function setting(client: HarvesterClient, warnings: string[], name: string): Promise<{ read: boolean; value: Setting | null }> {
  const value = await attempt(warnings, `setting ${name}`, 'get on settings.harvesterhci.io', async () => (await client.settings.get(name)) ?? null);
  return { read: value !== undefined, value: value ?? null };
}

async function longhorn(client: HarvesterClient, warnings: string[]): Promise<CapacityReads['longhorn']> {
  const nodes = await attempt(warnings, 'Longhorn disks (nodes.longhorn.io in longhorn-system); storage is not estimated', 'list on nodes.longhorn.io in namespace longhorn-system', async () =>
    (await client.longhornNodes.list({ namespace: 'longhorn-system' })).items,
  );
  if (!nodes) return undefined;
  const percent = async (name: string): Promise<number | undefined> => {
    const s = await attempt(warnings, `Longhorn setting ${name}`, 'get on settings.longhorn.io in namespace longhorn-system', () => client.longhornSettings.get(name, 'longhorn-system'));
    const n = Number(s?.value);
    return s?.value !== undefined && Number.isFinite(n) ? n : undefined;
  };
  return { nodes, overProvisioning: await percent('storage-over-provisioning-percentage'), minimalAvailable: await percent('storage-minimal-available-percentage') };
}

/** Makes the reads (in parallel; never throws). */
export async function readCapacity(client: HarvesterClient, options: ReadOptions = {}): Promise<CapacityReads> {
  const warnings: string[] = [];
  const [nodes, pods, overcommit, overheadRatio, serverVersion, quotas, storage] = await Promise.all([
    attempt(warnings, 'hosts (nodes)', 'list on nodes at the cluster scope', async () => (await client.nodes.list()).items),
    attempt(warnings, "the pods' requests (pods in all namespaces)", 'list on pods at the cluster scope', async () =>
      (await client.pods.list({ fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' })).items,
    ),
    setting(client, warnings, 'overcommit-config'),
    setting(client, warnings, 'additional-guest-memory-overhead-ratio'),
    setting(client, warnings, 'server-version'),
    options.namespace === undefined
      ? Promise.resolve(undefined)
      : attempt(warnings, `the ResourceQuotas of namespace ${options.namespace}`, `list on resourcequotas in namespace ${options.namespace}`, async () =>
          (await client.resourceQuotas.list({ namespace: options.namespace })).items,
        ),
    options.storage === false ? Promise.resolve(undefined) : longhorn(client, warnings),
  ]);
  return {
    nodes,
    pods,
    settings: { overcommit: overcommit.value, overheadRatio: overheadRatio.value, serverVersion: serverVersion.value },
    settingsRead: { overcommit: overcommit.read, overheadRatio: overheadRatio.read, serverVersion: serverVersion.read },
    namespace: options.namespace,
    quotas,
    longhorn: storage,
    warnings,
    readAt: new Date().toISOString(),
  };
}

/** How long a read is shared across resources (a preview's checks run within seconds of each other). */
export const CACHE_TTL_MS = 15_000;

const cache = new Map<string, { at: number; reads: Promise<CapacityReads> }>();

function cacheKey(client: HarvesterClient, options: ReadOptions): string {
  const c = client.connection;
  return JSON.stringify([c.server, c.context, c.auth, client.source, options.namespace ?? null, options.storage !== false]);
}

/**
 * readCapacity, shared per connection and namespace for CACHE_TTL_MS in this process: concurrent callers wait
 * on the same reads. `now` is injectable for tests.
 */
export function cachedReadCapacity(client: HarvesterClient, options: ReadOptions = {}, now: () => number = Date.now): Promise<CapacityReads> {
  const key = cacheKey(client, options);
  const hit = cache.get(key);
  if (hit && now() - hit.at < CACHE_TTL_MS) return hit.reads;
  for (const [k, v] of cache) if (now() - v.at >= CACHE_TTL_MS) cache.delete(k);
  const reads = readCapacity(client, options);
  cache.set(key, { at: now(), reads });
  return reads;
}

/** Forget every shared read (tests, or after this process changed the cluster). */
export function clearCapacityCache(): void {
  cache.clear();
}

/** The value of a Harvester setting: `value`, else `default`; undefined when both are empty. */
export function settingText(s: KubeObject | null | undefined): string | undefined {
  for (const key of ['value', 'default']) {
    const v = s?.[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
