/**
 * Field selectors as the apiserver parses them (k8s.io/apimachinery pkg/fields): comma-AND of `field=v`,
 * `field==v`, `field!=v` (backslash escapes `,` `=` `!` `\`). Parse failures are 400 BadRequest. Label
 * selectors live in label-selector.ts and are re-exported here.
 */
import { badRequest } from './errors';
import { KubeObject } from './types';

export { LabelSelector, parseLabelSelector } from './label-selector';
export type { LabelRequirement } from './label-selector';

/** One field requirement; `==` is normalised to `=`. */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** How a supported field label reads its value from an object. */
export type FieldGetter = (object: KubeObject) => string;

/** The field labels every kind supports (CustomResource strategy `objectMetaFieldsSet`). */
export const metadataFieldLabels: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata.name ?? '',
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

/** The field labels of a kind: metadata.name/namespace plus the kind's own (KindInfo.fieldLabels). */
export function fieldLabelsOf(kind: { fieldLabels?: Record<string, FieldGetter> }): Record<string, FieldGetter> {
  return kind.fieldLabels ? { ...metadataFieldLabels, ...kind.fieldLabels } : metadataFieldLabels;
}

/** A parsed field selector; all requirements must hold (AND). */
export class FieldSelector {
  /** The parsed requirements with their getters. */
  constructor(
    readonly requirements: FieldRequirement[],
    private readonly getters: Record<string, FieldGetter>,
  ) {}

  /** True when the selector selects everything. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether the object is selected. */
  matches(object: KubeObject): boolean {
    for (const r of this.requirements) {
      const actual = this.getters[r.field](object);
      if (r.operator === '=' ? actual !== r.value : actual === r.value) return false;
    }
    return true;
  }

  /** The value this selector pins `field` to with `=`, if any (lets the store skip a scan). */
  exact(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }
}

/** Split on an unescaped separator (backslash escapes the next character). */
function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      cur += c + text[i + 1];
      i++;
    } else if (c === sep) {
      parts.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  return parts;
}

function unescapeValue(raw: string, term: string, whole: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      const n = raw[i + 1];
      if (n === undefined || !['\\', ',', '=', '!'].includes(n)) {
        throw badRequest(`invalid selector: '${whole}'; can't understand '${term}'`);
      }
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid selector: '${whole}'; can't understand '${term}'`);
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Parse a field selector (`fieldSelector=` query value). Only the labels in `getters` are supported
 * (default: metadata.name, metadata.namespace); any other gives 400 `field label not supported: <f>`.
 */
export function parseFieldSelector(
  text: string | undefined,
  getters: Record<string, FieldGetter> = metadataFieldLabels,
): FieldSelector {
  const supported = (field: string) => Object.prototype.hasOwnProperty.call(getters, field);
  return new FieldSelector(parseFieldRequirements(text, supported), getters);
}

/**
 * The requirements of a field selector, in order; a label `supported` refuses is 400 `field label not supported`
 * (checked term by term, as the API server does). Without `supported`, any label parses (RBAC's request info reads
 * a selector before the kind's labels count).
 */
export function parseFieldRequirements(text: string | undefined, supported: (field: string) => boolean = () => true): FieldRequirement[] {
  if (text === undefined || text === '') return [];
  const reqs: FieldRequirement[] = [];
  for (const term of splitUnescaped(text, ',')) {
    if (term === '') continue;
    let found: { field: string; op: '=' | '!='; rest: string } | undefined;
    for (let i = 0; i < term.length && !found; i++) {
      if (term[i] === '\\') {
        i++;
        continue;
      }
      for (const op of ['!=', '==', '='] as const) {
        if (term.startsWith(op, i)) {
          found = { field: term.slice(0, i), op: op === '!=' ? '!=' : '=', rest: term.slice(i + op.length) };
          break;
        }
      }
    }
    if (!found) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const value = unescapeValue(found.rest, term, text);
    if (!supported(found.field)) throw badRequest(`field label not supported: ${found.field}`);
    reqs.push({ field: found.field, operator: found.op, value });
  }
  return reqs;
}
