/**
 * Test helpers for guest RKE2 clusters: the cluster PKI and tokens a provider would generate, RKE2 user data in
 * the contract of docs/design/guest-rke2.md, an admin kubeconfig signed by the client CA, and an emulator on a
 * ManualClock with a control-plane load balancer on a loopback address, driven by `runUntil`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ManualClock } from '../../emulator/clock';
import type { KubeObject } from '../../emulator/api/types';
import { KINDS } from '../../emulator/kinds';
import { generateCa, issueCertificate, IssuedCertificate, loadCa } from '../../emulator/guest/rke2/pki';
import { hashCa } from '../../emulator/guest/rke2/token';
import { settle } from '../emulator/harvester-fixture';
import { startTestEmulator, TestEmulator } from './emulator-harness';
import { nodeDriverVm } from '../emulator/harvester-fixture';
import type { EmulatorOptions } from '../../emulator';

/** A guest cluster's PKI, made before any VM exists. */
export interface TestPki {
  server: IssuedCertificate;
  client: IssuedCertificate;
  requestHeader: IssuedCertificate;
  etcdServer: IssuedCertificate;
  etcdPeer: IssuedCertificate;
  serviceKeyPem: string;
  caHash: string;
}

export async function makePki(): Promise<TestPki> {
  const [server, client, requestHeader, etcdServer, etcdPeer, service] = await Promise.all(
    ['rke2-server-ca', 'rke2-client-ca', 'rke2-request-header-ca', 'etcd-server-ca', 'etcd-peer-ca', 'service'].map((n) => generateCa(`${n}@test`)),
  );
  return { server, client, requestHeader, etcdServer, etcdPeer, serviceKeyPem: service.keyPem, caHash: hashCa(server.certPem) };
}

/** The secure server token and the agent token (pinning the server CA). */
export function makeTokens(pki: TestPki, serverPassword = 'server-password-0123456789abcdef', agentPassword = 'agent-password-0123456789abcdef') {
  return {
    serverPassword,
    agentPassword,
    serverToken: `K10${pki.caHash}::server:${serverPassword}`,
    agentToken: `K10${pki.caHash}::node:${agentPassword}`,
  };
}

/** What one node's user data says. */
export interface NodeUserData {
  role: 'server' | 'agent';
  /** The supervisor URL; unset for the initialising server. */
  server?: string;
  token: string;
  agentToken?: string;
  tlsSan?: string[];
  version?: string;
  /** Written for the initialising server. */
  pki?: TestPki;
  cloudConfig?: string;
  clusterName?: string;
  config?: Record<string, unknown>;
}

const TLS = '/var/lib/rancher/rke2/server/tls';

/** `#cloud-config` user data: the guest agent, RKE2's config (and CA files), then install and start. */
export function rke2UserData(n: NodeUserData): string {
  const config: Record<string, unknown> = { token: n.token };
  if (n.agentToken) config['agent-token'] = n.agentToken;
  if (n.server) config.server = n.server;
  if (n.tlsSan) config['tls-san'] = n.tlsSan;
  if (n.cloudConfig) {
    config['cloud-provider-name'] = 'harvester';
    config['cloud-provider-config'] = '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config';
  }
  Object.assign(config, n.config ?? {});
  const files: Record<string, unknown>[] = [{ path: '/etc/rancher/rke2/config.yaml', permissions: '0600', owner: 'root:root', content: stringify(config) }];
  const pair = (name: string, c: IssuedCertificate) => [
    { path: `${TLS}/${name}.crt`, permissions: '0640', encoding: 'b64', content: Buffer.from(c.certPem).toString('base64') },
    { path: `${TLS}/${name}.key`, permissions: '0600', encoding: 'b64', content: Buffer.from(c.keyPem).toString('base64') },
  ];
  if (n.pki) {
    files.push(...pair('server-ca', n.pki.server), ...pair('client-ca', n.pki.client), ...pair('request-header-ca', n.pki.requestHeader));
    files.push(...pair('etcd/server-ca', n.pki.etcdServer), ...pair('etcd/peer-ca', n.pki.etcdPeer));
    files.push({ path: `${TLS}/service.key`, permissions: '0600', content: n.pki.serviceKeyPem });
  }
  if (n.cloudConfig) files.push({ path: '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config', permissions: '0600', encoding: 'b64', content: Buffer.from(n.cloudConfig).toString('base64') });
  if (n.clusterName && n.role === 'server') {
    const chart = { apiVersion: 'helm.cattle.io/v1', kind: 'HelmChartConfig', metadata: { name: 'harvester-cloud-provider', namespace: 'kube-system' }, spec: { valuesContent: stringify({ global: { cattle: { clusterName: n.clusterName } } }) } };
    files.push({ path: '/var/lib/rancher/rke2/server/manifests/harvester-cloud-provider-config.yaml', content: stringify(chart) });
  }
  const version = n.version ?? 'v1.32.5+rke2r1';
  const type = n.role === 'agent' ? ' INSTALL_RKE2_TYPE="agent"' : '';
  const runcmd = [
    'systemctl enable --now qemu-guest-agent.service',
    `curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION="${version}"${type} sh -`,
    `systemctl mask rke2-${n.role === 'server' ? 'agent' : 'server'}.service || true`,
    `systemctl enable rke2-${n.role}.service`,
    `systemctl start rke2-${n.role}.service`,
  ];
  return `#cloud-config\n${stringify({ package_update: true, packages: ['qemu-guest-agent'], write_files: files, runcmd })}`;
}

/** An admin kubeconfig (client certificate CN `name`, O `groups`, signed by the client CA) for `server`. */
export async function clientKubeconfig(pki: TestPki, server: string, name = 'gc-admin', groups = ['system:masters']): Promise<string> {
  const ca = await loadCa(pki.client.certPem, pki.client.keyPem);
  const leaf = await issueCertificate(ca, { commonName: name, organizations: groups, usage: 'client' });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'gc', cluster: { server, 'certificate-authority-data': b64(pki.server.certPem) } }],
    users: [{ name, user: { 'client-certificate-data': b64(leaf.certPem), 'client-key-data': b64(leaf.keyPem) } }],
    contexts: [{ name: 'gc', context: { cluster: 'gc', user: name } }],
    'current-context': 'gc',
  });
}

/** Writes a kubeconfig under the test's temp dir; returns its path. */
export function writeKubeconfig(t: TestEmulator, name: string, text: string): string {
  mkdirSync(join(t.dir, 'kc'), { recursive: true });
  const path = join(t.dir, 'kc', name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** An emulator on a ManualClock, its time driven by the test. */
export interface Rke2World {
  t: TestEmulator;
  clock: ManualClock;
  /** Advance time in steps until `check` holds (settling stores, listeners and certificate work); throws after `maxMs`. */
  runUntil<T>(check: () => T | undefined | false, message: string, maxMs?: number): Promise<T>;
  run(ms: number): Promise<void>;
  /** A control-plane LB (6443 + 9345) in pool mode on `pool`, selecting VMIs labelled `rke2-cp=<cluster>`; returns its address. */
  controlPlaneLb(cluster: string, poolSubnet: string): Promise<string>;
  /** A VM with this user data (cloud-init Secret) and labels. */
  vm(name: string, userData: string, labels?: Record<string, string>): void;
}

export async function startRke2World(options: EmulatorOptions = {}): Promise<Rke2World> {
  const clock = new ManualClock(Date.now());
  const t = await startTestEmulator({
    clock,
    bootDelayMs: 50,
    guestAgentDelayMs: 20,
    harvester: { delays: { vmiSchedule: 10 } },
    rke2: { delays: { install: 100, serverStart: 100, agentStart: 50, nodeRegister: 50, nodeReady: 50, agentRetry: 200, serverRestart: 500, ccmInit: 20, nodeLost: 1000 } },
    ...options,
  });
  const emu = t.emulator;
  const step = async (ms: number) => {
    clock.advance(ms);
    for (let i = 0; i < 4; i++) {
      await settle(emu.store, clock);
      for (const c of emu.rke2?.clusters() ?? []) await settle(c.cluster.store, clock);
      await emu.rke2?.settle();
    }
  };
  const world: Rke2World = {
    t,
    clock,
    async run(ms) {
      for (let done = 0; done < ms; done += 10) await step(10);
      await step(0);
    },
    async runUntil(check, message, maxMs = 20_000) {
      for (let elapsed = 0; elapsed <= maxMs; elapsed += 10) {
        await step(elapsed === 0 ? 0 : 10);
        const v = check();
        if (v) return v;
      }
      throw new Error(`not reached after ${maxMs} ms of emulator time: ${message}\n${JSON.stringify(emu.rke2?.nodes().map((n) => ({ vm: n.vm, phase: n.phase, reason: n.reason })), null, 1)}`);
    },
    async controlPlaneLb(cluster, poolSubnet) {
      const prefix = poolSubnet.replace(/\.0\/24$/, '');
      emu.store.create(KINDS.ipPool, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: `${cluster}-pool` }, spec: { ranges: [{ subnet: poolSubnet, rangeStart: `${prefix}.10`, rangeEnd: `${prefix}.20` }] } });
      emu.store.create(KINDS.loadBalancer, {
        apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
        kind: 'LoadBalancer',
        metadata: { name: `${cluster}-cp`, namespace: 'default' },
        spec: {
          workloadType: 'vm',
          ipam: 'pool',
          ipPool: `${cluster}-pool`,
          listeners: [
            { name: 'api', port: 6443, protocol: 'TCP', backendPort: 6443 },
            { name: 'supervisor', port: 9345, protocol: 'TCP', backendPort: 9345 },
          ],
          backendServerSelector: { 'rke2-cp': [cluster] },
          healthCheck: { port: 6443, periodSeconds: 30, timeoutSeconds: 60, failureThreshold: 3, successThreshold: 1 },
        },
      });
      return world.runUntil(() => {
        const lb = emu.store.get(KINDS.loadBalancer, 'default', `${cluster}-cp`) as KubeObject | undefined;
        return ((lb?.status as { address?: string } | undefined)?.address ?? (lb?.status as { allocatedAddress?: { ip?: string } } | undefined)?.allocatedAddress?.ip) || undefined;
      }, 'the control-plane LB has an address');
    },
    vm(name, userData, labels = {}) {
      emu.store.create(KINDS.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-cloudinit`, namespace: 'default' }, type: 'secret', data: { userdata: Buffer.from(userData).toString('base64') } });
      emu.store.create(KINDS.virtualMachine, nodeDriverVm(name, { secretRef: `${name}-cloudinit`, labels, runStrategy: 'RerunOnFailure' }));
    },
  };
  return world;
}
