/**
 * The guest cluster resources for CDK for Terraform.
 *
 * GuestClusterIdentity: the Secret `<clusterName>-rke2-identity` the Pulumi provider keeps (same keys, settings
 * annotation and ownership labels, provider/resources/guest-cluster-identity/plan.ts), and the tokens and admin
 * kubeconfig as Terraform expressions over it. The PKI is *given*, not generated: keys made at synth would sit in the
 * synthesized configuration in plain text, whereas Terraform's `tls` and `random` providers (tls_self_signed_cert,
 * tls_locally_signed_cert, random_password) keep them as sensitive values of its state. The settings are checked by
 * the same rules as the Pulumi `check`; the version rules against the previous version are not (Terraform does not
 * give a construct the previous value).
 *
 * GuestClusterReady: not offered. Terraform waits only for objects it writes itself, and a cluster's Nodes are
 * written by the kubelets; run `kubectl wait --for=condition=Ready node --all` against the kubeconfig after apply.
 */
import { Construct } from 'constructs';
import { Fn } from 'cdktf';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import { ownerLabels } from '../provider/client/ownership';
import { stableStringify } from '../provider/core/hash';
import type { GuestClusterIdentityArgs, GuestClusterIdentityInputs } from '../provider/resources/guest-cluster-identity/model';
import { adminUserOf, identityOwner, secretNameOf, settingsOf, SETTINGS_ANNOTATION, urlOf } from '../provider/resources/guest-cluster-identity/plan';
import { validateInputs } from '../provider/resources/guest-cluster-identity/validate';
import { validated, type ProviderProps } from './common';

/** A certificate and its key, PEM (or Terraform expressions of them, e.g. a tls_self_signed_cert's cert_pem). */
export interface PemPair {
  cert: string;
  key: string;
}

export interface GuestClusterIdentityProps extends Omit<GuestClusterIdentityArgs, 'kubeconfig' | 'context' | 'clusterName' | 'timeouts'>, ProviderProps {
  clusterName?: string;
  /** The five CAs RKE2 takes as given (CA:TRUE, RSA or ECDSA) and the service-account key. */
  pki: { server: PemPair; client: PemPair; requestHeader: PemPair; etcdServer: PemPair; etcdPeer: PemPair; serviceKey: string };
  /** The server and agent passwords (e.g. random_password results). */
  serverPassword: string;
  agentPassword: string;
  /** The admin client certificate: CN `<clusterName>-admin`, O system:masters, clientAuth, signed by the client CA. */
  admin: PemPair;
}

const PKI_KEYS = { server: 'server-ca', client: 'client-ca', requestHeader: 'request-header-ca', etcdServer: 'etcd-server-ca', etcdPeer: 'etcd-peer-ca' } as const;

export class GuestClusterIdentity extends Construct {
  readonly inputs: GuestClusterIdentityInputs;
  readonly secret: SecretV1;
  /** `K10<sha256 of the server CA>::server:<password>` (sensitive). */
  readonly serverToken: string;
  /** `K10<sha256 of the server CA>::node:<password>` (sensitive). */
  readonly agentToken: string;
  /** The admin kubeconfig (sensitive). */
  readonly adminKubeconfig: string;

  constructor(scope: Construct, id: string, props: GuestClusterIdentityProps) {
    super(scope, id);
    const { provider, pki, serverPassword, agentPassword, admin, ...args } = props;
    this.inputs = validated('GuestClusterIdentity', { clusterName: id, ...args }, validateInputs);
    const inputs = this.inputs;
    const data: Record<string, string> = {};
    for (const [name, key] of Object.entries(PKI_KEYS) as [keyof typeof PKI_KEYS, string][]) {
      data[`${key}.crt`] = pki[name].cert;
      data[`${key}.key`] = pki[name].key;
    }
    Object.assign(data, { 'service.key': pki.serviceKey, 'server-password': serverPassword, 'agent-password': agentPassword, 'admin.crt': admin.cert, 'admin.key': admin.key });
    this.secret = new SecretV1(this, 'identity', {
      provider,
      metadata: {
        name: secretNameOf(inputs.clusterName),
        namespace: inputs.namespace,
        labels: ownerLabels(identityOwner(inputs.clusterName)),
        annotations: { [SETTINGS_ANNOTATION]: stableStringify(settingsOf(inputs)) },
      },
      type: 'Opaque',
      // The provider base64-encodes `data`; the attribute is sensitive in its schema, so plans never print it.
      data,
    });
    const hash = Fn.sha256(pki.server.cert);
    this.serverToken = `K10${hash}::server:${serverPassword}`;
    this.agentToken = `K10${hash}::node:${agentPassword}`;
    const user = adminUserOf(inputs.clusterName);
    this.adminKubeconfig = Fn.yamlencode({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: inputs.clusterName, cluster: { server: urlOf(inputs.endpoint, 6443), 'certificate-authority-data': Fn.base64encode(pki.server.cert) } }],
      users: [{ name: user, user: { 'client-certificate-data': Fn.base64encode(admin.cert), 'client-key-data': Fn.base64encode(admin.key) } }],
      contexts: [{ name: inputs.clusterName, context: { cluster: inputs.clusterName, user } }],
      'current-context': inputs.clusterName,
    });
  }
}

/** Not offered with CDK for Terraform (see the file header): constructing one says why and what to do instead. */
export class GuestClusterReady extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    throw new Error(
      `GuestClusterReady ${id}: not offered with CDK for Terraform: Terraform waits only for objects it writes, and a guest cluster's Nodes ` +
        'are written by its kubelets. After `cdktf deploy`, wait with `kubectl --kubeconfig <adminKubeconfig> wait --for=condition=Ready node --all`, ' +
        'or use the Pulumi provider (harvester-iac), whose GuestClusterReady waits and says why a node does not come up.',
    );
  }
}
