/**
 * The shapes of a capacity check: the plan it is asked about and its verdicts per zone and per quota (fit.ts makes
 * them, message.ts words them; docs/design/capacity.md §messages).
 */
import type { HostRules } from './eligibility';
import type { VmFootprint, VmShape } from './formulas';

/** VMs per zone (`zone` unset: not pinned to a zone). */
export interface ZoneDemand {
  zone?: string;
  count: number;
}

/** A pool's plan, as the check sees it. */
export interface FitPlan {
  /** Pool name, for messages. */
  pool: string;
  namespace: string;
  /** Per-VM limits of the VMs to create. */
  vm: VmShape;
  /** Size of the VMs a roll replaces (for the surge). @default vm */
  previousVm?: VmShape;
  /** VMs created: new ones and replacements. */
  create: ZoneDemand[];
  /** Old-size VMs still alive at a roll's peak (maxSurge), in the zones of the VMs they replace. */
  surge?: ZoneDemand[];
  /** Names of the pool's VMs deleted before anything is created (scale-down, delete-before-replace). */
  release?: string[];
  /**
   * The pool's VMs that stay as they are (neither deleted nor replaced), per zone: not demand, but the count a message
   * suggests lowering to includes them ("lower the count to" kept + what fits).
   */
  kept?: ZoneDemand[];
  rules?: HostRules;
}

/** Which resource ran out first. */
export type Limiting = 'cpu' | 'memory' | 'pods' | 'no eligible host';

/** The verdict of one zone (or of all hosts, `zone` unset). */
export interface ZoneFit {
  zone?: string;
  demand: number;
  /** How many new VMs fit (after the surge). */
  fits: number;
  limiting?: Limiting;
  eligible: string[];
  /** Hosts of the zone that cannot take the VMs, with why. */
  excluded: { host: string; reason: string }[];
  /** Free on the eligible hosts, after releases and the surge. */
  free: { cpuMillis: number; memoryBytes: number; pods: number };
  surge: number;
}

/** The verdict of one ResourceQuota. */
export interface QuotaFit {
  quota: string;
  demand: number;
  fits: number;
  /** The resource that allows the fewest VMs. */
  limiting?: string;
  remaining: Record<string, number>;
  hard: Record<string, number>;
  perVm: Record<string, number>;
}

/** One shortfall. */
export interface FitProblem {
  /** In the shape of docs/design/capacity.md §messages. */
  message: string;
  /** Hosts (a zone or all eligible hosts) or a quota. */
  scope: 'hosts' | 'quota';
  /** Built on complete reads: refuse. Otherwise (a read was forbidden or failed) only warn. */
  certain: boolean;
}

/** The check's answer. */
export interface FitResult {
  /** Everything fits (hosts and quotas), as far as could be read. */
  fits: boolean;
  footprint: VmFootprint;
  zones: ZoneFit[];
  quotas: QuotaFit[];
  problems: FitProblem[];
  /** The certain shortfalls' messages (what `capacityCheck: "error"` refuses). */
  errors: string[];
  /** Uncertain shortfalls and the reads that could not be made (naming the missing permission). */
  warnings: string[];
}
