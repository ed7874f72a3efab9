/**
 * HarvesterKeyPair for CDK for Terraform: a `kubernetes_manifest` of the same KeyPair the Pulumi provider writes
 * (provider/resources/key-pair/plan.ts), validated by the same rules (the public key judged as Harvester judges it).
 * The status (fingerprint, validated condition) is Harvester's: a computed field the apply waits on.
 */
import { Construct } from 'constructs';
import type { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import type { KeyPairArgs, KeyPairInputs } from '../provider/resources/key-pair/model';
import { desiredKeyPair, keyPairId } from '../provider/resources/key-pair/plan';
import { validateInputs } from '../provider/resources/key-pair/validate';
import { manifest, validated, type ProviderProps } from './common';

export interface HarvesterKeyPairProps extends Omit<KeyPairArgs, 'kubeconfig' | 'context' | 'name' | 'timeouts'>, ProviderProps {
  name?: string;
}

export class HarvesterKeyPair extends Construct {
  readonly inputs: KeyPairInputs;
  readonly manifest: Manifest;
  /** "namespace/name": what a HarvesterMachinePool's sshKeys[] takes. */
  readonly keyPairId: string;

  constructor(scope: Construct, id: string, props: HarvesterKeyPairProps) {
    super(scope, id);
    const { provider, ...args } = props;
    this.inputs = validated('HarvesterKeyPair', { name: id, ...args }, validateInputs);
    this.keyPairId = keyPairId(this.inputs);
    this.manifest = manifest(this, 'key-pair', desiredKeyPair(this.inputs), {
      provider,
      computedFields: ['status'],
      waitFields: { 'status.conditions[0].status': 'True' },
    });
  }
}
