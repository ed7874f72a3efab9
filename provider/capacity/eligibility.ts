/**
 * Which hosts a pool's VMs may run on, as kube-scheduler's filters decide for their launcher pods
 * (docs/design/capacity.md §hosts): Ready, not cordoned, no NoSchedule/NoExecute taint the pod does
 * not tolerate, KubeVirt's node selector (`kubevirt.io/schedulable=true`, the architecture, `cpumanager=true`
 * with dedicated CPUs), Harvester's `network.harvesterhci.io/<cluster network>=true` for each VM network, the
 * pool's node selector and required node affinity (terms ORed, expressions ANDed).
 */
import type { HostCapacity } from './compute';

/** A NodeSelectorRequirement. */
export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  values?: string[];
}

/** What restricts the pool's hosts. */
export interface HostRules {
  /** The pool's own node selector (label → value). */
  nodeSelector?: Record<string, string>;
  /**
   * Required node affinity terms (nodeSelectorTerms): ORed, each an AND of its expressions (on labels) and fields
   * (`metadata.name`, the only field a node selector may name); a term with neither matches no host.
   */
  nodeSelectorTerms?: { matchExpressions?: Requirement[]; matchFields?: Requirement[] }[];
  /** Tolerations of the VM (launcher pods tolerate nothing else that matters here). */
  tolerations?: { key?: string; operator?: string; value?: string; effect?: string }[];
  /** Cluster networks the VM's networks ride on (their NADs' `network.harvesterhci.io/clusternetwork`). */
  clusterNetworks?: string[];
  /** The VM's architecture. @default amd64 */
  architecture?: string;
  /** Dedicated CPU placement (needs `cpumanager=true`). */
  dedicatedCpu?: boolean;
}

function matches(labels: Record<string, string>, r: Requirement): boolean {
  const v = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return v !== undefined && values.includes(v);
    case 'NotIn':
      return v === undefined || !values.includes(v);
    case 'Exists':
      return v !== undefined;
    case 'DoesNotExist':
      return v === undefined;
    case 'Gt':
    case 'Lt': {
      const n = Number(v);
      const bound = Number(values[0]);
      if (v === undefined || values.length !== 1 || !Number.isInteger(n) || !Number.isInteger(bound)) return false;
      return r.operator === 'Gt' ? n > bound : n < bound;
    }
    default:
      return false;
  }
}

function tolerated(rules: HostRules, taint: string): boolean {
  const [keyValue, effect] = taint.split(':');
  const [key, value = ''] = keyValue.split('=');
  return (rules.tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === key;
    return t.key === key && (t.value ?? '') === value;
  });
}

/** Why the host cannot take the pool's VMs ("cordoned", "not ready", …), or undefined when it can. */
export function ineligibility(host: HostCapacity, rules: HostRules): string | undefined {
  if (!host.ready) return 'not ready';
  if (!host.schedulable) return 'cordoned';
  const taint = host.taints.find((t) => !tolerated(rules, t));
  if (taint) return `tainted ${taint}`;
  const labels = host.labels;
  if (labels['kubevirt.io/schedulable'] !== 'true') return 'not schedulable by KubeVirt';
  const arch = rules.architecture ?? 'amd64';
  if (labels['kubernetes.io/arch'] !== undefined && labels['kubernetes.io/arch'] !== arch) return `not ${arch}`;
  if (rules.dedicatedCpu && labels.cpumanager !== 'true') return 'no CPU manager (cpumanager=true)';
  const network = (rules.clusterNetworks ?? []).find((cn) => labels[`network.harvesterhci.io/${cn}`] !== 'true');
  if (network) return `not on cluster network ${network}`;
  const selector = Object.entries(rules.nodeSelector ?? {}).find(([k, v]) => labels[k] !== v);
  if (selector) return `not labelled ${selector[0]}=${selector[1]}`;
  const terms = rules.nodeSelectorTerms ?? [];
  const fields = { 'metadata.name': host.name };
  const termMatches = (t: NonNullable<HostRules['nodeSelectorTerms']>[number]) => {
    const expressions = t.matchExpressions ?? [];
    const byField = t.matchFields ?? [];
    return expressions.length + byField.length > 0 && expressions.every((r) => matches(labels, r)) && byField.every((r) => matches(fields, r));
  };
  if (terms.length > 0 && !terms.some(termMatches)) return "outside the pool's node affinity";
  return undefined;
}
