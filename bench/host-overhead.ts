/**
 * Figure 5: the cost of Pulumi's real dynamic-provider host. `__provider` bytes per resource (stored in every
 * resource's state: ≤ 2 KB), and the host's overhead per Check and per Diff over 1000 resources (gRPC, Struct
 * conversion, deserializing `__provider`, the host-safe wrapper) against calling the same handlers directly in the
 * same run: at most 5 ms each. Check runs with the connection unknown (as in a preview), so no cluster is involved.
 */
import { join } from 'node:path';
import * as provider from '../provider';
import { DynamicHost, UNKNOWN_VALUE, serializeProvider } from '../runner/dynamic-host';
import { repoRoot } from '../scripts/resource-docs';
import { providerFor } from '../sdk/runtime';
import { RESOURCES } from '../sdk/registry';
import { nowMs } from './measure';
import { fmt, type Reporter } from './report';

const CALLS = 1000;

export async function benchHostOverhead(report: Reporter): Promise<void> {
  for (const r of RESOURCES) {
    const bytes = (await serializeProvider(providerFor(r.exportName))).length;
    report.add({ name: `__provider of ${r.className}`, measured: `${bytes} bytes`, baseline: '2048 bytes (the budget)', ratio: bytes / 2048, target: 1.0 });
  }
  const text = await serializeProvider(providerFor('topologyLabels'));
  const host = await DynamicHost.start({ cwd: repoRoot(), env: { KUBECONFIG: join(repoRoot(), 'no-such-kubeconfig') } });
  try {
    await host.configure({}); // as the engine always does first (no stack config here)
    const urn = (i: number) => `urn:pulumi:bench::bench::pulumi-nodejs:dynamic/harvester:TopologyLabels::site-${i}`;
    const news = (i: number) => ({ __provider: text, kubeconfig: UNKNOWN_VALUE, name: `site-${i}`, hosts: { 'harvester-node-0': { zone: `z-${i % 3}` } } });
    const olds = (i: number) => ({ ...news(i), kubeconfig: undefined, guestNamespace: 'default', waitForGuestSync: false, guestSyncTimeout: '10m', hosts: { 'harvester-node-0': { zone: `z-${(i + 1) % 3}` } } });
    await host.check(urn(0), {}, news(0)); // warm: deserializes __provider, loads harvester-iac/provider
    const time = async (fn: (i: number) => Promise<unknown>) => {
      const start = nowMs();
      for (let i = 0; i < CALLS; i++) await fn(i);
      return (nowMs() - start) / CALLS;
    };
    const direct = provider.topologyLabels;
    const checkHost = await time((i) => host.check(urn(i), {}, news(i)));
    const checkDirect = await time((i) => direct.check({}, news(i)));
    const diffHost = await time((i) => host.diff(urn(i), `site-${i}`, JSON.parse(JSON.stringify(olds(i))), news(i)));
    const diffDirect = await time((i) => direct.diff(`site-${i}`, JSON.parse(JSON.stringify(olds(i))), news(i)));
    for (const [op, viaHost, inProcess] of [['Check', checkHost, checkDirect], ['Diff', diffHost, diffDirect]] as const) {
      const overhead = Math.max(0, viaHost - inProcess);
      report.add({
        name: `host overhead per ${op} (${CALLS} resources)`,
        measured: fmt(overhead, 'ms'),
        baseline: '5 ms (budget)',
        ratio: overhead / 5,
        target: 1.0,
        note: `${fmt(viaHost, 'ms')} through the host, ${fmt(inProcess, 'ms')} called directly`,
      });
    }
  } finally {
    await host.stop();
  }
}
