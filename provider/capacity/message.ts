/**
 * The check's messages (docs/design/capacity.md §messages). A zone that cannot take its VMs reads:
 *
 *   zone "b" can take 5 of 50 new VMs (4 vCPU / 8 GiB each = 405m CPU + 5.8 GiB requested at overcommit
 *   cpu 1000% / memory 150%); zone b: hosts h4, h5, h6 (h7 cordoned), 22 vCPU (2.2 cores) and 96 GiB free;
 *   CPU is the limit. Options: …
 *
 * (without zones: "the eligible hosts can take …; hosts …"). A quota that cannot take them reads:
 *
 *   namespace "default" quota "compute" can take 2 of 5 new VMs (4 vCPU / 8 GiB each = 4015m limits.cpu + 8.5
 *   GiB limits.memory); limits.cpu: 7985m of 16 left; limits.cpu is the limit. Options: …
 */
import { cores, cpuQuantity, gib } from './amounts';
import type { Capacity } from './compute';
import type { FitPlan, QuotaFit, ZoneFit } from './verdicts';
import { freeVcpus, VmFootprint, VmShape } from './formulas';

function shape(vm: VmShape): string {
  return `${vm.cpu} vCPU / ${gib(vm.memoryBytes)}`;
}

function list(names: string[]): string {
  return names.join(', ');
}

/** The pool's VMs that stay, in `zone` (undefined: all of them). */
function keptIn(plan: FitPlan, zone?: string): number {
  return (plan.kept ?? []).filter((k) => zone === undefined || k.zone === zone).reduce((n, k) => n + k.count, 0);
}

function options(z: ZoneFit, plan: FitPlan, capacity: Capacity): string {
  const where = z.zone === undefined ? '' : ` in zone ${z.zone}`;
  const oc = capacity.settings.overcommit;
  const hosts = z.eligible.length > 0 ? ` on hosts ${list(z.eligible)}` : '';
  const lower = `lower the count${where} to ${keptIn(plan, z.zone) + z.fits}`;
  switch (z.limiting) {
    case 'cpu':
      return `${lower}, add hosts${z.zone === undefined ? '' : ' or zones'}, raise overcommit-config cpu (now ${oc.cpu}%), give each VM fewer vCPUs, or free CPU${hosts}`;
    case 'memory':
      return `${lower}, add hosts${z.zone === undefined ? '' : ' or zones'}, give each VM less memory, raise overcommit-config memory (now ${oc.memory}%), or free memory${hosts}`;
    case 'pods':
      return `${lower}, add hosts${z.zone === undefined ? '' : ' or zones'}, or raise the hosts' max pods`;
    default: {
      const fixes = [...new Set(z.excluded.map((e) => e.reason))].map((r) =>
        r === 'cordoned' ? 'uncordon a host' : r === 'not ready' ? 'bring a host back' : r.startsWith('not on cluster network') ? `attach a host to ${r.slice('not on cluster network '.length)}` : `fix "${r}"`,
      );
      const zoneFix = z.zone === undefined ? '' : `, label a host topology.kubernetes.io/zone=${z.zone}`;
      return `${[...fixes, `use other zones${zoneFix}`].join(', ')}, or drop the pool's host rules${plan.rules?.nodeSelectorTerms?.length ? ' (affinity)' : ''}`;
    }
  }
}

/** The message of a zone (or of all hosts) that cannot take its VMs. */
export function zoneMessage(z: ZoneFit, plan: FitPlan, fp: VmFootprint, capacity: Capacity): string {
  const oc = capacity.settings.overcommit;
  const subject = z.zone === undefined ? 'the eligible hosts' : `zone "${z.zone}"`;
  const surge = z.surge > 0 ? `; and room for ${z.surge} VM${z.surge === 1 ? '' : 's'} of the old size at the roll's peak` : '';
  const excluded = z.excluded.length > 0 ? ` (${list(z.excluded.map((e) => `${e.host} ${e.reason}`))})` : '';
  const hosts = z.eligible.length > 0 ? `hosts ${list(z.eligible)}${excluded}` : `no eligible host${excluded}`;
  const place = z.zone === undefined ? hosts : `zone ${z.zone}: ${hosts}`;
  const free = `${freeVcpus(z.free.cpuMillis, oc)} vCPU (${cores(z.free.cpuMillis)}) and ${gib(z.free.memoryBytes)} free`;
  const limit = z.limiting === 'cpu' ? 'CPU is the limit' : z.limiting === 'memory' ? 'memory is the limit' : z.limiting === 'pods' ? 'the pod count is the limit' : 'no host is eligible';
  return (
    `${subject} can take ${z.fits} of ${z.demand} new VMs (${shape(plan.vm)} each = ${cpuQuantity(fp.requests.cpu)} CPU + ${gib(fp.requests.memory)} requested` +
    ` at overcommit cpu ${oc.cpu}% / memory ${oc.memory}%${surge}); ${place}, ${free}; ${limit}. Options: ${options(z, plan, capacity)}.`
  );
}

function quantity(resource: string, amount: number): string {
  return resource.endsWith('cpu') ? cpuQuantity(amount) : resource.endsWith('memory') ? gib(amount) : String(amount);
}

/** The message of a quota that cannot take the VMs. */
export function quotaMessage(q: QuotaFit, plan: FitPlan): string {
  const limiting = q.limiting ?? 'pods';
  const perVm = ['limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory', 'cpu', 'memory', 'pods']
    .filter((k) => q.hard[k] !== undefined)
    .map((k) => `${quantity(k, q.perVm[k])} ${k}`)
    .join(' + ');
  const left = `${limiting}: ${quantity(limiting, Math.max(0, q.remaining[limiting]))} of ${quantity(limiting, q.hard[limiting])} left`;
  return (
    `namespace "${plan.namespace}" quota "${q.quota}" can take ${q.fits} of ${q.demand} new VMs (${shape(plan.vm)} each = ${perVm}); ${left}; ${limiting} is the limit.` +
    ` Options: lower the count to ${keptIn(plan) + q.fits}, raise the quota's ${limiting}, or stop other VMs in namespace ${plan.namespace}.`
  );
}
