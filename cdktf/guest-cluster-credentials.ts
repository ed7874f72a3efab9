/**
 * GuestClusterCredentials for CDK for Terraform: the objects Harvester's generator makes, as the Pulumi provider
 * makes them (provider/resources/guest-cluster-credentials/plan.ts), validated by the same rules. The token Secret
 * is a `kubernetes_secret_v1` that waits for the token controller; `cloudConfig` and `cloudInit` are Terraform
 * expressions over its (sensitive) data. Owner references are left out: the ServiceAccount's uid is not known at
 * synth, and Terraform deletes every object itself.
 */
import { Construct } from 'constructs';
import { Fn } from 'cdktf';
import type { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import type { GuestClusterCredentialsArgs, GuestClusterCredentialsInputs } from '../provider/resources/guest-cluster-credentials/model';
import { GUEST_CONFIG_MODE, GUEST_CONFIG_PATHS } from '../provider/resources/guest-cluster-credentials/names';
import { desiredClusterRoleBinding, desiredRoleBinding, desiredServiceAccount, desiredTokenSecret } from '../provider/resources/guest-cluster-credentials/plan';
import { validateInputs } from '../provider/resources/guest-cluster-credentials/validate';
import type { KubeObject } from '../provider/client/objects';
import { manifest, validated, type ProviderProps } from './common';

export interface GuestClusterCredentialsProps extends Omit<GuestClusterCredentialsArgs, 'kubeconfig' | 'context' | 'clusterName' | 'timeouts' | 'serverUrl'>, ProviderProps {
  clusterName?: string;
  /** URL the guests reach Harvester at (required here: the construct does not know the provider's server). */
  serverUrl: string;
}

/** `obj` without owner references (a uid Terraform cannot know at synth). */
function unowned<T extends KubeObject>(obj: T): T {
  const { ownerReferences: _refs, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export class GuestClusterCredentials extends Construct {
  readonly inputs: GuestClusterCredentialsInputs;
  readonly serviceAccount: Manifest;
  readonly tokenSecret: SecretV1;
  readonly roleBinding: Manifest;
  readonly clusterRoleBinding?: Manifest;
  /** The kubeconfig (sensitive), as the Pulumi resource's cloudConfig output. */
  readonly cloudConfig: string;
  /** The #cloud-config write_files (sensitive), for a machine pool's guestCredentials. */
  readonly cloudInit: string;

  constructor(scope: Construct, id: string, props: GuestClusterCredentialsProps) {
    super(scope, id);
    const { provider, ...args } = props;
    this.inputs = validated('GuestClusterCredentials', { clusterName: id, ...args }, validateInputs);
    const sa = desiredServiceAccount(this.inputs);
    this.serviceAccount = manifest(this, 'service-account', sa, { provider });
    const secret = desiredTokenSecret(this.inputs, { ...sa, metadata: { ...sa.metadata, uid: '' } });
    const annotations = { ...secret.metadata.annotations };
    delete annotations['kubernetes.io/service-account.uid'];
    this.tokenSecret = new SecretV1(this, 'token', {
      provider,
      metadata: { name: secret.metadata.name, namespace: secret.metadata.namespace, labels: secret.metadata.labels, annotations },
      type: secret.type,
      waitForServiceAccountToken: true,
      dependsOn: [this.serviceAccount],
    });
    const placeholder = { ...sa, metadata: { ...sa.metadata, uid: '' } };
    this.roleBinding = manifest(this, 'role-binding', unowned(desiredRoleBinding(this.inputs, placeholder)), { provider, dependsOn: [this.serviceAccount] });
    if (this.inputs.bindCsiDriverRole) {
      this.clusterRoleBinding = manifest(this, 'cluster-role-binding', unowned(desiredClusterRoleBinding(this.inputs, placeholder)), { provider, dependsOn: [this.serviceAccount] });
    }
    const data = this.tokenSecret.data;
    this.cloudConfig = Fn.yamlencode({
      apiVersion: 'v1',
      clusters: [{ cluster: { 'certificate-authority-data': Fn.base64encode(Fn.lookup(data, 'ca.crt', '')), server: props.serverUrl }, name: 'default' }],
      contexts: [{ context: { cluster: 'default', namespace: this.inputs.namespace, user: 'default' }, name: 'default' }],
      'current-context': 'default',
      kind: 'Config',
      preferences: {},
      users: [{ name: 'default', user: { token: Fn.lookup(data, 'token', '') } }],
    });
    const content = Fn.base64encode(this.cloudConfig);
    const writeFiles = GUEST_CONFIG_PATHS.map((path) => ({ encoding: 'b64', content, owner: 'root:root', path, permissions: GUEST_CONFIG_MODE }));
    this.cloudInit = `#cloud-config\n${Fn.yamlencode({ write_files: writeFiles })}`;
  }
}
