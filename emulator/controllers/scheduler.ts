/**
 * The placement decision of a virt-launcher pod, as kube-scheduler makes it for the filters that matter to
 * Harvester VMs, in the default plugin order: NodeUnschedulable (cordon), TaintToleration (untolerated
 * NoSchedule/NoExecute taints, a NotReady host's `node.kubernetes.io/not-ready` among them), NodeAffinity
 * (`nodeSelector` and required node affinity: terms ORed, expressions ANDed; In/NotIn/Exists/DoesNotExist/Gt/Lt;
 * matchFields metadata.name) and NodeResourcesFit (Σ requests of the host's pods + this pod ≤ allocatable, for
 * pods, cpu, memory, ephemeral-storage and extended resources). Among fitting hosts it spreads: fewest pods
 * first, then by name (kube-scheduler scores instead; the emulator stays deterministic).
 *
 * Nothing fits → kube-scheduler's FitError text (pkg/scheduler/framework/types.go): `0/N nodes are available:
 * <count> <reason>, …` with the reasons sorted, then the DefaultPreemption post-filter's own FitError after
 * `preemption: ` (pkg/scheduler/framework/preemption): hosts failing a filter preemption cannot help (cordon,
 * taint, affinity, a request above the host's allocatable) count as "Preemption is not helpful for scheduling",
 * the others as "No preemption victims found for incoming pod" (every pod here has priority 0). The
 * post-filter text ends in a period and FitError adds another, hence the two dots real events show.
 */
import { LabelRequirement, LabelSelector } from '../api/selectors';
import { KubeObject } from '../api/types';
import { field, findCondition } from '../util/objects';
import { Amounts, amountsOf } from '../util/resources';

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** Result of a placement attempt. */
export interface Placement {
  node?: KubeObject;
  /** kube-scheduler style message when no node fits, e.g. "0/3 nodes are available: …". */
  message?: string;
}

/** What NodeResourcesFit needs: the pod's requests and what each host's pods already request. */
export interface ResourceFit {
  request: Amounts;
  used: ReadonlyMap<string, Amounts>;
}

/** NodeSelectorRequirement operators in the apiserver label-selector vocabulary (same semantics). */
const OPERATORS: Record<string, LabelRequirement['operator']> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: 'notexists',
  Gt: 'gt',
  Lt: 'lt',
};

function matchesRequirement(labels: Record<string, string>, r: Requirement): boolean {
  const operator = OPERATORS[r.operator];
  if (!operator || ((operator === 'gt' || operator === 'lt') && r.values?.length !== 1)) return false;
  return new LabelSelector([{ key: r.key, operator, values: r.values ?? [] }]).matches(labels);
}

/** `key In [a, b]` / `key Exists` text of a requirement, for messages. */
export function describeRequirement(r: Requirement): string {
  return r.values && r.values.length > 0 ? `${r.key} ${r.operator} [${r.values.join(', ')}]` : `${r.key} ${r.operator}`;
}

function termMatches(node: KubeObject, term: Record<string, unknown>): boolean {
  const labels = node.metadata.labels ?? {};
  const exprs = (term.matchExpressions as Requirement[] | undefined) ?? [];
  const fields = (term.matchFields as Requirement[] | undefined) ?? [];
  if (exprs.length === 0 && fields.length === 0) return false; // an empty term matches nothing
  return (
    exprs.every((r) => matchesRequirement(labels, r)) &&
    fields.every((r) => r.key === 'metadata.name' && matchesRequirement({ 'metadata.name': String(node.metadata.name) }, r))
  );
}

function requiredTerms(podSpec: Record<string, unknown>): Record<string, unknown>[] | undefined {
  return field<Record<string, unknown>[]>(
    podSpec,
    'affinity',
    'nodeAffinity',
    'requiredDuringSchedulingIgnoredDuringExecution',
    'nodeSelectorTerms',
  );
}

/** Does the node satisfy the pod spec's nodeSelector and required node affinity? */
export function matchesNodeAffinity(podSpec: Record<string, unknown>, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  const selector = (podSpec.nodeSelector as Record<string, string> | undefined) ?? {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const terms = requiredTerms(podSpec);
  if (terms === undefined) return true;
  return terms.some((t) => termMatches(node, t));
}

function tolerates(tolerations: Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function isReady(node: KubeObject): boolean {
  return findCondition(node, 'Ready')?.status === 'True';
}

/** The NodeResourcesFit reasons of one host, and whether preemption could not help (a request above allocatable). */
export function insufficientResources(node: KubeObject, fit: ResourceFit): { reasons: string[]; unresolvable: boolean } {
  const allocatable = amountsOf(field(node, 'status', 'allocatable') ?? field(node, 'status', 'capacity'));
  const used = fit.used.get(String(node.metadata.name)) ?? {};
  const reasons: string[] = [];
  let unresolvable = false;
  const names = ['pods', 'cpu', 'memory', 'ephemeral-storage', ...Object.keys(fit.request).filter((k) => !['pods', 'cpu', 'memory', 'ephemeral-storage'].includes(k)).sort()];
  for (const name of names) {
    const want = fit.request[name] ?? 0;
    if (want <= 0) continue;
    const have = allocatable[name] ?? 0;
    if (want + (used[name] ?? 0) <= have) continue;
    reasons.push(name === 'pods' ? 'Too many pods' : `Insufficient ${name}`);
    if (want > have) unresolvable = true;
  }
  return { reasons, unresolvable };
}

/** kube-scheduler's FitError text for reasons counted over `total` hosts, with the preemption post-filter's verdicts. */
export function fitErrorMessage(total: number, reasons: ReadonlyMap<string, number>, preemption: ReadonlyMap<string, number>, preFilter?: string): string {
  const histogram = (counts: ReadonlyMap<string, number>) => [...counts.entries()].map(([reason, n]) => `${n} ${reason}`).sort().join(', ');
  const head = `0/${total} nodes are available:`;
  const filters = preFilter !== undefined ? ` ${preFilter}.` : ` ${histogram(reasons)}.`;
  return `${head}${filters} preemption: ${head} ${histogram(preemption)}..`;
}

/**
 * Picks a node for the pod spec. `load` counts pods already placed per node name (for spreading); `fit` adds
 * NodeResourcesFit (left out, only the predicates on labels, taints and cordon apply).
 */
export function placeVmi(podSpec: Record<string, unknown>, nodes: KubeObject[], load: Map<string, number>, fit?: ResourceFit): Placement {
  const reasons = new Map<string, number>();
  const preemption = new Map<string, number>();
  const note = (map: Map<string, number>, reason: string): void => {
    map.set(reason, (map.get(reason) ?? 0) + 1);
  };
  const notHelpful = (reason: string): void => {
    note(reasons, reason);
    note(preemption, 'Preemption is not helpful for scheduling');
  };
  const tolerations = (podSpec.tolerations as Toleration[] | undefined) ?? [];
  const fitting: KubeObject[] = [];
  for (const node of nodes) {
    if (field<boolean>(node, 'spec', 'unschedulable')) {
      notHelpful('node(s) were unschedulable');
      continue;
    }
    const taints = (field<Taint[]>(node, 'spec', 'taints') ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
    if (!isReady(node) && !taints.some((t) => t.key === 'node.kubernetes.io/not-ready')) taints.unshift({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
    const blocking = taints.find((t) => !tolerates(tolerations, t));
    if (blocking) {
      notHelpful(`node(s) had untolerated taint {${blocking.key}: ${blocking.value ?? ''}}`);
      continue;
    }
    if (!matchesNodeAffinity(podSpec, node)) {
      notHelpful("node(s) didn't match Pod's node affinity/selector");
      continue;
    }
    if (fit) {
      const short = insufficientResources(node, fit);
      if (short.reasons.length > 0) {
        for (const r of short.reasons) note(reasons, r);
        note(preemption, short.unresolvable ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod');
        continue;
      }
    }
    fitting.push(node);
  }
  if (fitting.length > 0) {
    fitting.sort((a, b) => {
      const la = load.get(String(a.metadata.name)) ?? 0;
      const lb = load.get(String(b.metadata.name)) ?? 0;
      return la - lb || String(a.metadata.name).localeCompare(String(b.metadata.name));
    });
    return { node: fitting[0] };
  }
  if (nodes.length === 0) return { message: 'no nodes available to schedule pods' };
  return { message: fitErrorMessage(nodes.length, reasons, preemption) };
}
