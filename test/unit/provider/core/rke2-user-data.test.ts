/**
 * The exact cloud-init a guest cluster's node boots with (provider/core/rke2/user-data.ts), in the contract of
 * docs/design/guest-rke2.md §"The user-data contract": the files RKE2 reads (config.yaml, the cloud provider's
 * HelmChartConfig, the PKI of the initialising server) and the runcmd that installs and starts the role's unit.
 * test/unit/provider/resources/guest-cluster/user-data.test.ts checks the same text through the emulator's reader.
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { ccmChartConfig, renderNodeUserData, rke2Config, type NodeUserData } from '../../../../provider/core/rke2/user-data';

const networking = { cni: 'canal', clusterCidr: '10.42.0.0/16', serviceCidr: '10.43.0.0/16', clusterDns: '10.43.0.10', clusterDomain: 'cluster.local', disableKubeProxy: false };
const server = (over: Partial<NodeUserData> = {}): NodeUserData => ({
  role: 'server', version: 'v1.32.5+rke2r1', supervisorUrl: 'https://10.0.20.10:9345', token: 'K10h::server:sp', agentToken: 'K10h::node:ap', tlsSan: ['10.0.20.10'],
  networking, clusterName: 'prod-1', install: { method: 'script' }, ...over,
});
const agent = (over: Partial<NodeUserData> = {}): NodeUserData => server({ role: 'agent', token: 'K10h::node:ap', agentToken: undefined, tlsSan: undefined, ...over });
const BOOTSTRAP = '- path: /var/lib/rancher/rke2/server/tls/service.key\n  content: S0VZ\n  encoding: b64\n  owner: root:root\n  permissions: "0600"\n';
const CLOUD_PROVIDER_CONFIG = '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config';
const runcmdOf = (userData: string) => (parse(userData) as { runcmd: string[] }).runcmd;

describe('core/rke2 user data: the exact cloud-init of a node', () => {
  it('the initialising server: config.yaml with the critical values (kube-proxy off, a service disabled), the chart config, the PKI, then install and start rke2-server', () => {
    const text = renderNodeUserData(server({ init: true, bootstrapFiles: BOOTSTRAP, networking: { ...networking, cni: 'cilium', disableKubeProxy: true }, disable: ['rke2-ingress-nginx'] }));
    assert.equal(text, `#cloud-config
packages:
  - qemu-guest-agent
write_files:
  - path: /etc/rancher/rke2/config.yaml
    content: |
      token: K10h::server:sp
      agent-token: K10h::node:ap
      tls-san:
        - 10.0.20.10
      cni: cilium
      cluster-cidr: 10.42.0.0/16
      service-cidr: 10.43.0.0/16
      cluster-dns: 10.43.0.10
      cluster-domain: cluster.local
      disable-kube-proxy: true
      disable:
        - rke2-ingress-nginx
      cloud-provider-name: harvester
      cloud-provider-config: ${CLOUD_PROVIDER_CONFIG}
    owner: root:root
    permissions: "0600"
  - path: /var/lib/rancher/rke2/server/manifests/harvester-cloud-provider-config.yaml
    content: |
      apiVersion: helm.cattle.io/v1
      kind: HelmChartConfig
      metadata:
        name: harvester-cloud-provider
        namespace: kube-system
      spec:
        valuesContent: >
          global:
            cattle:
              clusterName: prod-1
          cloudConfigPath:
          ${CLOUD_PROVIDER_CONFIG}
    owner: root:root
    permissions: "0600"
  - path: /var/lib/rancher/rke2/server/tls/service.key
    content: S0VZ
    encoding: b64
    owner: root:root
    permissions: "0600"
runcmd:
  - systemctl enable --now qemu-guest-agent.service
  - curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION="v1.32.5+rke2r1" sh -
  - systemctl mask rke2-agent.service || true
  - systemctl enable --now rke2-server.service
`);
  });

  it('an air-gapped agent: the agent token, server:, labels and taints, no chart config; the local script as type agent, rke2-agent started (one line each, never folded)', () => {
    const text = renderNodeUserData(agent({ nodeLabels: { 'example.com/pool': 'gpu' }, nodeTaints: ['gpu=true:NoSchedule'], install: { method: 'airgap', artifactPath: '/opt/rke2-artifacts', scriptPath: '/opt/install.sh' } }));
    assert.equal(text, `#cloud-config
packages:
  - qemu-guest-agent
write_files:
  - path: /etc/rancher/rke2/config.yaml
    content: |
      token: K10h::node:ap
      server: https://10.0.20.10:9345
      cloud-provider-name: harvester
      cloud-provider-config: ${CLOUD_PROVIDER_CONFIG}
      node-label:
        - example.com/pool=gpu
      node-taint:
        - gpu=true:NoSchedule
    owner: root:root
    permissions: "0600"
runcmd:
  - systemctl enable --now qemu-guest-agent.service
  - INSTALL_RKE2_ARTIFACT_PATH="/opt/rke2-artifacts" INSTALL_RKE2_VERSION="v1.32.5+rke2r1" INSTALL_RKE2_TYPE="agent" sh /opt/install.sh
  - systemctl mask rke2-server.service || true
  - systemctl enable --now rke2-agent.service
`);
  });

  it('the install line of each role and method: get.rke2.io (agents add INSTALL_RKE2_TYPE), the air-gap script, or none for an image with RKE2', () => {
    assert.equal(runcmdOf(renderNodeUserData(agent()))[1], 'curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION="v1.32.5+rke2r1" INSTALL_RKE2_TYPE="agent" sh -');
    const airgap = { method: 'airgap' as const, artifactPath: '/srv/a', scriptPath: '/srv/install.sh' };
    assert.equal(runcmdOf(renderNodeUserData(server({ install: airgap })))[1], 'INSTALL_RKE2_ARTIFACT_PATH="/srv/a" INSTALL_RKE2_VERSION="v1.32.5+rke2r1" sh /srv/install.sh');
    assert.deepEqual(runcmdOf(renderNodeUserData(agent({ install: { method: 'preinstalled' } }))), [
      'systemctl enable --now qemu-guest-agent.service', 'systemctl mask rke2-server.service || true', 'systemctl enable --now rke2-agent.service',
    ]);
  });

  it('config.yaml holds exactly the keys a node needs: a joining server has server: and no key left empty; kube-proxy stays unless disabled', () => {
    assert.deepEqual(rke2Config(server({ agentToken: undefined, tlsSan: [], disable: [], nodeLabels: {}, nodeTaints: [] })), {
      token: 'K10h::server:sp', server: 'https://10.0.20.10:9345', cni: 'canal', 'cluster-cidr': '10.42.0.0/16', 'service-cidr': '10.43.0.0/16',
      'cluster-dns': '10.43.0.10', 'cluster-domain': 'cluster.local', 'cloud-provider-name': 'harvester', 'cloud-provider-config': CLOUD_PROVIDER_CONFIG,
    });
    assert.deepEqual(rke2Config(agent({ nodeLabels: {} })), { token: 'K10h::node:ap', server: 'https://10.0.20.10:9345', 'cloud-provider-name': 'harvester', 'cloud-provider-config': CLOUD_PROVIDER_CONFIG });
  });

  it('a joining server gets the chart config but no PKI, and needs no bootstrapFiles', () => {
    const files = (parse(renderNodeUserData(server())) as { write_files: { path: string }[] }).write_files.map((f) => f.path);
    assert.deepEqual(files, ['/etc/rancher/rke2/config.yaml', '/var/lib/rancher/rke2/server/manifests/harvester-cloud-provider-config.yaml']);
  });

  it('refuses an initialising server whose bootstrapFiles hold no files, naming what it needs', () => {
    for (const bootstrapFiles of [undefined, '', '[]', 'not: a list']) {
      assert.throws(() => renderNodeUserData(server({ init: true, bootstrapFiles })), { message: 'the initialising server needs the bootstrapFiles of GuestClusterIdentity' }, String(bootstrapFiles));
    }
  });

  it('the chart config gives the bundled cloud provider the cluster name and the kubeconfig path', () => {
    assert.deepEqual(parse(ccmChartConfig('lab')), {
      apiVersion: 'helm.cattle.io/v1', kind: 'HelmChartConfig', metadata: { name: 'harvester-cloud-provider', namespace: 'kube-system' },
      spec: { valuesContent: `global:\n  cattle:\n    clusterName: lab\ncloudConfigPath: ${CLOUD_PROVIDER_CONFIG}\n` },
    });
  });
});
