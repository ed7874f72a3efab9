/**
 * Scheduling fields shared with core PodSpec, used inside KubeVirt VMI specs: affinity (the node driver's
 * default anti-affinity and Harvester's management-network node affinity), tolerations and topology spread.
 */
import { JsonSchema } from '../../api/types';
import { arr, int32, int64, obj, str, stringMap } from '../schema/builders';

const requirement = obj({ key: str(), operator: str(), values: arr(str()) }, ['key', 'operator']);

/** metav1.LabelSelector. */
export const labelSelector: JsonSchema = obj({ matchExpressions: arr(requirement), matchLabels: stringMap() });

const nodeSelectorTerm = obj({ matchExpressions: arr(requirement), matchFields: arr(requirement) });

const podAffinityTerm = obj(
  {
    labelSelector,
    matchLabelKeys: arr(str()),
    mismatchLabelKeys: arr(str()),
    namespaceSelector: labelSelector,
    namespaces: arr(str()),
    topologyKey: str(),
  },
  ['topologyKey'],
);

const weightedPodAffinityTerm = obj({ podAffinityTerm, weight: int32() }, ['podAffinityTerm', 'weight']);

const podAffinity = obj({
  preferredDuringSchedulingIgnoredDuringExecution: arr(weightedPodAffinityTerm),
  requiredDuringSchedulingIgnoredDuringExecution: arr(podAffinityTerm),
});

/** core/v1 Affinity. */
export const affinity: JsonSchema = obj({
  nodeAffinity: obj({
    preferredDuringSchedulingIgnoredDuringExecution: arr(
      obj({ preference: nodeSelectorTerm, weight: int32() }, ['preference', 'weight']),
    ),
    requiredDuringSchedulingIgnoredDuringExecution: obj({ nodeSelectorTerms: arr(nodeSelectorTerm) }, [
      'nodeSelectorTerms',
    ]),
  }),
  podAffinity,
  podAntiAffinity: podAffinity,
});

/** core/v1 Toleration. */
export const toleration: JsonSchema = obj({
  key: str(),
  operator: str(),
  value: str(),
  effect: str(),
  tolerationSeconds: int64(),
});

/** core/v1 TopologySpreadConstraint. */
export const topologySpreadConstraint: JsonSchema = obj(
  {
    labelSelector,
    matchLabelKeys: arr(str()),
    maxSkew: int32(),
    minDomains: int32(),
    nodeAffinityPolicy: str(),
    nodeTaintsPolicy: str(),
    topologyKey: str(),
    whenUnsatisfiable: str(),
  },
  ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
);
