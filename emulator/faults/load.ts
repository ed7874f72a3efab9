/**
 * Fault rules from a file, for the CLI's `--faults PATH` (read at start and again on SIGHUP): YAML or JSON,
 * either a list of rules or `{rules: [...]}`, each rule shaped like FaultRule (rules.ts), e.g.
 *
 *   - name: throttle-lists
 *     match: {verb: list, resource: virtualmachines}
 *     action: {type: error, code: 429, retryAfterSeconds: 1}
 *     probability: 0.2
 *   - action: {type: watchDrop, mode: expire, afterMs: 5000}
 *
 * Every problem names the file and the rule's position, so a typo is found without reading code.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../api/store-json';
import { FaultRule, validateRule } from './rules';

const ACTION_TYPES = ['latency', 'error', 'conflict', 'watchDrop', 'reset', 'unauthorized', 'expireToken'];

/** Check one parsed rule's shape (types of the fields rules.ts reads); returns it typed. */
function checkRule(value: unknown): FaultRule {
  if (!isPlainObject(value)) throw new Error('must be a mapping with at least `action`');
  if (!isPlainObject(value.action)) throw new Error('needs an `action` mapping, e.g. {type: error, code: 503}');
  const type = value.action.type;
  if (typeof type !== 'string' || !ACTION_TYPES.includes(type)) {
    throw new Error(`action.type must be one of ${ACTION_TYPES.join(', ')} (got ${JSON.stringify(type)})`);
  }
  if (value.match !== undefined && !isPlainObject(value.match)) throw new Error('`match` must be a mapping (method, path, resource, verb, namespace, name, subresource, userAgent)');
  for (const key of ['times', 'skip', 'probability'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'number') throw new Error(`\`${key}\` must be a number (got ${JSON.stringify(value[key])})`);
  }
  const rule = value as unknown as FaultRule;
  validateRule(rule);
  return rule;
}

/** Read and check the rules in `path`; throws `faults file PATH: ...` naming what is wrong. */
export function loadFaultRules(path: string): FaultRule[] {
  const where = `faults file ${path}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${where}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new Error(`${where}: is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = isPlainObject(parsed) && Array.isArray(parsed.rules) ? parsed.rules : parsed;
  if (!Array.isArray(list)) throw new Error(`${where}: must hold a list of fault rules (or {rules: [...]})`);
  return list.map((value, i) => {
    try {
      return checkRule(value);
    } catch (err) {
      throw new Error(`${where}: rule #${i + 1}: ${(err as Error).message}`);
    }
  });
}
