/**
 * HarvesterMachinePool for CDK for Terraform: the same VMs and cloud-init Secrets the Pulumi provider creates
 * (provider/resources/machine-pool/desired.ts), one `kubernetes_manifest` per VM and one `kubernetes_secret_v1`
 * per VM, zone spreading included. Facts the Pulumi provider reads from the cluster at apply time come from
 * `kubernetes_resource` data sources here (each image's storage class, each key pair's public key), unless given.
 * PVC names are derived from the VM names (stable across plans), not random as in the Pulumi provider.
 */
import { Construct } from 'constructs';
import { Fn } from 'cdktf';
import { DataKubernetesResource } from '@cdktf/provider-kubernetes/lib/data-kubernetes-resource';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import type { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { desiredVirtualMachines, type DesiredPool, type MachinePoolContext } from '../provider/resources/machine-pool/desired';
import type { MachinePoolArgs, MachinePoolInputs } from '../provider/resources/machine-pool/model';
import { qualify } from '../provider/core/object-ref';
import { validateInputs } from '../provider/resources/machine-pool/validate';
import { manifest, validated, type ProviderProps } from './common';

/**
 * Not offered here: initUserData (Terraform would give a replaced first VM the init data again, initialising a second
 * cluster) and guestKubeconfig (Terraform has no step between a replacement's readiness and the old VM's deletion).
 */
export interface HarvesterMachinePoolProps extends Omit<MachinePoolArgs, 'kubeconfig' | 'context' | 'name' | 'initUserData' | 'guestKubeconfig'>, ProviderProps {
  /** Pool name. Default: the construct id. */
  name?: string;
  /** Storage class per image ("namespace/name"). Default: read by a data source from the image's status. */
  imageStorageClasses?: Record<string, string>;
  /** Public key per key pair ("namespace/name"). Default: read by a data source from the key pair. */
  keyPairPublicKeys?: Record<string, string>;
}

export class HarvesterMachinePool extends Construct {
  /** The validated inputs (defaults applied). */
  readonly inputs: MachinePoolInputs;
  /** The desired objects, exactly as the Pulumi provider builds them. */
  readonly desired: DesiredPool;
  readonly vms: Manifest[] = [];
  readonly secrets: SecretV1[] = [];
  /** The pool's VMs' labels, for HarvesterLoadBalancer.backendServerSelector. */
  readonly backendSelector: Record<string, string[]>;

  constructor(scope: Construct, id: string, props: HarvesterMachinePoolProps) {
    super(scope, id);
    const { provider, imageStorageClasses, keyPairPublicKeys, ...args } = props;
    for (const key of ['initUserData', 'guestKubeconfig'] as const) {
      if ((args as Record<string, unknown>)[key] !== undefined) throw new Error(`HarvesterMachinePool ${id}: ${key} is not supported by the CDK for Terraform construct (use the Pulumi provider): see HarvesterMachinePoolProps`);
    }
    this.inputs = validated('HarvesterMachinePool', { name: id, ...args }, validateInputs);
    const inputs = this.inputs;
    const lookup = (kind: string, apiVersion: string, ref: string, path: string[]) => {
      const [namespace, name] = ref.split('/');
      const data = new DataKubernetesResource(this, `${kind}-${namespace}-${name}`, { provider, apiVersion, kind, metadata: { name, namespace } });
      return Fn.lookupNested(data.object, path) as string;
    };
    const images = [...new Set(inputs.disks.filter((d) => d.image).map((d) => qualify(d.image!, inputs.namespace)))];
    const keys = inputs.sshKeys.map((k) => qualify(k, inputs.namespace));
    const context: MachinePoolContext = {
      imageStorageClasses: Object.fromEntries(images.map((i) => [i, imageStorageClasses?.[i] ?? lookup('VirtualMachineImage', 'harvesterhci.io/v1beta1', i, ['status', 'storageClassName'])])),
      keyPairPublicKeys: Object.fromEntries(keys.map((k) => [k, keyPairPublicKeys?.[k] ?? lookup('KeyPair', 'harvesterhci.io/v1beta1', k, ['spec', 'publicKey'])])),
    };
    this.desired = desiredVirtualMachines(inputs, context);
    this.backendSelector = Object.fromEntries(this.desired.selector.split(',').map((kv) => kv.split('=')).map(([k, v]) => [k, [v]]));
    for (const m of this.desired.machines) {
      const secret = new SecretV1(this, `${m.name}-cloudinit`, {
        provider,
        metadata: { name: m.secret.metadata.name!, namespace: m.secret.metadata.namespace, labels: m.secret.metadata.labels },
        // The provider base64-encodes `data`; the attribute is sensitive in its schema, so plans never print it.
        data: Object.fromEntries(Object.entries(m.secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
        type: m.secret.type,
      });
      this.secrets.push(secret);
      this.vms.push(
        manifest(this, m.name, m.vm, {
          provider,
          // Written by Harvester and KubeVirt: MAC addresses, run strategy, requests, the cloud-init disk, status.
          computedFields: ['spec.template.spec.domain.devices.interfaces', 'spec.template.spec.domain.resources', 'spec.template.metadata.annotations', 'spec.template.spec.affinity'],
          waitFields: { 'status.printableStatus': 'Running' },
          dependsOn: [secret],
        }),
      );
    }
  }
}
