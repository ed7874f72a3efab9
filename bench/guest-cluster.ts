/**
 * A guest cluster from `up` to Ready (issue 36): examples/guest-cluster (3 servers, 2 agents) through the local
 * runner, against its bound measured in the same run — one server boot, then one join. RKE2's own pace is simulated
 * (a 2 s VM boot, 1 s install, 1 s server start, the agent's 2 s join retry and a joining server's 5 s restart, as
 * systemd restarts rke2-server): every VM of the cluster is created at once and the joiners retry until the first
 * server serves, as RKE2 does, so the cluster costs about one server boot and one join, however many nodes it has. A
 * provider that made the joiners wait for the first server (or each other) would add a boot per wave.
 *
 * - bound, part 1: `up` of the same program with one server and no agent (one server boot, to Ready);
 * - bound, part 2: the `up` that then adds one agent to it (one join, as a user meets it);
 * - measured: `up` of 3 servers and 2 agents from nothing. Target ≤ 1.3x the sum.
 * Each `up` includes the runner's own start (the program, the dynamic-provider host): in all three alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../emulator';
import { runOperation, type OperationKind } from '../runner/operations';
import { repoRoot } from '../scripts/resource-docs';
import { nowMs } from './measure';
import { fmt, type Reporter } from './report';

const TARGET = 1.3;
const RKE2_DELAYS = { install: 1000, serverStart: 1000, agentStart: 300, nodeRegister: 300, nodeReady: 500, agentRetry: 2000, serverRestart: 5000, ccmInit: 200 };

export async function benchGuestCluster(report: Reporter): Promise<void> {
  const emulator = await startEmulator({ host: '127.0.0.1', harvester: { delays: { vmiSchedule: 20, vmiBoot: 2000, guestAgent: 50, imageImport: 20 } }, rke2: { delays: RKE2_DELAYS } });
  const stateDir = mkdtempSync(join(tmpdir(), 'harvester-bench-guest-'));
  const up = async (kind: OperationKind, stack: string, range: number, config: Record<string, string>): Promise<number> => {
    const start = nowMs();
    const result = await runOperation(kind, {
      program: join(repoRoot(), 'dist/examples/guest-cluster/index.js'),
      pwd: repoRoot(),
      project: 'guest-cluster',
      stack,
      stateDir,
      config: {
        'harvester:kubeconfig': emulator.kubeconfig, 'guest-cluster:name': stack, 'guest-cluster:image': 'default/ubuntu-22.04-server-cloudimg', 'guest-cluster:network': 'default/vm-net',
        'guest-cluster:subnet': `127.40.${range}.0/24`, 'guest-cluster:rangeStart': `127.40.${range}.10`, 'guest-cluster:rangeEnd': `127.40.${range}.19`,
        'guest-cluster:serviceSubnet': `127.40.${range + 1}.0/24`, 'guest-cluster:serviceRangeStart': `127.40.${range + 1}.10`, 'guest-cluster:serviceRangeEnd': `127.40.${range + 1}.19`,
        ...config,
      },
      secretConfigKeys: ['harvester:kubeconfig'],
      sink: () => undefined,
    });
    if (!result.ok) throw new Error(`${kind} ${stack}: ${result.errors.join('; ')}`);
    return nowMs() - start;
  };
  try {
    const serverBoot = await up('up', 'bench-one', 0, { 'guest-cluster:servers': '1', 'guest-cluster:agents': '0' });
    const join1 = await up('up', 'bench-one', 0, { 'guest-cluster:servers': '1', 'guest-cluster:agents': '1' });
    await up('destroy', 'bench-one', 0, {});
    const cluster = await up('up', 'bench-five', 2, { 'guest-cluster:servers': '3', 'guest-cluster:agents': '2' });
    await up('destroy', 'bench-five', 2, {});
    report.add({
      name: 'guest cluster (3 servers, 2 agents) from up to Ready, local runner (2 s boot; RKE2 install 1 s, start 1 s, join retry 2 s, server restart 5 s)',
      measured: fmt(cluster, 'ms'),
      baseline: `${fmt(serverBoot + join1, 'ms')} = one server to Ready (${fmt(serverBoot, 'ms')}) + one agent joining it (${fmt(join1, 'ms')})`,
      ratio: cluster / (serverBoot + join1),
      target: TARGET,
    });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
    await emulator.stop();
  }
}
