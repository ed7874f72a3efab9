/**
 * Harvester's `overcommit-config` and `additional-guest-memory-overhead-ratio` settings, and which defaults and
 * KubeVirt release go with a Harvester version (docs/design/capacity.md §settings):
 * - a setting's effective value is `value`, else `default` (harvester pkg/webhook/resources/virtualmachine/
 *   mutator.go getOvercommit); the JSON decodes into whole percentages `{cpu, memory, storage}`, a missing key
 *   being 0 (pkg/settings/settings_helper.go `type Overcommit`);
 * - the code default is `{"cpu":1600,"memory":150,"storage":200}` up to v1.7.x and `{"cpu":1000,"memory":150,
 *   "storage":100}` from v1.8.0 (pkg/settings/settings.go at those tags); an upgrade from v1.7.x pins the old
 *   default as the value (package/upgrade/upgrade_manifests.sh preserve_overcommit_config), so an upgraded
 *   cluster keeps 1600/150/200;
 * - `additional-guest-memory-overhead-ratio` defaults to "1.5"; empty or 0 disables it;
 * - Harvester v1.6.x vendors KubeVirt v1.5.0, v1.7.x v1.6.0, v1.8.x v1.7.0 (go.mod at those tags).
 */
import { StoreReader } from '../api/types';
import { HarvesterKinds } from './kinds';

/** Whole percentages of `overcommit-config`. */
export interface Overcommit {
  cpu: number;
  memory: number;
  storage: number;
}

export const OVERCOMMIT_SETTING = 'overcommit-config';
export const OVERHEAD_RATIO_SETTING = 'additional-guest-memory-overhead-ratio';
export const SERVER_VERSION_SETTING = 'server-version';

/** The code default of overcommit-config before v1.8.0 (and what an upgraded v1.8 cluster keeps as its value). */
export const OVERCOMMIT_DEFAULT_LEGACY = '{"cpu":1600,"memory":150,"storage":200}';
/** The code default from v1.8.0 on. */
export const OVERCOMMIT_DEFAULT_V18 = '{"cpu":1000,"memory":150,"storage":100}';
/** additional-guest-memory-overhead-ratio's code default. */
export const OVERHEAD_RATIO_DEFAULT = '1.5';

/** [major, minor] of a `vX.Y.Z…` version; undefined when it does not parse. */
export function minorVersion(version: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** True when `version` is at least major.minor. */
export function atLeast(version: string | undefined, major: number, minor: number): boolean {
  const v = minorVersion(version);
  return v !== undefined && (v[0] > major || (v[0] === major && v[1] >= minor));
}

/** The overcommit-config code default of a Harvester version. */
export function overcommitDefault(serverVersion: string | undefined): string {
  return atLeast(serverVersion, 1, 8) ? OVERCOMMIT_DEFAULT_V18 : OVERCOMMIT_DEFAULT_LEGACY;
}

/** The KubeVirt minor release a Harvester version vendors (v1.6 → 1.5, v1.7 → 1.6, v1.8 → 1.7). */
export function kubevirtMinor(serverVersion: string | undefined): number {
  const v = minorVersion(serverVersion);
  if (!v || v[0] !== 1) return 5;
  return Math.max(5, v[1] - 1);
}

/** A setting's effective text: its `value`, else its `default`; undefined when both are empty or it is absent. */
export function settingText(store: StoreReader, kinds: Pick<HarvesterKinds, 'setting'>, name: string): string | undefined {
  const setting = store.get(kinds.setting, undefined, name);
  for (const key of ['value', 'default']) {
    const text = setting?.[key];
    if (typeof text === 'string' && text !== '') return text;
  }
  return undefined;
}

/**
 * Decodes overcommit-config JSON as Go's json.Unmarshal into `Overcommit` would: an object of whole numbers,
 * missing keys 0. Throws on anything else (the setting validator's "Invalid JSON").
 */
export function parseOvercommit(text: string): Overcommit {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null) return { cpu: 0, memory: 0, storage: 0 };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
  const out: Overcommit = { cpu: 0, memory: 0, storage: 0 };
  for (const key of ['cpu', 'memory', 'storage'] as const) {
    const v = (parsed as Record<string, unknown>)[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`${key} is not a whole number`);
    out[key] = v;
  }
  return out;
}

/** The live overcommit percentages, or undefined when the setting is absent or empty (the mutator then does nothing). */
export function liveOvercommit(store: StoreReader, kinds: Pick<HarvesterKinds, 'setting'>): Overcommit | undefined {
  const text = settingText(store, kinds, OVERCOMMIT_SETTING);
  return text === undefined ? undefined : parseOvercommit(text);
}

/** The live overhead ratio text ("1.5"), or undefined when disabled (empty, or 0). */
export function liveOverheadRatio(store: StoreReader, kinds: Pick<HarvesterKinds, 'setting'>): string | undefined {
  const text = settingText(store, kinds, OVERHEAD_RATIO_SETTING);
  return text !== undefined && Number(text) !== 0 ? text : undefined;
}

/** The Harvester version the cluster reports (Setting server-version). */
export function serverVersion(store: StoreReader, kinds: Pick<HarvesterKinds, 'setting'>): string | undefined {
  return settingText(store, kinds, SERVER_VERSION_SETTING);
}
