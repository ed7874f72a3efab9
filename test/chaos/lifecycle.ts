/**
 * One chaos run: the quickstart's lifecycle (an image downloaded while the faults hit the waits on it, a VM network,
 * a key pair, IP pool, topology labels, a machine pool built from the image over their zones, a load balancer in front of it; scale up, rolling user-data change, an ipam change replacing the load balancer, a zone
 * change; destroy) against the emulator with faults injected on a share of all requests (429 with Retry-After,
 * 500, 503, connection resets, 409 conflicts on writes, dropped and expired watches, latency), from a seed.
 *
 * Each step runs as the engine runs it: check, then create/update/delete; when a step fails, the next `up` runs it
 * again from what was recorded (a partial failure's properties become the state), and that retry is counted.
 * After the run, with faults off: nothing of the stack is left (no image, VM network, key pair, VM, VMI, Secret, PVC,
 * load balancer or pool of ours), every IP allocation belongs to a live load balancer, the hosts carry their seed labels again, and no log
 * line, error or recorded output holds a secret (nor its base64).
 */
import { HarvesterClient } from '../../provider/client/harvester-client';
import { ResourceInitError } from '../../provider/core/errors';
import { createImageProvider } from '../../provider/resources/image/handlers';
import { createIPPoolProvider } from '../../provider/resources/ip-pool/handlers';
import { createKeyPairProvider } from '../../provider/resources/key-pair/handlers';
import { createNetworkProvider } from '../../provider/resources/network/handlers';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import { createTopologyLabelsProvider } from '../../provider/resources/topology-labels/handlers';
import type { FaultRule } from '../../emulator/faults/rules';
import { startTestEmulator } from '../support/emulator-harness';
import { ed25519Blob, keyLine } from '../support/keypair-rules';

type Raw = Record<string, unknown>;
interface Handlers {
  check(olds: Raw, news: Raw): Promise<{ inputs?: Raw; failures?: { property: string; reason: string }[] }>;
  create(inputs: Raw): Promise<{ id: string; outs?: unknown }>;
  update(id: string, olds: Raw, news: Raw): Promise<{ outs?: unknown }>;
  delete(id: string, props: Raw): Promise<void>;
}

export interface ChaosReport {
  seed: number;
  steps: number;
  /** Steps that failed at least once and converged on a later attempt. */
  retriedSteps: number;
  /** Steps that still failed after ATTEMPTS under faults and converged once the faults stopped (an outage ended). */
  recoveredAfterOutage: number;
  failedAttempts: number;
  faultsInjected: number;
  requests: number;
  converged: boolean;
  orphans: string[];
  secretsFound: string[];
  errors: string[];
}

const SECRET_USER_DATA = '#cloud-config\nruncmd:\n  - echo chaos-secret-7f3a91\n';
const SECRET_USER_DATA_2 = '#cloud-config\nruncmd:\n  - echo chaos-secret-2b8c44\n';
const ATTEMPTS = 6;
const AFTER_OUTAGE = 2;

/** The fault mix: about 10% of requests fail, watches drop, writes conflict, every request is a little slow. */
export function faultMix(rate = 0.1): FaultRule[] {
  return [
    { name: 'jitter', action: { type: 'latency', ms: 3 } },
    { name: '429', probability: rate * 0.25, action: { type: 'error', code: 429, retryAfterSeconds: 0 } },
    { name: '500', probability: rate * 0.2, action: { type: 'error', code: 500 } },
    { name: '503', probability: rate * 0.25, action: { type: 'error', code: 503 } },
    { name: 'reset', probability: rate * 0.15, action: { type: 'reset' } },
    { name: 'conflict', match: { verb: ['update', 'patch'] }, probability: rate * 0.15, action: { type: 'conflict' } },
    { name: 'watch-expire', match: { verb: 'watch' }, probability: 0.2, action: { type: 'watchDrop', mode: 'expire', afterMs: 20 } },
    { name: 'watch-clean', match: { verb: 'watch' }, probability: 0.2, action: { type: 'watchDrop', mode: 'clean', afterMs: 30 } },
  ];
}

export async function runChaos(seed: number, options: { rate?: number; log?: (line: string) => void } = {}): Promise<ChaosReport> {
  // The image's download takes long enough for the faults to hit the watch waiting on it.
  const t = await startTestEmulator({ seed, harvester: { delays: { vmiSchedule: 5, vmiBoot: 20, guestAgent: 20, imageImport: 200 } } });
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    options.log?.(line);
  };
  const report: ChaosReport = { seed, steps: 0, retriedSteps: 0, recoveredAfterOutage: 0, failedAttempts: 0, faultsInjected: 0, requests: 0, converged: false, orphans: [], secretsFound: [], errors: [] };
  const outputs: unknown[] = [];
  try {
    const kubeconfig = t.emulator.kubeconfig;
    const connect = (o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect({ ...o, retry: { maxAttempts: 6, initialDelayMs: 5, maxDelayMs: 40 } });
    const client = await HarvesterClient.connect({ kubeconfig });
    const seedLabels = new Map((await client.nodes.list()).items.map((n) => [n.metadata.name!, JSON.stringify(n.metadata.labels ?? {})]));
    const handlers = {
      image: createImageProvider({ connect, onProgress: log }) as unknown as Handlers,
      net: createNetworkProvider({ connect, onProgress: log }) as unknown as Handlers,
      key: createKeyPairProvider({ connect, onProgress: log }) as unknown as Handlers,
      pool: createIPPoolProvider({ connect }) as unknown as Handlers,
      site: createTopologyLabelsProvider({ connect, onProgress: log, onWarning: log }) as unknown as Handlers,
      workers: createMachinePoolProvider({ connect, onProgress: log }) as unknown as Handlers,
      lb: createLoadBalancerProvider({ connect, onProgress: log }) as unknown as Handlers,
    };
    const state = new Map<keyof typeof handlers, { id: string; outs: Raw; inputs: Raw }>();

    /** A step as the engine runs it, retried as the next `up` would run it. */
    const step = async (what: string, key: keyof typeof handlers, op: 'create' | 'update' | 'delete', args?: Raw) => {
      report.steps++;
      const h = handlers[key];
      let failures = 0;
      for (let attempt = 1; attempt <= ATTEMPTS + AFTER_OUTAGE; attempt++) {
        if (attempt === ATTEMPTS + 1) {
          // The outage ends: the faults stop, and the next `up` must converge from whatever the failures left.
          t.emulator.faults.clear();
          report.recoveredAfterOutage++;
        }
        try {
          const current = state.get(key);
          if (op === 'delete') {
            if (current) await h.delete(current.id, current.outs);
            state.delete(key);
          } else {
            const checked = await h.check(current?.inputs ?? {}, { kubeconfig, ...args });
            if (checked.failures?.length) throw new Error(`check: ${JSON.stringify(checked.failures)}`);
            const inputs = checked.inputs!;
            if (!current) {
              const made = await h.create(inputs);
              state.set(key, { id: made.id, outs: made.outs as Raw, inputs });
            } else {
              const updated = await h.update(current.id, current.outs, inputs);
              state.set(key, { id: current.id, outs: updated.outs as Raw, inputs });
            }
          }
          outputs.push(state.get(key)?.outs);
          if (failures) report.retriedSteps++;
          return;
        } catch (err) {
          failures++;
          report.failedAttempts++;
          const message = err instanceof Error ? err.message : String(err);
          log(`${what}: attempt ${attempt} failed (the next up runs it again): ${message.split('\n')[0]}`);
          report.errors.push(message);
          // A partial failure leaves recorded state (ErrorResourceInitFailed): the next up updates from it.
          if (err instanceof ResourceInitError) {
            const prev = state.get(key);
            state.set(key, { id: err.id, outs: err.properties, inputs: prev?.inputs ?? (args as Raw) });
          }
        }
      }
      throw new Error(`${what}: did not converge in ${ATTEMPTS} attempts under faults and ${AFTER_OUTAGE} after them`);
    };

    t.emulator.faults.reseed(seed);
    t.emulator.faults.add(...faultMix(options.rate));
    const mark = t.emulator.journal.mark();
    const hosts = [...seedLabels.keys()].sort();
    const zones = (names: string[]) => Object.fromEntries(hosts.map((h, i) => [h, { region: 'chaos', zone: names[i] }]));
    const pool = (count: number, userData: string): Raw => ({
      name: 'chaos',
      count,
      disks: [{ image: state.get('image')?.id ?? 'default/chaos-image', size: '10Gi' }],
      networks: [{ network: state.get('net')?.id ?? 'default/chaos-net' }],
      sshKeys: [state.get('key')?.id ?? 'default/chaos-key'],
      zones: ['chaos-a', 'chaos-b', 'chaos-c'],
      userData,
      timeouts: { create: '20s', update: '20s', delete: '20s' },
    });
    const lb = (ipam: 'pool' | 'dhcp'): Raw => ({
      name: 'chaos-lb',
      ipam,
      ...(ipam === 'pool' ? { ipPool: 'chaos-pool' } : {}),
      listeners: [{ name: 'api', port: 6443, backendPort: 6443 }],
      backendServerSelector: (state.get('workers')?.outs as { backendSelector?: Raw } | undefined)?.backendSelector ?? { 'harvester-iac.io/resource-name': ['chaos'] },
      healthCheck: { port: 6443 },
      timeouts: { create: '10s', update: '10s', delete: '10s' },
    });

    await step('create image (download)', 'image', 'create', { name: 'chaos-image', url: 'https://images.example.com/chaos.qcow2', timeouts: { create: '20s', update: '20s', delete: '20s' } });
    const waits = { create: '20s', update: '20s', delete: '20s' };
    await step('create VM network', 'net', 'create', { name: 'chaos-net', vlan: 300, route: { mode: 'manual', cidr: '172.30.0.0/24', gateway: '172.30.0.1' }, timeouts: waits });
    await step('create key pair', 'key', 'create', { name: 'chaos-key', publicKey: keyLine('ssh-ed25519', ed25519Blob(), 'chaos'), timeouts: waits });
    await step('create IP pool', 'pool', 'create', { name: 'chaos-pool', ranges: [{ subnet: '10.88.0.0/24', rangeStart: '10.88.0.10', rangeEnd: '10.88.0.40' }] });
    await step('create topology labels', 'site', 'create', { name: 'chaos-site', hosts: zones(['chaos-a', 'chaos-b', 'chaos-c']) });
    await step('create machine pool (2 VMs)', 'workers', 'create', pool(2, SECRET_USER_DATA));
    await step('create load balancer', 'lb', 'create', lb('pool'));
    await step('scale the pool to 3', 'workers', 'update', pool(3, SECRET_USER_DATA));
    await step('roll the pool to new user data', 'workers', 'update', pool(3, SECRET_USER_DATA_2));
    // ipam cannot change in place: the engine deletes the old load balancer first, then creates the new one.
    await step('replace the load balancer (delete)', 'lb', 'delete');
    await step('replace the load balancer (create, dhcp)', 'lb', 'create', lb('dhcp'));
    await step('move a zone', 'site', 'update', { name: 'chaos-site', hosts: zones(['chaos-a', 'chaos-b', 'chaos-b']) });
    await step('destroy the load balancer', 'lb', 'delete');
    await step('destroy the machine pool', 'workers', 'delete');
    await step('destroy the image', 'image', 'delete');
    await step('destroy the VM network', 'net', 'delete');
    await step('destroy the key pair', 'key', 'delete');
    await step('destroy the topology labels', 'site', 'delete');
    await step('destroy the IP pool', 'pool', 'delete');
    report.converged = true;
    if (report.recoveredAfterOutage) log(`${report.recoveredAfterOutage} step(s) converged only after the faults stopped`);
    const entries = t.emulator.journal.entries({ since: mark });
    report.requests = entries.length;
    report.faultsInjected = entries.filter((e) => (e.faults ?? []).some((f) => f !== 'jitter')).length;
    t.emulator.faults.clear();

    // Orphans: anything of ours left, any allocation without its load balancer, any host label not as seeded.
    const ours = 'app.kubernetes.io/managed-by=harvester-iac';
    for (const kind of ['images', 'networks', 'keyPairs', 'virtualMachines', 'virtualMachineInstances', 'secrets', 'persistentVolumeClaims', 'loadBalancers'] as const) {
      for (const o of (await client[kind].list({ labelSelector: kind === 'virtualMachineInstances' ? 'harvester-iac.io/resource-name=chaos' : ours })).items) report.orphans.push(`${kind} ${o.metadata.namespace}/${o.metadata.name}`);
    }
    for (const p of (await client.ipPools.list({})).items) {
      report.orphans.push(`IPPool ${p.metadata.name}`);
      for (const [ip, owner] of Object.entries(p.status?.allocated ?? {})) {
        const [ns, name] = owner.split('/');
        if (!(await client.loadBalancers.get(name, ns))) report.orphans.push(`allocation ${ip} → ${owner} (no such load balancer)`);
      }
    }
    for (const n of (await client.nodes.list()).items) {
      const labels = JSON.stringify(n.metadata.labels ?? {});
      if (labels !== seedLabels.get(n.metadata.name!)) report.orphans.push(`host ${n.metadata.name} labels ${labels}`);
    }
  } catch (err) {
    report.errors.push(err instanceof Error ? err.message : String(err));
  } finally {
    await t.stop();
  }
  // Secrets: neither user data nor its base64 in any log line, error message or recorded output (the recorded
  // `kubeconfig` output is left out: it is the connection input itself, kept secret by Pulumi in state).
  const token = /token: (\S+)/.exec(t.emulator.kubeconfig)?.[1];
  const secrets = [SECRET_USER_DATA, SECRET_USER_DATA_2, 'chaos-secret-7f3a91', 'chaos-secret-2b8c44', ...(token ? [token] : [])];
  const haystack = [...lines, ...report.errors, JSON.stringify(outputs.map((o) => Object.fromEntries(Object.entries((o ?? {}) as Raw).filter(([k]) => k !== 'kubeconfig'))))].join('\n');
  for (const s of secrets) {
    if (haystack.includes(s)) report.secretsFound.push(`plain: ${s.slice(0, 12)}…`);
    if (haystack.includes(Buffer.from(s).toString('base64'))) report.secretsFound.push(`base64: ${s.slice(0, 12)}…`);
  }
  return report;
}
