/**
 * The read path without copies. Stored objects are deep-frozen and replaced (never changed) on write, so a
 * reader that does not mutate can be handed the stored object itself, and its JSON text can be computed once
 * per stored version and reused by every GET, LIST and watch event that serves it (the apiserver's watch cache
 * similarly serializes each event once, whatever the number of watchers).
 *
 * The text is byte-identical to `JSON.stringify(present(kind, obj))`: present() copies the object and then
 * assigns `apiVersion` and `kind`, which keeps their key positions, exactly as a spread with those two keys
 * overridden does.
 */
import { deepFreeze, present } from './store-json';
import { KindInfo, KubeObject, apiVersionOf } from './types';

type ServedKind = Pick<KindInfo, 'group' | 'version' | 'kind'>;

/** JSON text per stored object version, per served apiVersion (versions of one resource share storage). */
const texts = new WeakMap<KubeObject, Map<string, string>>();

/** Whether a stored object already carries the apiVersion and kind it is served as. */
function servedAsIs(kind: ServedKind, obj: KubeObject): boolean {
  return obj.apiVersion === apiVersionOf(kind) && obj.kind === kind.kind;
}

/**
 * A stored (frozen) object as served for `kind`, shared: the object itself when its apiVersion and kind
 * already match, else a frozen presented copy. Callers must not mutate it (it is frozen: writes throw).
 */
export function shared(kind: ServedKind, obj: KubeObject): KubeObject {
  return servedAsIs(kind, obj) ? obj : deepFreeze(present(kind, obj));
}

/** The JSON text of a stored (frozen) object as served for `kind`; computed once per object version. */
export function servedJson(kind: ServedKind, obj: KubeObject): string {
  const apiVersion = apiVersionOf(kind);
  let byVersion = texts.get(obj);
  let text = byVersion?.get(apiVersion);
  if (text !== undefined) return text;
  text = JSON.stringify(servedAsIs(kind, obj) ? obj : { ...obj, apiVersion, kind: kind.kind });
  if (!byVersion) texts.set(obj, (byVersion = new Map()));
  byVersion.set(apiVersion, text);
  return text;
}
