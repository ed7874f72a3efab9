/**
 * kubectl's client-side apply annotation as the apiserver's field manager treats it when kubectl itself moves
 * to server-side apply (k8s.io/apimachinery pkg/util/managedfields/internal lastappliedmanager.go and
 * lastappliedupdater.go, v0.32; docs/design/kube-api.md §4):
 *
 * - conflicts of an apply by the manager `kubectl` are allowed on fields the annotation holds with the value
 *   the object still has (they were set by kubectl's own client-side apply);
 * - after such an apply, an annotation that is present is rewritten to the applied configuration, itself
 *   without the annotation, encoded as Go's encoding/json encodes an unstructured object (keys sorted, `<`,
 *   `>`, `&` escaped, a trailing newline).
 */
import { FieldSet } from './managed-fields';
import { WriteScope, compareObjects, ownable } from './field-manager';
import { JsonObject, isPlainObject } from './store-json';
import { KindInfo, KubeObject } from './types';

/** kubectl's client-side apply annotation. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The only manager the apiserver upgrades from client-side apply (kubectl's default `--field-manager`). */
export const KUBECTL_APPLY_MANAGER = 'kubectl';

/** The fields whose live value still equals the last-applied configuration, or undefined without one. */
export function allowedByLastApplied(kind: KindInfo, live: KubeObject, scope: WriteScope): FieldSet | undefined {
  const text = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(lastApplied)) return undefined;
  const mine = ownable(kind, lastApplied, scope);
  const c = compareObjects(mine, ownable(kind, live, scope));
  const set = FieldSet.fromObject(mine);
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

/** Go's json.Marshal of a map: keys sorted, HTML-sensitive characters and U+2028/9 escaped. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${goString(k)}:${goJson(value[k])}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value) ?? 'null';
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The annotation value for an applied configuration (buildLastApplied). */
export function lastAppliedText(applied: JsonObject): string {
  const copy: JsonObject = { ...applied };
  if (isPlainObject(applied.metadata)) {
    const meta: JsonObject = { ...(applied.metadata as JsonObject) };
    if (isPlainObject(meta.annotations)) {
      const annotations = { ...(meta.annotations as JsonObject) };
      delete annotations[LAST_APPLIED_ANNOTATION];
      meta.annotations = annotations;
    }
    copy.metadata = meta;
  }
  return `${goJson(copy)}\n`;
}
