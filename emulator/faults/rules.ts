/**
 * Fault rules: an ordered list of "when a request looks like X, do Y" rows (the faults of
 * docs/design/kube-api-errors.md §"Faults worth injecting").
 * Each rule matches on method, URL regexp, resource, verb, namespace, name or User-Agent, and acts on a
 * bounded number of matching requests (`skip`, `times`) or with a probability drawn from a seeded generator,
 * so a run with the same seed and the same request sequence injects the same faults.
 *
 * Evaluation: rules are tried in order; latency adds up and `expireToken` runs as a side effect; the first
 * terminal action (error, unauthorized, reset, conflict, watch drop) wins and later rules are not consulted
 * (and do not spend their budget).
 */

/** What a rule can match on. Every given field must match; an empty match matches every request. */
export interface FaultMatch {
  /** HTTP method(s), e.g. 'GET' or ['POST', 'PATCH']. */
  method?: string | string[];
  /** Tested against the request URL (path plus query string). A string is compiled as a RegExp. */
  path?: RegExp | string;
  /** Plural (`loadbalancers`) or qualified resource (`loadbalancers.loadbalancer.harvesterhci.io`). */
  resource?: string | string[];
  /** Kubernetes verb(s): get, list, watch, create, update, patch, delete, deletecollection. */
  verb?: string | string[];
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Tested against the User-Agent header. A string is compiled as a RegExp. */
  userAgent?: RegExp | string;
}

/** 429/500/503/504 with a Status body (or, for 429, the APF text/plain body), optionally with Retry-After. */
export interface ErrorAction {
  type: 'error';
  code: 429 | 500 | 503 | 504;
  /** Adds the Retry-After header (kubectl then retries up to 10 times; without it kubectl fails at once). */
  retryAfterSeconds?: number;
  /** 429 only: 'plain' answers like max-in-flight/APF (text/plain `Too many requests, please try again later.`). */
  format?: 'status' | 'plain';
  /** Overrides the cause text of a 500. */
  message?: string;
}

/** 409 on a write: a stale-resourceVersion Conflict, AlreadyExists (create) or an SSA field-manager conflict. */
export interface ConflictAction {
  type: 'conflict';
  reason?: 'Conflict' | 'AlreadyExists' | 'FieldManagerConflict';
  /** FieldManagerConflict only: the other manager and the field it owns. */
  manager?: string;
  field?: string;
}

/** How a watch stream ends. */
export type WatchDropMode = 'clean' | 'expire' | 'reset' | 'stall';

/** Ends (or stalls) a watch stream after a delay or a number of events. */
export interface WatchDropAction {
  type: 'watchDrop';
  /**
   * clean: end the chunked response (clients re-watch); expire: send ERROR 410 then end (clients re-list);
   * reset: destroy the TCP socket (client-node informers stop with an error); stall: headers sent, then nothing.
   */
  mode: WatchDropMode;
  /** Wait this long after the headers (default 0). */
  afterMs?: number;
  /** Or drop after this many events have been written. */
  afterEvents?: number;
}

/** Every action a rule can take. */
export type FaultAction =
  | { type: 'latency'; ms: number }
  | ErrorAction
  | ConflictAction
  | WatchDropAction
  /** Destroy the connection before any response is written (a transport error for the client). */
  | { type: 'reset' }
  /** Answer 401 Unauthorized whatever the token. */
  | { type: 'unauthorized' }
  /** Expire the current token now; this and later requests with it get 401. */
  | { type: 'expireToken' };

/** One rule. */
export interface FaultRule {
  /** Shown in the request journal's `fault` field; defaults to a generated id. */
  name?: string;
  match?: FaultMatch;
  action: FaultAction;
  /** Act on at most this many requests (default: every matching request). */
  times?: number;
  /** Let this many matching requests through before acting. */
  skip?: number;
  /** Act with this probability (0–1) on each eligible request, drawn from the seeded generator. */
  probability?: number;
}

/** What the faults layer needs to know about a request. */
export interface FaultRequest {
  method: string;
  /** Path plus query string. */
  url: string;
  verb: string;
  /** Plural and qualified resource, when the request is for a resource. */
  resource?: string;
  qualifiedResource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  userAgent?: string;
}

/** The combined effect of the rules on one request. */
export interface FaultDecision {
  latencyMs: number;
  /** error / unauthorized / reset / conflict / watchDrop, whichever rule came first. */
  action?: Exclude<FaultAction, { type: 'latency' } | { type: 'expireToken' }>;
  expireToken: boolean;
  /** Names of the rules that acted, for the journal. */
  applied: string[];
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same sequence on every platform. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function asList(v: string | string[] | undefined): string[] | undefined {
  return v === undefined ? undefined : Array.isArray(v) ? v : [v];
}

function regexp(v: RegExp | string): RegExp {
  return typeof v === 'string' ? new RegExp(v) : v;
}

/** Does `match` select `req`? Actions also restrict: conflicts only hit writes, watch drops only watches. */
export function ruleMatches(rule: FaultRule, req: FaultRequest): boolean {
  if (rule.action.type === 'conflict' && !WRITE_VERBS.has(req.verb)) return false;
  if (rule.action.type === 'watchDrop' && req.verb !== 'watch') return false;
  const m = rule.match ?? {};
  const methods = asList(m.method);
  if (methods && !methods.some((x) => x.toUpperCase() === req.method.toUpperCase())) return false;
  if (m.path !== undefined && !regexp(m.path).test(req.url)) return false;
  const resources = asList(m.resource);
  if (resources && !resources.some((r) => r === req.resource || r === req.qualifiedResource)) return false;
  const verbs = asList(m.verb);
  if (verbs && !verbs.includes(req.verb)) return false;
  if (m.namespace !== undefined && m.namespace !== req.namespace) return false;
  if (m.name !== undefined && m.name !== req.name) return false;
  if (m.subresource !== undefined && m.subresource !== req.subresource) return false;
  if (m.userAgent !== undefined && !regexp(m.userAgent).test(req.userAgent ?? '')) return false;
  return true;
}

/** A rule with its bookkeeping. */
export interface RuleState {
  id: string;
  rule: FaultRule;
  /** Matching requests seen so far. */
  matched: number;
  /** Requests the rule acted on. */
  applied: number;
}

/** Check a rule's numbers; throws with the offending field and value. */
export function validateRule(rule: FaultRule): void {
  const where = `fault rule ${rule.name ?? JSON.stringify(rule.action)}`;
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    throw new Error(`${where}: probability must be between 0 and 1 (got ${rule.probability})`);
  }
  for (const field of ['times', 'skip'] as const) {
    const v = rule[field];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new Error(`${where}: ${field} must be a whole number ≥ 0 (got ${v})`);
  }
  const a = rule.action;
  if (a.type === 'latency' && !(a.ms >= 0)) throw new Error(`${where}: latency ms must be ≥ 0 (got ${a.ms})`);
  if (a.type === 'error' && ![429, 500, 503, 504].includes(a.code)) throw new Error(`${where}: error code must be 429, 500, 503 or 504 (got ${a.code})`);
  if (a.type === 'error' && a.format === 'plain' && a.code !== 429) throw new Error(`${where}: format 'plain' is only for 429 (got code ${a.code})`);
  if (a.type === 'watchDrop' && !['clean', 'expire', 'reset', 'stall'].includes(a.mode)) {
    throw new Error(`${where}: watchDrop mode must be clean, expire, reset or stall (got ${String(a.mode)})`);
  }
}

/** The ordered, stateful rule list. */
export class FaultRuleSet {
  private states: RuleState[] = [];
  private nextId = 1;
  private random: () => number;

  constructor(seed = 1) {
    this.random = seededRandom(seed);
  }

  /** Restart the random sequence (rules keep their counters). */
  reseed(seed: number): void {
    this.random = seededRandom(seed);
  }

  /** Append rules; returns their ids. */
  add(...rules: FaultRule[]): string[] {
    for (const rule of rules) validateRule(rule);
    return rules.map((rule) => {
      const id = rule.name ?? `fault-${this.nextId}`;
      this.nextId++;
      this.states.push({ id, rule, matched: 0, applied: 0 });
      return id;
    });
  }

  /** Remove a rule by id; true when it existed. */
  remove(id: string): boolean {
    const before = this.states.length;
    this.states = this.states.filter((s) => s.id !== id);
    return this.states.length !== before;
  }

  clear(): void {
    this.states = [];
  }

  /** A snapshot of the rules and their counters. */
  list(): RuleState[] {
    return this.states.map((s) => ({ ...s }));
  }

  /** Run the rules against a request, updating counters. */
  decide(req: FaultRequest): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0, expireToken: false, applied: [] };
    for (const state of this.states) {
      const { rule } = state;
      if (!ruleMatches(rule, req)) continue;
      state.matched++;
      if (state.matched <= (rule.skip ?? 0)) continue;
      if (rule.times !== undefined && state.applied >= rule.times) continue;
      if (rule.probability !== undefined && rule.probability < 1 && this.random() >= rule.probability) continue;
      state.applied++;
      decision.applied.push(state.id);
      const action = rule.action;
      if (action.type === 'latency') {
        decision.latencyMs += action.ms;
      } else if (action.type === 'expireToken') {
        decision.expireToken = true;
      } else {
        decision.action = action;
        break;
      }
    }
    return decision;
  }
}
