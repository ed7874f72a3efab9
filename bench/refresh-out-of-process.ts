/**
 * Figure 4 as a user meets it: the refresh of the same 121-resource stack (50 pools × 10 VMs, 50 load balancers,
 * 20 IP pools, topology labels) with the emulator CLI in its own process answering every response 10 ms late, so
 * the simulated cluster's work does not share the provider's event loop (it still shares this machine's two
 * cores). The pools' VMs sit on a VM network with a /20 route the stack makes first through HarvesterNetwork, as a
 * user's stack would. Requests are counted on the client side (diagnostics channel), the bound is
 * requests / parallelism × RTT, and the target is the in-process figure's: within 2x of it.
 */
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../provider/client';
import { createNetworkProvider } from '../provider/resources/network/handlers';
import { RTT_MS } from './physical-bound';
import { startEmulatorProcess, stopEmulatorProcess } from './provider-cpu';
import { fmt, type Reporter } from './report';
import { makeStack, PARALLELISM, refreshStack } from './stack-refresh';

export async function benchRefreshOutOfProcess(report: Reporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'harvester-refresh-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = await startEmulatorProcess(kubeconfig, ['--boot-delay', '5', '--guest-agent-delay', '5', '--latency', String(RTT_MS)]);
  try {
    const networks = createNetworkProvider({ connect: () => HarvesterClient.connect({ kubeconfig }) });
    const checked = await networks.check({}, { kubeconfig, name: 'wide-net', vlan: 200, route: { mode: 'manual', cidr: '172.20.0.0/20', gateway: '172.20.0.1' } });
    if (checked.failures?.length) throw new Error(`wide-net: ${JSON.stringify(checked.failures)}`);
    await networks.create(checked.inputs!);
    const { made } = await makeStack(kubeconfig, 'default/wide-net');
    await refreshStack(made); // warm: connections open, as after the engine's first reads
    let requests = 0;
    const count = () => requests++;
    diagnostics.subscribe('http.client.request.start', count);
    let wall: number;
    try {
      wall = await refreshStack(made);
    } finally {
      diagnostics.unsubscribe('http.client.request.start', count);
    }
    const bound = (requests / PARALLELISM) * RTT_MS;
    report.add({
      name: `refresh of ${made.length} resources, emulator in its own process, parallelism ${PARALLELISM}`,
      measured: fmt(wall, 'ms'),
      baseline: `${fmt(bound, 'ms')} = ${requests} requests / ${PARALLELISM} × ${RTT_MS} ms`,
      ratio: wall / bound,
      target: 2.0,
    });
  } finally {
    await stopEmulatorProcess(child, dir);
  }
}
