/**
 * Label selectors as kube-apiserver parses them (k8s.io/apimachinery pkg/labels/selector.go, v0.32; see
 * docs/design/kube-api.md §2): a lexer whose special symbols are `= ! ( ) , > <` and whose whitespace is
 * space, tab, CR and LF (anything else, `~` or `|` included, belongs to an identifier), and a parser that reads
 * `in`/`notin` as operators only right after a key: as a key or as a value (after `=`, `==`, `!=`, `>`, `<`
 * or inside the parentheses) they are plain identifiers, so `mode=in`, `mode!=notin`, `in=x` and
 * `mode in (in,notin)` are valid.
 *
 * Values of `in`/`notin` are a set (duplicates merged): `()` and empty items mean the empty value. Every
 * requirement goes through the rules of `NewRequirement` (key a qualified name, values label values, `>`/`<`
 * an integer). Error texts are upstream's: requirement errors wrapped in `unable to parse requirement: `,
 * grammar errors between requirements not; field errors printed as apimachinery's field.Error does (a key
 * error from the parser itself carries the nil path, printed `<nil>`).
 */
import { badRequest } from './errors';
import { labelValueErrors, qualifiedNameErrors } from './store-names';

/** One label requirement. `exists`/`notexists` carry no values; `gt`/`lt` carry one integer. */
export interface LabelRequirement {
  key: string;
  operator: 'exists' | 'notexists' | 'equals' | 'notequals' | 'in' | 'notin' | 'gt' | 'lt';
  values: string[];
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** Go's strconv.ParseInt(s, 10, 64): an optional sign, decimal digits, within int64; undefined otherwise. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n > INT64_MAX || n < INT64_MIN ? undefined : n;
}

/** Requirement.Matches: `!=`/`notin` also match a missing key; `>`/`<` need an integer label value. */
export function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'equals':
    case 'in':
      return has && r.values.includes(value as string);
    case 'notequals':
    case 'notin':
      return !has || !r.values.includes(value as string);
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value as string);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** A parsed label selector; all requirements must hold (AND). */
export class LabelSelector {
  /** The parsed requirements, sorted by key as the apiserver sorts them. */
  constructor(readonly requirements: LabelRequirement[]) {}

  /** True when the selector selects everything. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether an object with these labels is selected. */
  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }
}

/** Lexer tokens (the literal is kept for every token: errors quote it). */
type TokenType = 'end' | 'ident' | 'in' | 'notin' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '>' | '<';
interface Token {
  type: TokenType;
  text: string;
}

const SYMBOLS = new Set(['=', '!', '(', ')', ',', '>', '<']);
const SYMBOL_TOKENS = new Set<string>(['!', '=', '==', '!=', '(', ')', ',', '>', '<']);
const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/** The longest run of special symbols that still forms a token (`!=` and `==`; `=!` is `=` then `!`). */
function scanSymbol(text: string, start: number): { token: Token; next: number } {
  let best: Token | undefined;
  let bestEnd = start;
  let buffer = '';
  for (let i = start; i < text.length && SYMBOLS.has(text[i]); i++) {
    buffer += text[i];
    if (SYMBOL_TOKENS.has(buffer)) {
      best = { type: buffer as TokenType, text: buffer };
      bestEnd = i + 1;
    } else if (best) {
      break;
    }
  }
  // Every single special symbol is a token, so `best` is always set.
  return { token: best!, next: bestEnd };
}

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isWhitespace(text[i])) i++;
    if (i >= text.length) {
      tokens.push({ type: 'end', text: '' });
      return tokens;
    }
    if (SYMBOLS.has(text[i])) {
      const { token, next } = scanSymbol(text, i);
      tokens.push(token);
      i = next;
      continue;
    }
    let j = i;
    while (j < text.length && !SYMBOLS.has(text[j]) && !isWhitespace(text[j])) j++;
    const word = text.slice(i, j);
    tokens.push({ type: word === 'in' ? 'in' : word === 'notin' ? 'notin' : 'ident', text: word });
    i = j;
  }
}

/** A Go `fmt.Errorf` text carried up to the 400 (the caller decides whether it is wrapped). */
class SelectorSyntaxError extends Error {}

/** apimachinery field.Error text: `<path>: Invalid value: "<value>": <detail>`. */
function invalidValue(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

/** The errors `NewRequirement` aggregates for one requirement, as one message (undefined when valid). */
function requirementErrors(r: LabelRequirement): string | undefined {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(r.key);
  if (keyErrs.length > 0) errs.push(invalidValue('key', r.key, keyErrs.join('; ')));
  if (r.operator === 'gt' || r.operator === 'lt') {
    r.values.forEach((v, i) => {
      if (parseInt64(v) === undefined) errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  r.values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalidValue(`values[${i}][${r.key}]`, v, valueErrs.join('; ')));
  });
  const unique = [...new Set(errs)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** The recursive-descent parser over the scanned tokens; `values` context turns in/notin into identifiers. */
class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private look(values: boolean): Token {
    return this.asContext(this.tokens[this.pos], values);
  }

  private take(values: boolean): Token {
    return this.asContext(this.tokens[this.pos++], values);
  }

  private asContext(t: Token, values: boolean): Token {
    return values && (t.type === 'in' || t.type === 'notin') ? { type: 'ident', text: t.text } : t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const t = this.look(true);
      if (t.type === 'end') return reqs;
      if (t.type !== 'ident' && t.type !== '!') throw new SelectorSyntaxError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
      let req: LabelRequirement;
      try {
        req = this.requirement();
      } catch (err) {
        if (err instanceof SelectorSyntaxError) throw new SelectorSyntaxError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      reqs.push(req);
      const after = this.take(true);
      if (after.type === 'end') return reqs;
      if (after.type !== ',') throw new SelectorSyntaxError(`found '${after.text}', expected: ',' or 'end of string'`);
      const nextReq = this.look(true);
      if (nextReq.type !== 'ident' && nextReq.type !== '!') throw new SelectorSyntaxError(`found '${nextReq.text}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let t = this.take(true);
    let negated = false;
    if (t.type === '!') {
      negated = true;
      t = this.take(true);
    }
    if (t.type !== 'ident') throw new SelectorSyntaxError(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const keyErrs = qualifiedNameErrors(key);
    // The parser validates the key with a nil field path, which Go prints as "<nil>".
    if (keyErrs.length > 0) throw new SelectorSyntaxError(invalidValue('<nil>', key, keyErrs.join('; ')));
    const following = this.look(true).type;
    if (negated || following === 'end' || following === ',') {
      return this.checked({ key, operator: negated ? 'notexists' : 'exists', values: [] });
    }
    const op = this.take(false);
    let operator: LabelRequirement['operator'];
    switch (op.type) {
      case 'in':
        operator = 'in';
        break;
      case 'notin':
        operator = 'notin';
        break;
      case '=':
      case '==':
        operator = 'equals';
        break;
      case '!=':
        operator = 'notequals';
        break;
      case '>':
        operator = 'gt';
        break;
      case '<':
        operator = 'lt';
        break;
      default:
        throw new SelectorSyntaxError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : [this.exactValue()];
    return this.checked({ key, operator, values });
  }

  private checked(r: LabelRequirement): LabelRequirement {
    const errs = requirementErrors(r);
    if (errs !== undefined) throw new SelectorSyntaxError(errs);
    return r;
  }

  /** `( v1, v2 )`: a sorted set; `()` and empty items stand for the empty value. */
  private valueSet(): string[] {
    const open = this.take(true);
    if (open.type !== '(') throw new SelectorSyntaxError(`found '${open.text}' expected: '('`);
    const first = this.look(true);
    if (first.type === ')') {
      this.take(true);
      return [''];
    }
    if (first.type !== 'ident' && first.type !== ',') throw new SelectorSyntaxError(`found '${first.text}', expected: ',', ')' or identifier`);
    const set = this.identifierList();
    if (this.take(true).type !== ')') throw new SelectorSyntaxError(`found '${first.text}', expected: ')'`);
    return [...set].sort();
  }

  private identifierList(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const t = this.take(true);
      if (t.type === 'ident') {
        set.add(t.text);
        const next = this.look(true);
        if (next.type === ',') continue;
        if (next.type === ')') return set;
        throw new SelectorSyntaxError(`found '${next.text}', expected: ',' or ')'`);
      }
      if (t.type === ',') {
        if (set.size === 0) set.add('');
        const next = this.look(true);
        if (next.type === ')') {
          set.add('');
          return set;
        }
        if (next.type === ',') {
          this.take(true);
          set.add('');
        }
        continue;
      }
      throw new SelectorSyntaxError(`found '${t.text}', expected: ',', or identifier`);
    }
  }

  /** The one value after `=`, `==`, `!=`, `>` or `<`: empty at a comma or the end. */
  private exactValue(): string {
    const next = this.look(true);
    if (next.type === 'end' || next.type === ',') return '';
    const t = this.take(true);
    if (t.type === 'ident') return t.text;
    throw new SelectorSyntaxError(`found '${t.text}', expected: identifier`);
  }
}

/**
 * Parse a label selector (`labelSelector=` query value). Empty or undefined selects everything. Throws
 * 400 BadRequest with the apiserver's text when the selector does not parse.
 */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (text === undefined || text === '') return new LabelSelector([]);
  let reqs: LabelRequirement[];
  try {
    reqs = new Parser(lex(text)).parse();
  } catch (err) {
    if (err instanceof SelectorSyntaxError) throw badRequest(err.message);
    throw err;
  }
  // Stable sort by key, as the apiserver sorts requirements (ByKey).
  return new LabelSelector(reqs.map((r, i) => ({ r, i })).sort((a, b) => (a.r.key < b.r.key ? -1 : a.r.key > b.r.key ? 1 : a.i - b.i)).map((x) => x.r));
}
