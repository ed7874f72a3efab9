/**
 * The placement decision of the VMI's virt-launcher pod, as kube-scheduler makes it for the predicates that
 * matter to Harvester VMs: node readiness/cordon, untolerated NoSchedule/NoExecute taints, `nodeSelector` and
 * required `nodeAffinity` (terms ORed, expressions ANDed; In/NotIn/Exists/DoesNotExist/Gt/Lt;
 * matchFields metadata.name). Among fitting nodes it spreads: fewest running VMIs first, then by name.
 * Unschedulable reasons read like kube-scheduler's FailedScheduling message, plus the unmet terms.
 */
import { LabelRequirement, LabelSelector } from '../api/selectors';
import { KubeObject } from '../api/types';
import { field, findCondition } from '../util/objects';

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

/** The unmet parts of nodeSelector/affinity across all nodes (for the message). */
function unmetConstraints(podSpec: Record<string, unknown>, nodes: KubeObject[]): string[] {
  const out = new Set<string>();
  const selector = (podSpec.nodeSelector as Record<string, string> | undefined) ?? {};
  for (const [k, v] of Object.entries(selector)) {
    if (!nodes.some((n) => n.metadata.labels?.[k] === v)) out.add(`nodeSelector ${k}=${v}`);
  }
  for (const term of requiredTerms(podSpec) ?? []) {
    for (const r of (term.matchExpressions as Requirement[] | undefined) ?? []) {
      if (!nodes.some((n) => matchesRequirement(n.metadata.labels ?? {}, r))) out.add(describeRequirement(r));
    }
  }
  return [...out];
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

/** How many VMIs (other than `except`) each node runs, the spreading input of placeVmi. */
export function vmisPerNode(vmis: KubeObject[], except: KubeObject): Map<string, number> {
  const load = new Map<string, number>();
  for (const other of vmis) {
    const node = field<string>(other, 'status', 'nodeName');
    if (node && other.metadata.uid !== except.metadata.uid) load.set(node, (load.get(node) ?? 0) + 1);
  }
  return load;
}

/**
 * Picks a node for the pod spec. `load` counts VMIs already placed per node name (for spreading).
 */
export function placeVmi(podSpec: Record<string, unknown>, nodes: KubeObject[], load: Map<string, number>): Placement {
  const reasons = new Map<string, number>();
  const note = (reason: string): void => {
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  };
  const tolerations = (podSpec.tolerations as Toleration[] | undefined) ?? [];
  const fitting: KubeObject[] = [];
  for (const node of nodes) {
    if (!isReady(node)) {
      note("node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
      continue;
    }
    if (field<boolean>(node, 'spec', 'unschedulable')) {
      note('node(s) were unschedulable');
      continue;
    }
    const taints = (field<Taint[]>(node, 'spec', 'taints') ?? []).filter(
      (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute',
    );
    const blocking = taints.find((t) => !tolerates(tolerations, t));
    if (blocking) {
      note(`node(s) had untolerated taint {${blocking.key}: ${blocking.value ?? ''}}`);
      continue;
    }
    if (!matchesNodeAffinity(podSpec, node)) {
      note("node(s) didn't match Pod's node affinity/selector");
      continue;
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
  if (nodes.length === 0) return { message: '0/0 nodes are available: no nodes available to schedule pods.' };
  const parts = [...reasons.entries()].map(([reason, n]) => `${n} ${reason}`).sort();
  let message = `0/${nodes.length} nodes are available: ${parts.join(', ')}.`;
  const unmet = unmetConstraints(podSpec, nodes);
  if (unmet.length > 0) message += ` No node satisfies: ${unmet.join('; ')}.`;
  return { message };
}
