/**
 * Benchmarks of HarvesterLoadBalancer and HarvesterIPPool on the shared emulator:
 * - create-to-address: the provider's create (object written, then a watch until an address is allocated and the
 *   load balancer is Ready) against the physical bound measured in the same run: the same object written by a raw
 *   client and a GET every 2 ms until it serves (what no watch can beat by more than the poll step). A provider
 *   that polled as the Terraform Harvester provider does (every 3–10 s) would be thousands of times slower.
 * - reads: requests of a load balancer's read and of a pool's read, with 1 and with 20 addresses allocated from
 *   the pool: constant (one GET each), never growing with allocations.
 */
import { createIPPoolProvider } from '../provider/resources/ip-pool/handlers';
import type { IPPoolOutputs } from '../provider/resources/ip-pool/model';
import { createLoadBalancerProvider } from '../provider/resources/load-balancer/handlers';
import type { LoadBalancerOutputs } from '../provider/resources/load-balancer/model';
import { desiredLoadBalancer } from '../provider/resources/load-balancer/plan';
import { median, nowMs } from './measure';
import type { PoolBench } from './pool-fixture';
import { fmt, type Reporter } from './report';

type Raw = Record<string, unknown>;
const RUNS = 5;

export async function benchLoadBalancer(bench: PoolBench, report: Reporter): Promise<void> {
  const kubeconfig = bench.emulator.kubeconfig;
  const connect = () => bench.connect();
  const pools = createIPPoolProvider({ connect });
  const lbs = createLoadBalancerProvider({ connect });
  const backends = await bench.create('lb-backends', 1);
  const checkOk = async (provider: { check(o: Raw, n: Raw): Promise<{ inputs?: Raw; failures?: unknown[] }> }, args: Raw) => {
    const r = await provider.check({}, { kubeconfig, ...args });
    if (r.failures?.length) throw new Error(`bench inputs refused: ${JSON.stringify(r.failures)}`);
    return r.inputs!;
  };
  const pool = (await pools.create(await checkOk(pools, { name: 'bench-pool', ranges: [{ subnet: '10.77.0.0/24', rangeStart: '10.77.0.10', rangeEnd: '10.77.0.200' }] }))).outs as IPPoolOutputs;
  const lbArgs = (name: string): Raw => ({ name, ipPool: 'bench-pool', listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: backends.backendSelector });
  const client = await bench.connect();

  // create-to-address, ours vs the bound, interleaved.
  const ours: number[] = [];
  const bound: number[] = [];
  const made: LoadBalancerOutputs[] = [];
  for (let i = 0; i < RUNS; i++) {
    const inputs = await checkOk(lbs, lbArgs(`ours-${i}`));
    let t = nowMs();
    made.push((await lbs.create(inputs)).outs as LoadBalancerOutputs);
    ours.push(nowMs() - t);
    const raw = desiredLoadBalancer((await checkOk(lbs, lbArgs(`bound-${i}`))) as never);
    t = nowMs();
    await client.loadBalancers.create(raw);
    for (;;) {
      const lb = await client.loadBalancers.get(`bound-${i}`, 'default');
      if (lb?.status?.address && lb.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    bound.push(nowMs() - t);
  }
  const [a, b] = [median(ours), median(bound)];
  report.add({
    name: 'load balancer create-to-address (watch)',
    measured: fmt(a, 'ms'),
    baseline: `${fmt(b, 'ms')} raw create + 2 ms GET poll (the bound)`,
    ratio: a / b,
    target: 2.0,
    note: `a 3 s poll (Terraform Harvester provider) would take ≥ ${fmt(3000 + b, 'ms')}: ${fmt((3000 + b) / a)}x ours`,
  });

  // read requests: constant in the number of allocations.
  const count = async (fn: () => Promise<unknown>) => {
    const mark = bench.emulator.journal.mark();
    await fn();
    return bench.emulator.journal.entries({ since: mark }).length;
  };
  const readLb = () => lbs.read('default/ours-0', made[0] as unknown as Raw);
  const readPool = () => pools.read('bench-pool', pool as unknown as Raw);
  const lbFew = await count(readLb);
  const poolFew = await count(readPool);
  for (let i = 0; i < 10; i++) {
    const inputs = await checkOk(lbs, lbArgs(`more-${i}`));
    made.push((await lbs.create(inputs)).outs as LoadBalancerOutputs);
  }
  const allocations = Object.keys((await client.ipPools.get('bench-pool'))!.status!.allocated ?? {}).length;
  const lbMany = await count(readLb);
  const poolMany = await count(readPool);
  report.add({ name: `load balancer read, pool with ${allocations} allocations, requests`, measured: `${lbMany} requests`, baseline: `${lbFew} with ${RUNS * 2} allocations`, ratio: lbMany / lbFew, target: 1.0 });
  report.add({ name: `IP pool read, ${allocations} allocations, requests`, measured: `${poolMany} requests`, baseline: `${poolFew} with ${RUNS * 2} allocations`, ratio: poolMany / poolFew, target: 1.0 });

  for (const lb of made) await lbs.delete(`default/${lb.name}`, lb as unknown as Raw);
  for (let i = 0; i < RUNS; i++) await client.loadBalancers.delete(`bound-${i}`, { namespace: 'default' });
  for (;;) {
    if ((await client.loadBalancers.list({ namespace: 'default' })).items.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await pools.delete('bench-pool', pool as unknown as Raw);
  await bench.provider.delete('default/lb-backends', backends as unknown as Raw);
}
