/**
 * Shared fixtures of the client unit tests: a token kubeconfig for a fake https server, a client whose
 * retries sleep on a recorder (never really), and a recording logger.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { Logger } from '../../provider/client/logger';

export const SERVER = 'https://harvester.test:6443';
export const RANCHER_SERVER = 'https://rancher.test';
export const RANCHER_PATH = '/k8s/clusters/c-m-abc12';
/** A token that must never show up in any message. */
export const TOKEN = 'kubeconfig-u-abcde:s3cr3tt0kenvalue9876543210zyxwvu';
export const LB = '/apis/loadbalancer.harvesterhci.io/v1beta1/namespaces/default/loadbalancers';

/** A kubeconfig with token auth against `server`. */
export function kubeconfigYaml(options: { server?: string; token?: string; context?: string; insecure?: boolean } = {}): string {
  const server = options.server ?? SERVER;
  const ctx = options.context ?? 'harvester';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: harvester',
    '  cluster:',
    `    server: ${server}`,
    options.insecure ? '    insecure-skip-tls-verify: true' : `    certificate-authority-data: ${Buffer.from('not a real CA').toString('base64')}`,
    'users:',
    '- name: harvester-user',
    '  user:',
    `    token: ${options.token ?? TOKEN}`,
    'contexts:',
    `- name: ${ctx}`,
    '  context:',
    '    cluster: harvester',
    '    user: harvester-user',
    `current-context: ${ctx}`,
    '',
  ].join('\n');
}

/** Log lines by level. */
export class RecordingLogger implements Logger {
  readonly lines: { level: string; message: string }[] = [];
  debug(m: string): void {
    this.lines.push({ level: 'debug', message: m });
  }
  info(m: string): void {
    this.lines.push({ level: 'info', message: m });
  }
  warn(m: string): void {
    this.lines.push({ level: 'warn', message: m });
  }
  error(m: string): void {
    this.lines.push({ level: 'error', message: m });
  }
  text(): string {
    return this.lines.map((l) => `${l.level}: ${l.message}`).join('\n');
  }
}

/** A client whose retry sleeps are recorded in `sleeps` and return at once; jitter is fixed at 1 (no jitter). */
export async function testClient(options: { kubeconfig?: string; maxAttempts?: number; logger?: RecordingLogger } = {}) {
  const sleeps: number[] = [];
  const logger = options.logger ?? new RecordingLogger();
  const client = await HarvesterClient.connect({
    kubeconfig: options.kubeconfig ?? kubeconfigYaml(),
    logger,
    retry: { maxAttempts: options.maxAttempts ?? 4 },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 1,
  });
  return { client, sleeps, logger };
}

/** A Kubernetes Status body. */
export function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

/** An LB object as the server returns it. */
export function lb(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'LoadBalancer',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '10', ...((extra.metadata as object) ?? {}) },
    spec: { ipam: 'pool', workloadType: 'vm', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }] },
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
  };
}

/** Mocha hooks: no real network, and every interceptor used. */
export function useNock(): void {
  before(() => nock.disableNetConnect());
  after(() => nock.enableNetConnect());
  afterEach(function () {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    if (this.currentTest?.state === 'passed' && pending.length > 0) throw new Error(`unused interceptors: ${pending.join(', ')}`);
  });
}

/** A socket-level error as node reports it (nock needs an Error instance, not a plain object). */
export function netError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Mocha hooks: a fresh temporary directory for each test, removed after it. Call `dir()` inside a test. */
export function useTempDir(prefix: string): () => string {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}
