/**
 * TopologyLabels for CDK for Terraform: `kubernetes_labels` per host with only topology.kubernetes.io/region and
 * /zone (every other label untouched; field manager ours), and `kubernetes_annotations` recording the owner as the
 * Pulumi resource does, so the two front ends never claim the same host twice. Unlike the Pulumi resource,
 * Terraform's destroy removes the labels instead of restoring earlier values.
 */
import { Construct } from 'constructs';
import { Annotations } from '@cdktf/provider-kubernetes/lib/annotations';
import { Labels } from '@cdktf/provider-kubernetes/lib/labels';
import { OWNER_ANNOTATION, TOPOLOGY_KEYS, type TopologyLabelsArgs, type TopologyLabelsInputs } from '../provider/resources/topology-labels/model';
import { validateInputs } from '../provider/resources/topology-labels/validate';
import { FIELD_MANAGER, validated, type ProviderProps } from './common';

export interface TopologyLabelsProps extends Pick<TopologyLabelsArgs, 'hosts'>, ProviderProps {
  /** Name recorded on every host (owner annotation). Default: the construct id. */
  name?: string;
}

export class TopologyLabels extends Construct {
  readonly inputs: TopologyLabelsInputs;
  readonly labels: Labels[] = [];
  /** Distinct zones this construct sets. */
  readonly zones: string[];

  constructor(scope: Construct, id: string, props: TopologyLabelsProps) {
    super(scope, id);
    this.inputs = validated('TopologyLabels', { name: id, ...props }, validateInputs);
    for (const [host, values] of Object.entries(this.inputs.hosts)) {
      const labels: Record<string, string> = {};
      if (values.region) labels[TOPOLOGY_KEYS.region] = values.region;
      if (values.zone) labels[TOPOLOGY_KEYS.zone] = values.zone;
      this.labels.push(new Labels(this, `${host}-labels`, { provider: props.provider, apiVersion: 'v1', kind: 'Node', metadata: { name: host }, labels, fieldManager: FIELD_MANAGER }));
      new Annotations(this, `${host}-owner`, {
        provider: props.provider,
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: host },
        annotations: { [OWNER_ANNOTATION]: this.inputs.name },
        fieldManager: FIELD_MANAGER,
      });
    }
    this.zones = [...new Set(Object.values(this.inputs.hosts).map((h) => h.zone).filter((z): z is string => !!z))].sort();
  }
}
