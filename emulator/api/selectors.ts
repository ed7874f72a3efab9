/**
 * Label and field selectors as the apiserver parses them (k8s.io/apimachinery pkg/labels and pkg/fields).
 *
 * Label grammar: comma-separated requirements, each one of `key`, `!key`, `key=v`, `key==v`, `key!=v`,
 * `key in (a,b)`, `key notin (a,b)`, `key>n`, `key<n`. Field grammar: comma-AND of `field=v`, `field==v`,
 * `field!=v` (backslash escapes `,` `=` `!` `\`). Parse failures are 400 BadRequest.
 */
import { badRequest } from './errors';
import { KubeObject } from './types';
import { labelValueErrors, qualifiedNameErrors } from './store-names';

/** One label requirement. `exists`/`notexists` carry no values; `gt`/`lt` carry one integer. */
export interface LabelRequirement {
  key: string;
  operator: 'exists' | 'notexists' | 'equals' | 'notequals' | 'in' | 'notin' | 'gt' | 'lt';
  values: string[];
}

/** A parsed label selector; all requirements must hold (AND). */
export class LabelSelector {
  /** The parsed requirements, in the order written. */
  constructor(readonly requirements: LabelRequirement[]) {}

  /** True when the selector selects everything. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether an object with these labels is selected. */
  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    for (const r of this.requirements) {
      const has = Object.prototype.hasOwnProperty.call(l, r.key);
      const v = has ? l[r.key] : undefined;
      switch (r.operator) {
        case 'exists':
          if (!has) return false;
          break;
        case 'notexists':
          if (has) return false;
          break;
        case 'equals':
        case 'in':
          if (!has || !r.values.includes(v as string)) return false;
          break;
        case 'notequals':
        case 'notin':
          if (has && r.values.includes(v as string)) return false;
          break;
        case 'gt':
        case 'lt': {
          if (!has || !/^-?\d+$/.test(v as string)) return false;
          const n = Number(v);
          const bound = Number(r.values[0]);
          if (r.operator === 'gt' ? !(n > bound) : !(n < bound)) return false;
          break;
        }
      }
    }
    return true;
  }
}

type Token =
  | { t: 'ident'; v: string }
  | { t: 'op'; v: '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '<' | '>' }
  | { t: 'in' }
  | { t: 'notin' }
  | { t: 'end' };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
    } else if (c === '!' && text[i + 1] === '=') {
      tokens.push({ t: 'op', v: '!=' });
      i += 2;
    } else if (c === '=' && text[i + 1] === '=') {
      tokens.push({ t: 'op', v: '==' });
      i += 2;
    } else if (SPECIAL.has(c)) {
      tokens.push({ t: 'op', v: c as '!' });
      i++;
    } else {
      let j = i;
      while (j < text.length && !SPECIAL.has(text[j]) && !/\s/.test(text[j])) j++;
      const word = text.slice(i, j);
      if (word === 'in') tokens.push({ t: 'in' });
      else if (word === 'notin') tokens.push({ t: 'notin' });
      else tokens.push({ t: 'ident', v: word });
      i = j;
    }
  }
  tokens.push({ t: 'end' });
  return tokens;
}

function describe(tok: Token): string {
  if (tok.t === 'ident' || tok.t === 'op') return tok.v;
  if (tok.t === 'end') return '';
  return tok.t;
}

function parseError(detail: string): never {
  throw badRequest(`unable to parse requirement: ${detail}`);
}

/**
 * Parse a label selector (`labelSelector=` query value). Empty or undefined selects everything.
 * Throws 400 BadRequest naming the token it could not understand.
 */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (text === undefined || text.trim() === '') return new LabelSelector([]);
  const toks = lex(text);
  let pos = 0;
  const peek = (): Token => toks[pos];
  const next = (): Token => toks[pos++];
  const reqs: LabelRequirement[] = [];

  const checkKey = (key: string): void => {
    const errs = qualifiedNameErrors(key);
    if (errs.length) parseError(`key: Invalid value: "${key}": ${errs.join('; ')}`);
  };
  const checkValue = (key: string, value: string, index: number): void => {
    const errs = labelValueErrors(value);
    if (errs.length) parseError(`values[${index}][${key}]: Invalid value: "${value}": ${errs.join('; ')}`);
  };

  for (;;) {
    let tok = next();
    if (tok.t === 'op' && tok.v === '!') {
      const key = next();
      if (key.t !== 'ident') parseError(`found '${describe(key)}', expected: identifier after '!'`);
      checkKey(key.v);
      reqs.push({ key: key.v, operator: 'notexists', values: [] });
    } else if (tok.t === 'ident') {
      const key = tok.v;
      checkKey(key);
      const op = peek();
      if (op.t === 'end' || (op.t === 'op' && op.v === ',')) {
        reqs.push({ key, operator: 'exists', values: [] });
      } else if (op.t === 'op' && (op.v === '=' || op.v === '==' || op.v === '!=')) {
        next();
        const val = peek();
        let value = '';
        if (val.t === 'ident') {
          value = val.v;
          next();
        } else if (!(val.t === 'end' || (val.t === 'op' && val.v === ','))) {
          parseError(`found '${describe(val)}', expected: identifier`);
        }
        checkValue(key, value, 0);
        reqs.push({ key, operator: op.v === '!=' ? 'notequals' : 'equals', values: [value] });
      } else if (op.t === 'in' || op.t === 'notin') {
        next();
        const open = next();
        if (!(open.t === 'op' && open.v === '(')) parseError(`found '${describe(open)}', expected: '('`);
        const values: string[] = [];
        for (;;) {
          const v = next();
          if (v.t === 'ident') {
            values.push(v.v);
            const sep = next();
            if (sep.t === 'op' && sep.v === ')') break;
            if (!(sep.t === 'op' && sep.v === ',')) parseError(`found '${describe(sep)}', expected: ',' or ')'`);
          } else if (v.t === 'op' && v.v === ')') {
            break;
          } else if (v.t === 'op' && v.v === ',') {
            values.push('');
          } else {
            parseError(`found '${describe(v)}', expected: ',', ')' or identifier`);
          }
        }
        if (values.length === 0) parseError(`for 'in', 'notin' operators, values set can't be empty`);
        values.forEach((v, i) => checkValue(key, v, i));
        reqs.push({ key, operator: op.t, values });
      } else if (op.t === 'op' && (op.v === '<' || op.v === '>')) {
        next();
        const val = next();
        if (val.t !== 'ident' || !/^-?\d+$/.test(val.v)) {
          parseError(`for 'Gt', 'Lt' operators, the value must be an integer, found '${describe(val)}'`);
        }
        reqs.push({ key, operator: op.v === '>' ? 'gt' : 'lt', values: [val.v] });
      } else {
        parseError(`found '${describe(op)}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    } else {
      parseError(`found '${describe(tok)}', expected: !, identifier, or 'end of string'`);
    }
    tok = next();
    if (tok.t === 'end') break;
    if (!(tok.t === 'op' && tok.v === ',')) parseError(`found '${describe(tok)}', expected: ',' or 'end of string'`);
  }
  return new LabelSelector(reqs);
}

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
  if (text === undefined || text === '') return new FieldSelector([], getters);
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
    if (!Object.prototype.hasOwnProperty.call(getters, found.field)) {
      throw badRequest(`field label not supported: ${found.field}`);
    }
    reqs.push({ field: found.field, operator: found.op, value });
  }
  return new FieldSelector(reqs, getters);
}
