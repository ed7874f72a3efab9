/**
 * Pure: does a pool's plan fit, on the hosts and in the namespace's quotas? (docs/design/capacity.md §fit)
 *
 * The demand is the peak of the plan: the VMs it creates (new ones and the replacements of a roll, at the new
 * size, per zone) plus, during a roll, `maxSurge` VMs of the old size still alive; the VMs it deletes before
 * creating anything give their room back first. Per zone (or over all eligible hosts when the pool is not
 * pinned to zones), the surge VMs are placed first, then each eligible host takes ⌊min(free CPU / request,
 * free memory / request, free pods)⌋ new VMs, never splitting a VM across hosts. The check packs while
 * kube-scheduler spreads, so "fits" is necessary, not sufficient. Quotas count the launcher pods' requests and
 * limits against `hard − used`.
 */
import { Amounts } from './amounts';
import type { Capacity, HostCapacity, QuotaCapacity } from './compute';
import { ineligibility } from './eligibility';
import { footprint, type VmFootprint } from './formulas';
import { quotaMessage, zoneMessage } from './message';
import type { FitPlan, FitProblem, FitResult, Limiting, QuotaFit, ZoneFit } from './verdicts';

export type { FitPlan, FitProblem, FitResult, Limiting, QuotaFit, ZoneDemand, ZoneFit } from './verdicts';

type Room = { cpu: number; memory: number; pods: number };

function roomOf(host: HostCapacity, released: Amounts): Room {
  return { cpu: host.free.cpuMillis + (released.cpu ?? 0), memory: host.free.memoryBytes + (released.memory ?? 0), pods: host.free.pods + (released.pods ?? 0) };
}

function takes(room: Room, request: Amounts): number {
  const per = (have: number, want: number | undefined) => (want && want > 0 ? Math.floor(Math.max(0, have) / want) : Number.POSITIVE_INFINITY);
  return Math.min(per(room.cpu, request.cpu), per(room.memory, request.memory), per(room.pods, request.pods));
}

function fitZone(hosts: HostCapacity[], zone: string | undefined, demand: number, surge: number, plan: FitPlan, fp: VmFootprint, old: VmFootprint, releasedOn: Map<string, Amounts>): ZoneFit {
  const rules = { ...plan.rules, dedicatedCpu: plan.vm.dedicatedCpu || plan.rules?.dedicatedCpu };
  const eligible: HostCapacity[] = [];
  const excluded: ZoneFit['excluded'] = [];
  for (const h of hosts) {
    const why = ineligibility(h, rules);
    if (why) excluded.push({ host: h.name, reason: why });
    else eligible.push(h);
  }
  const rooms = new Map(eligible.map((h) => [h.name, roomOf(h, releasedOn.get(h.name) ?? {})]));
  // The surge's old-size VMs first, each on the host with the most free memory that takes it.
  let placedSurge = 0;
  for (let i = 0; i < surge; i++) {
    const best = [...rooms.entries()].filter(([, r]) => takes(r, old.requests) >= 1).sort((a, b) => b[1].memory - a[1].memory)[0];
    if (!best) break;
    best[1].cpu -= old.requests.cpu ?? 0;
    best[1].memory -= old.requests.memory ?? 0;
    best[1].pods -= 1;
    placedSurge++;
  }
  const all = [...rooms.values()];
  const fits = Math.max(0, all.reduce((n, r) => n + takes(r, fp.requests), 0) - (surge - placedSurge));
  const free = { cpuMillis: all.reduce((n, r) => n + Math.max(0, r.cpu), 0), memoryBytes: all.reduce((n, r) => n + Math.max(0, r.memory), 0), pods: all.reduce((n, r) => n + Math.max(0, r.pods), 0) };
  let limiting: Limiting | undefined;
  if (fits < demand) {
    if (eligible.length === 0) limiting = 'no eligible host';
    else {
      const only = (k: keyof Room) => all.reduce((n, r) => n + takes({ cpu: Infinity, memory: Infinity, pods: Infinity, [k]: r[k] } as Room, fp.requests), 0);
      const per: [Limiting, number][] = [['cpu', only('cpu')], ['memory', only('memory')], ['pods', only('pods')]];
      limiting = per.sort((a, b) => a[1] - b[1])[0][0];
    }
  }
  return { zone, demand, fits, limiting, eligible: eligible.map((h) => h.name), excluded, free, surge };
}

const QUOTA_KEYS = ['pods', 'count/pods', 'cpu', 'requests.cpu', 'memory', 'requests.memory', 'limits.cpu', 'limits.memory'];

function usageOf(f: VmFootprint): Record<string, number> {
  return {
    pods: 1,
    'count/pods': 1,
    cpu: f.requests.cpu,
    'requests.cpu': f.requests.cpu,
    memory: f.requests.memory,
    'requests.memory': f.requests.memory,
    'limits.cpu': f.limits.cpu,
    'limits.memory': f.limits.memory,
  };
}

function fitQuota(q: QuotaCapacity, demand: number, surge: number, fp: VmFootprint, old: VmFootprint, released: Record<string, number>): QuotaFit {
  const perVm = usageOf(fp);
  const perOld = usageOf(old);
  const remaining: Record<string, number> = {};
  let fits = Number.POSITIVE_INFINITY;
  let limiting: string | undefined;
  for (const k of QUOTA_KEYS.filter((key) => q.hard[key] !== undefined)) {
    remaining[k] = q.hard[k] - (q.used[k] ?? 0) + (released[k] ?? 0) - surge * perOld[k];
    const n = Math.floor(Math.max(0, remaining[k]) / perVm[k]);
    if (n < fits) [fits, limiting] = [n, k];
  }
  return { quota: q.name, demand, fits: Number.isFinite(fits) ? fits : demand, limiting: fits < demand ? limiting : undefined, remaining, hard: q.hard, perVm };
}

/** The verdict for `plan` on the snapshot `capacity`. */
export function fit(capacity: Capacity, plan: FitPlan): FitResult {
  const fp = footprint(plan.vm, capacity.settings);
  const old = footprint(plan.previousVm ?? plan.vm, capacity.settings);
  const released = new Set(plan.release ?? []);
  const releasedPods = (capacity.launchers ?? []).filter((l) => released.has(l.vm));
  const releasedOn = new Map<string, Amounts>();
  for (const l of releasedPods) {
    if (!l.host) continue;
    const prev = releasedOn.get(l.host) ?? {};
    releasedOn.set(l.host, { cpu: (prev.cpu ?? 0) + l.requests.cpuMillis, memory: (prev.memory ?? 0) + l.requests.memoryBytes, pods: (prev.pods ?? 0) + l.requests.pods });
  }
  const warnings = [...capacity.warnings];
  if (released.size > 0 && !capacity.launchers) warnings.push('capacity: the room of the VMs deleted first is not known (pods unreadable); it is not counted');

  const demands = new Map<string | undefined, { create: number; surge: number }>();
  for (const d of plan.create) demands.set(d.zone, { create: (demands.get(d.zone)?.create ?? 0) + d.count, surge: demands.get(d.zone)?.surge ?? 0 });
  for (const d of plan.surge ?? []) demands.set(d.zone, { create: demands.get(d.zone)?.create ?? 0, surge: (demands.get(d.zone)?.surge ?? 0) + d.count });
  const zones: ZoneFit[] = [];
  for (const [zone, d] of [...demands.entries()].sort((a, b) => String(a[0] ?? '').localeCompare(String(b[0] ?? '')))) {
    if (d.create === 0 && d.surge === 0) continue;
    const hosts = zone === undefined ? capacity.hosts : capacity.hosts.filter((h) => h.zone === zone);
    zones.push(fitZone(hosts, zone, d.create, d.surge, plan, fp, old, releasedOn));
  }

  const totalCreate = plan.create.reduce((n, d) => n + d.count, 0);
  const totalSurge = (plan.surge ?? []).reduce((n, d) => n + d.count, 0);
  const releasedUsage: Record<string, number> = {};
  for (const l of releasedPods) for (const [k, v] of Object.entries(l.quotaUsage)) releasedUsage[k] = (releasedUsage[k] ?? 0) + v;
  const quotas = totalCreate + totalSurge === 0 ? [] : (capacity.quotas ?? []).map((q) => fitQuota(q, totalCreate, totalSurge, fp, old, releasedUsage));

  if (capacity.namespace !== plan.namespace || capacity.quotas === undefined) warnings.push(`capacity: the quotas of namespace ${plan.namespace} were not checked (not read)`);
  const problems: FitProblem[] = [
    ...zones.filter((z) => z.fits < z.demand).map((z) => ({ message: zoneMessage(z, plan, fp, capacity), scope: 'hosts' as const, certain: capacity.certain })),
    ...quotas.filter((q) => q.fits < q.demand).map((q) => ({ message: quotaMessage(q, plan), scope: 'quota' as const, certain: true })),
  ];
  for (const p of problems) if (!p.certain) warnings.push(`capacity (uncertain: see the warnings above): ${p.message}`);
  return { fits: problems.length === 0, footprint: fp, zones, quotas, problems, errors: problems.filter((p) => p.certain).map((p) => p.message), warnings };
}
