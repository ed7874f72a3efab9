/**
 * HarvesterNetwork for CDK for Terraform: a `kubernetes_manifest` of the NetworkAttachmentDefinition the Pulumi
 * provider writes (provider/resources/network/plan.ts), validated by the same pure rules. Labels and annotations
 * are computed (Harvester's network controller adds its labels and the learnt route), and so is `spec.config`
 * (Harvester's mutator adds the cluster network's MTU when it is not 1500). The cluster-side checks (cluster
 * network attached to hosts, name free) are the Pulumi provider's; Terraform meets Harvester's webhook instead.
 */
import { Construct } from 'constructs';
import type { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import type { NetworkArgs, NetworkInputs } from '../provider/resources/network/model';
import { desiredNetwork } from '../provider/resources/network/plan';
import { validateInputs } from '../provider/resources/network/validate';
import { manifest, validated, type ProviderProps } from './common';

export interface HarvesterNetworkProps extends Omit<NetworkArgs, 'kubeconfig' | 'context' | 'name' | 'timeouts'>, ProviderProps {
  name?: string;
}

export class HarvesterNetwork extends Construct {
  readonly inputs: NetworkInputs;
  readonly manifest: Manifest;
  /** What a machine pool's networks[].network takes. */
  readonly networkId: string;

  constructor(scope: Construct, id: string, props: HarvesterNetworkProps = {}) {
    super(scope, id);
    const { provider, ...args } = props;
    this.inputs = validated('HarvesterNetwork', { name: id, ...args }, validateInputs);
    this.networkId = `${this.inputs.namespace}/${this.inputs.name}`;
    this.manifest = manifest(this, 'network', desiredNetwork(this.inputs), { provider, computedFields: ['spec.config'] });
  }
}
