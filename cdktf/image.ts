/**
 * HarvesterImage for CDK for Terraform: a `kubernetes_manifest` of the same VirtualMachineImage the Pulumi provider
 * writes (provider/resources/image/plan.ts), validated by the same rules. What Harvester's mutator and controller
 * fill in (the storage class parameters and target, the backend, the status) are computed fields; apply waits until
 * the download reached 100%.
 */
import { Construct } from 'constructs';
import type { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import type { ImageArgs, ImageInputs } from '../provider/resources/image/model';
import { desiredImage } from '../provider/resources/image/plan';
import { validateInputs } from '../provider/resources/image/validate';
import { manifest, validated, type ProviderProps } from './common';

export interface HarvesterImageProps extends Omit<ImageArgs, 'kubeconfig' | 'context' | 'name' | 'timeouts'>, ProviderProps {
  name?: string;
}

export class HarvesterImage extends Construct {
  readonly inputs: ImageInputs;
  readonly manifest: Manifest;
  /** What a HarvesterMachinePool's disks[].image takes: "namespace/name". */
  readonly imageId: string;

  constructor(scope: Construct, id: string, props: HarvesterImageProps) {
    super(scope, id);
    const { provider, ...args } = props;
    this.inputs = validated('HarvesterImage', { name: id, ...args }, validateInputs);
    this.imageId = `${this.inputs.namespace}/${this.inputs.name}`;
    this.manifest = manifest(this, 'image', desiredImage(this.inputs), {
      provider,
      computedFields: ['status', 'spec.storageClassParameters', 'spec.targetStorageClassName', 'spec.backend'],
      waitFields: { 'status.progress': '^100$' },
    });
  }
}
