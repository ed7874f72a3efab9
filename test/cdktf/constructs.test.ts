/**
 * The CDK for Terraform constructs, synthesized without a terraform binary (Testing.synthScope): resources and
 * properties, props refused with the same messages as the Pulumi check, the VM manifests equal to the objects the
 * Pulumi provider creates for the same inputs, the manifests valid against the real CRDs (skipped without
 * ../shared), and the quickstart app's synthesized JSON equal to the committed examples/cdktf/cdk.tf.json.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { Testing } from 'cdktf';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { addKubernetesFormats } from '../../emulator/api/validation';
import { GuestClusterCredentials, GuestClusterIdentity, GuestClusterReady, HarvesterIPPool, HarvesterImage, HarvesterLoadBalancer, HarvesterMachinePool, HarvesterNetwork, TopologyLabels } from '../../cdktf';
import { synthQuickstart } from '../../examples/cdktf/main';
import { desiredVirtualMachines } from '../../provider/resources/machine-pool/desired';
import { validateInputs as validatePool } from '../../provider/resources/machine-pool/validate';
import { repoRoot } from '../../scripts/resource-docs';
import { findSharedApi, loadCrds, strictify } from '../support/real-crds';

type Synth = { resource?: Record<string, Record<string, any>>; data?: Record<string, Record<string, any>> };
const synth = (build: (scope: any) => void): Synth => JSON.parse(Testing.synthScope(build)) as Synth;
const resources = (out: Synth, type: string) => Object.values(out.resource?.[type] ?? {});

const POOL = {
  count: 3,
  disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '20Gi' }],
  networks: [{ network: 'default/vm-net' }],
  zones: ['a', 'b', 'c'],
  sshKeys: ['default/ops-key'],
  userData: '#cloud-config\npassword: s3cr3t\n',
};
const CONTEXT = { imageStorageClasses: { 'default/ubuntu-22.04-server-cloudimg': 'longhorn-image-x' }, keyPairPublicKeys: { 'default/ops-key': 'ssh-ed25519 AAAAC3Nza test@example' } };

describe('CDK for Terraform constructs', () => {
  it('GuestClusterCredentials: the generator\'s ServiceAccount, bindings and a token Secret waiting for its token; the kubeconfig over its data', () => {
    let construct!: GuestClusterCredentials;
    const out = synth((scope) => (construct = new GuestClusterCredentials(scope, 'gc4', { namespace: 'gc-test', serverUrl: 'https://10.0.0.10:6443' })));
    const manifests = Object.fromEntries(resources(out, 'kubernetes_manifest').map((m) => [m.manifest.kind, m.manifest]));
    assert.deepEqual(Object.keys(manifests).sort(), ['ClusterRoleBinding', 'RoleBinding', 'ServiceAccount']);
    assert.equal(manifests.ServiceAccount.metadata.name, 'gc4');
    assert.equal(manifests.RoleBinding.metadata.name, 'gc-test-gc4');
    assert.deepEqual(manifests.RoleBinding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' });
    assert.equal(manifests.ClusterRoleBinding.roleRef.name, 'harvesterhci.io:csi-driver');
    const [secret] = resources(out, 'kubernetes_secret_v1');
    assert.equal(secret.metadata.name, 'gc4-token');
    assert.equal(secret.type, 'kubernetes.io/service-account-token');
    assert.equal(secret.wait_for_service_account_token, true);
    assert.match(construct.cloudInit, /^#cloud-config\n/);
    assert.throws(() => synth((scope) => new GuestClusterCredentials(scope, 'Bad_Name', { namespace: 'gc-test', serverUrl: 'https://x' })), /clusterName/);
  });

  it('HarvesterMachinePool: one VM manifest and one cloud-init Secret per index, spread over the zones, waiting until Running', () => {
    const out = synth((scope) => new HarvesterMachinePool(scope, 'workers', { ...POOL, ...CONTEXT }));
    const vms = resources(out, 'kubernetes_manifest');
    assert.equal(vms.length, 3);
    assert.deepEqual(vms.map((v) => v.manifest.metadata.name), ['workers-0', 'workers-1', 'workers-2']);
    assert.deepEqual(vms.map((v) => v.manifest.metadata.labels['harvester-iac.io/resource-name']), ['workers', 'workers', 'workers']);
    assert.deepEqual(vms[0].wait, { fields: { 'status.printableStatus': 'Running' } });
    assert.equal(vms[0].field_manager.name, 'harvester-iac-cdktf');
    const secrets = resources(out, 'kubernetes_secret_v1');
    assert.deepEqual(secrets.map((s) => s.metadata.name), ['workers-0-cloudinit', 'workers-1-cloudinit', 'workers-2-cloudinit']);
    assert.match(secrets[0].data.userdata, /qemu-guest-agent/, 'the agent is merged in, as by the Pulumi provider');
    assert.ok(vms.every((v) => v.depends_on.some((d: string) => d.startsWith('kubernetes_secret_v1.'))), 'the Secret exists before its VM');
  });

  it('without given facts, reads each image\'s storage class and each key pair from the cluster by data sources', () => {
    const out = synth((scope) => new HarvesterMachinePool(scope, 'workers', POOL));
    assert.deepEqual(Object.values(out.data!.kubernetes_resource).map((d) => [d.kind, d.metadata.name]).sort(), [['KeyPair', 'ops-key'], ['VirtualMachineImage', 'ubuntu-22.04-server-cloudimg']]);
    const vm = resources(out, 'kubernetes_manifest')[0];
    assert.match(vm.manifest.metadata.annotations['harvesterhci.io/volumeClaimTemplates'], /\$\{data\.kubernetes_resource\.[^}]+\.object\.status\.storageClassName\}/);
  });

  it('the VM manifests are the very objects the Pulumi provider creates for the same inputs', () => {
    let construct!: HarvesterMachinePool;
    const out = synth((scope) => (construct = new HarvesterMachinePool(scope, 'workers', { ...POOL, ...CONTEXT })));
    const inputs = validatePool({ name: 'workers', ...POOL }).inputs!;
    const pulumiSide = desiredVirtualMachines(inputs, CONTEXT);
    assert.deepEqual(resources(out, 'kubernetes_manifest').map((v) => v.manifest), JSON.parse(JSON.stringify(pulumiSide.machines.map((m) => m.vm))));
    assert.deepEqual(construct.backendSelector['harvester-iac.io/resource-name'], ['workers']);
  });

  it('refuses bad props at synth with the Pulumi check\'s messages, all at once', () => {
    const bad = { ...POOL, count: -1, networks: [{ network: 'default/vm-net', type: 'masquerade' as const }] };
    const expected = validatePool({ name: 'workers', ...bad }).failures.map((f) => f.reason);
    assert.ok(expected.length >= 2);
    assert.throws(() => synth((scope) => new HarvesterMachinePool(scope, 'workers', bad)), (err: Error) => {
      for (const reason of expected) assert.ok(err.message.includes(reason), `${err.message}\nlacks ${reason}`);
      return true;
    });
    assert.throws(() => synth((scope) => new HarvesterLoadBalancer(scope, 'lb', { listeners: [{ name: 'a', port: 80, backendPort: 80 }], backendServerSelector: { a: ['b'] }, healthCheck: { port: 9 } })), /healthCheck\.port: 9 is not the backendPort of any TCP listener/);
  });

  it('TopologyLabels: only region and zone per host, and the owner annotation the Pulumi resource reads', () => {
    const out = synth((scope) => new TopologyLabels(scope, 'site', { hosts: { h0: { region: 'r', zone: 'z0' }, h1: { zone: 'z1' } } }));
    const labels = resources(out, 'kubernetes_labels');
    assert.deepEqual(labels.map((l) => [l.metadata.name, l.labels]), [['h0', { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z0' }], ['h1', { 'topology.kubernetes.io/zone': 'z1' }]]);
    assert.deepEqual(resources(out, 'kubernetes_annotations').map((a) => a.annotations), [{ 'harvester-iac.io/topology-labels-owner': 'site' }, { 'harvester-iac.io/topology-labels-owner': 'site' }]);
  });

  it('HarvesterIPPool and HarvesterLoadBalancer: the Pulumi provider\'s objects; status computed; the load balancer waits for an address', () => {
    const out = synth((scope) => {
      new HarvesterIPPool(scope, 'pool', { ranges: [{ subnet: '10.0.0.0/24' }] });
      new HarvesterLoadBalancer(scope, 'web', { listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['web'] }, healthCheck: { port: 8080 } });
    });
    const [pool, lb] = resources(out, 'kubernetes_manifest');
    assert.equal(pool.manifest.kind, 'IPPool');
    assert.ok(pool.computed_fields.includes('status'));
    assert.equal(lb.manifest.spec.workloadType, 'vm');
    assert.deepEqual(lb.manifest.spec.healthCheck, { port: 8080, successThreshold: 2, failureThreshold: 2, periodSeconds: 1, timeoutSeconds: 1 });
    assert.deepEqual(lb.wait, { fields: { 'status.address': '^.+$' } });
  });

  it('HarvesterImage: the Pulumi provider\'s VirtualMachineImage; what Harvester fills in computed; waits for 100%; bad props refused as check refuses them', () => {
    let id = '';
    const out = synth((scope) => {
      id = new HarvesterImage(scope, 'jammy', { url: 'https://cloud-images.ubuntu.com/jammy/current/jammy-server-cloudimg-amd64.img', osType: 'ubuntu' }).imageId;
    });
    const [image] = resources(out, 'kubernetes_manifest');
    assert.equal(id, 'default/jammy');
    assert.deepEqual(image.manifest.spec, { displayName: 'jammy', sourceType: 'download', url: 'https://cloud-images.ubuntu.com/jammy/current/jammy-server-cloudimg-amd64.img', retry: 3 });
    assert.equal(image.manifest.metadata.labels['harvesterhci.io/image-type'], 'raw_qcow2');
    assert.ok(image.computed_fields.includes('spec.storageClassParameters'));
    assert.deepEqual(image.wait, { fields: { 'status.progress': '^100$' } });
    assert.throws(() => synth((scope) => new HarvesterImage(scope, 'bad', { url: 'ftp://example.com/x.img' })), /url: uses ftp: Harvester downloads over http or https only/);
  });

  it('HarvesterNetwork: the NAD the Pulumi provider writes (bridge config, Harvester labels, route); labels, annotations and config computed', () => {
    let id = '';
    const out = synth((scope) => {
      id = new HarvesterNetwork(scope, 'vlan20', { vlan: 20, route: { mode: 'manual', cidr: '10.20.0.0/24', gateway: '10.20.0.1' } }).networkId;
    });
    const [nad] = resources(out, 'kubernetes_manifest');
    assert.equal(id, 'default/vlan20');
    assert.equal(nad.manifest.kind, 'NetworkAttachmentDefinition');
    assert.deepEqual(JSON.parse(nad.manifest.spec.config), { cniVersion: '0.3.1', name: 'vlan20', type: 'bridge', bridge: 'mgmt-br', promiscMode: true, vlan: 20, ipam: {} });
    assert.equal(nad.manifest.metadata.labels['network.harvesterhci.io/vlan-id'], '20');
    assert.deepEqual(JSON.parse(nad.manifest.metadata.annotations['network.harvesterhci.io/route']), { mode: 'manual', serverIPAddr: '', cidr: '10.20.0.0/24', gateway: '10.20.0.1' });
    assert.ok(nad.computed_fields.includes('spec.config'));
    assert.throws(() => synth((scope) => new HarvesterNetwork(scope, 'bad', { vlan: 4095 })), /vlan/);
  });

  it('a guest-cluster load balancer is a Service of type LoadBalancer on the guest\'s provider, with the cloud-provider annotations', () => {
    const out = synth((scope) => {
      const guest = new KubernetesProvider(scope, 'guest', { configPath: '~/guest.yaml', alias: 'guest' });
      new HarvesterLoadBalancer(scope, 'ingress', { workloadType: 'cluster', guestClusterName: 'gc1', ports: [{ name: 'https', port: 443 }], podSelector: { app: 'ingress' }, network: 'default/vm-net', guestProvider: guest });
    });
    const [svc] = resources(out, 'kubernetes_service_v1');
    assert.equal(svc.provider, 'kubernetes.guest');
    assert.equal(svc.spec.type, 'LoadBalancer');
    assert.deepEqual(svc.metadata.annotations, { 'cloudprovider.harvesterhci.io/ipam': 'pool', 'cloudprovider.harvesterhci.io/network': 'default/vm-net' });
  });

  // ../shared/harvester-api sits beside CI's clone only; without it the title says why the check is skipped.
  const shared = findSharedApi();
  (shared ? it : it.skip)(shared ? 'the synthesized manifests pass the real CRDs (fieldValidation=Strict)' : 'the synthesized manifests against the real CRDs: skipped, ../shared/harvester-api is not beside this repository', () => {
    const crds = loadCrds(shared!);
    const out = synth((scope) => {
      new HarvesterMachinePool(scope, 'workers', { ...POOL, ...CONTEXT });
      new HarvesterIPPool(scope, 'pool', { ranges: [{ subnet: '10.0.0.0/24' }], selector: { network: 'default/vm-net', scope: [{ namespace: 'default' }] } });
      new HarvesterImage(scope, 'jammy', { url: 'https://example.com/jammy.img', checksum: 'a'.repeat(128), storageClass: 'two-replicas', description: 'd' });
      new HarvesterLoadBalancer(scope, 'web', { ipPool: 'pool', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['web'] }, healthCheck: { port: 8080 } });
    });
    const ajv = new Ajv({ strict: false, allErrors: true });
    addKubernetesFormats(ajv);
    for (const r of resources(out, 'kubernetes_manifest')) {
      const m = r.manifest;
      const crd = crds.find((c) => `${c.group}/${c.version}` === m.apiVersion && c.kind === m.kind);
      assert.ok(crd, `a real CRD for ${m.apiVersion} ${m.kind}`);
      const validate = ajv.compile(strictify(crd!.schema) as object);
      assert.ok(validate(m), `${m.kind} ${m.metadata.name}: ${ajv.errorsText(validate.errors)}`);
    }
  });

  it('the quickstart app synthesizes exactly the committed examples/cdktf/cdk.tf.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harvester-cdktf-'));
    try {
      synthQuickstart(dir);
      const fresh = readFileSync(join(dir, 'stacks', 'harvester', 'cdk.tf.json'), 'utf8');
      const committed = readFileSync(join(repoRoot(), 'examples', 'cdktf', 'cdk.tf.json'), 'utf8');
      assert.equal(fresh, committed, 'examples/cdktf/cdk.tf.json is stale: run `npm run build && node dist/examples/cdktf/main.js cdktf.out && cp cdktf.out/stacks/harvester/cdk.tf.json examples/cdktf/`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CDK for Terraform: guest cluster constructs', () => {
  const pem = (what: string) => ({ cert: `-----BEGIN CERTIFICATE-----\n${what}\n-----END CERTIFICATE-----\n`, key: `-----BEGIN PRIVATE KEY-----\n${what}\n-----END PRIVATE KEY-----\n` });
  const pki = { server: pem('s'), client: pem('c'), requestHeader: pem('r'), etcdServer: pem('es'), etcdPeer: pem('ep'), serviceKey: pem('k').key };

  it('GuestClusterIdentity: the identity Secret as the provider keeps it, tokens pinning the hash of the given server CA', () => {
    let construct!: GuestClusterIdentity;
    const out = synth((scope) => (construct = new GuestClusterIdentity(scope, 'prod-1', { endpoint: '10.0.20.10', kubernetesVersion: 'v1.32.5+rke2r1', pki, serverPassword: 'sp', agentPassword: 'ap', admin: pem('a') })));
    const [secret] = resources(out, 'kubernetes_secret_v1');
    assert.equal(secret.metadata.name, 'prod-1-rke2-identity');
    assert.equal(secret.metadata.labels['harvester-iac.io/resource-type'], 'guest-cluster-identity');
    assert.deepEqual(Object.keys(secret.data).sort(), ['admin.crt', 'admin.key', 'agent-password', 'client-ca.crt', 'client-ca.key', 'etcd-peer-ca.crt', 'etcd-peer-ca.key', 'etcd-server-ca.crt', 'etcd-server-ca.key', 'request-header-ca.crt', 'request-header-ca.key', 'server-ca.crt', 'server-ca.key', 'server-password', 'service.key']);
    assert.match(construct.serverToken, /^K10\$\{TfToken\[TOKEN\.\d+\]\}::server:sp$/, 'the hash is Terraform\'s sha256 of the given CA');
    assert.match(construct.agentToken, /::node:ap$/);
    assert.throws(() => synth((scope) => new GuestClusterIdentity(scope, 'x', { endpoint: '10.0.20.10', kubernetesVersion: 'v1.32.5+rke2r1', agentVersions: { w: 'v1.33.0+rke2r1' }, pki, serverPassword: 'sp', agentPassword: 'ap', admin: pem('a') })), /agentVersions\.w: .* newer than the servers/);
  });

  it('GuestClusterReady: not offered, saying why and what to run instead', () => {
    assert.throws(() => synth((scope) => new GuestClusterReady(scope, 'prod-1')), /Terraform waits only for objects it writes.*kubectl .* wait --for=condition=Ready node --all/);
  });
});
