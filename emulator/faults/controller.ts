/**
 * The fault handle tests and the CLI use (`emulator.faults`): rules set at start or at runtime, plus the
 * out-of-band faults that are not tied to one request — token expiry and rotation, and event-history
 * compaction (the next watch or continue from an old resourceVersion gets 410).
 */
import { FaultDecision, FaultRequest, FaultRule, FaultRuleSet, RuleState } from './rules';

/** What the emulator wires in so out-of-band faults reach the token table, kubeconfig and store. */
export interface FaultHooks {
  expireToken(): void;
  rotateToken(options: { ttlMs?: number; expireOld?: boolean }): string;
  compact(): void;
}

/** Options for `new Faults()`. */
export interface FaultsOptions {
  /** Seed of the generator behind `probability` (default 1). */
  seed?: number;
  /** Rules active from the first request. */
  rules?: FaultRule[];
}

/** Runtime control over injected faults. */
export class Faults {
  private readonly ruleSet: FaultRuleSet;
  private hooks: FaultHooks | undefined;

  constructor(options: FaultsOptions = {}) {
    this.ruleSet = new FaultRuleSet(options.seed ?? 1);
    if (options.rules) this.ruleSet.add(...options.rules);
  }

  /** Connect the out-of-band hooks (done by startEmulator). */
  attach(hooks: FaultHooks): void {
    this.hooks = hooks;
  }

  /** Append rules (evaluated after the existing ones); returns their ids. */
  add(...rules: FaultRule[]): string[] {
    return this.ruleSet.add(...rules);
  }

  /** Remove one rule by id. */
  remove(id: string): boolean {
    return this.ruleSet.remove(id);
  }

  /** Remove every rule. */
  clear(): void {
    this.ruleSet.clear();
  }

  /** The rules with their match/applied counters. */
  list(): RuleState[] {
    return this.ruleSet.list();
  }

  /** Restart the probability generator from `seed`. */
  reseed(seed: number): void {
    this.ruleSet.reseed(seed);
  }

  /** Evaluate the rules for one request (used by the HTTP server). */
  decide(req: FaultRequest): FaultDecision {
    return this.ruleSet.decide(req);
  }

  /** Expire the current token: every request carrying it gets 401 Unauthorized from now on. */
  expireToken(): void {
    this.requireHooks('expireToken').expireToken();
  }

  /**
   * Issue a new token and rewrite the kubeconfig (file and `emulator.kubeconfig`). With `expireOld` the
   * previous token stops working at once; otherwise it keeps working until its own expiry.
   */
  rotateToken(options: { ttlMs?: number; expireOld?: boolean } = {}): string {
    return this.requireHooks('rotateToken').rotateToken(options);
  }

  /** Drop the store's event history: watches and continue tokens from older resourceVersions get 410. */
  compact(): void {
    this.requireHooks('compact').compact();
  }

  private requireHooks(what: string): FaultHooks {
    if (!this.hooks) throw new Error(`faults.${what}(): this Faults object is not attached to a running emulator`);
    return this.hooks;
  }
}
