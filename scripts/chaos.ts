/**
 * `npm run chaos -- --seeds N [--rate R]`: the chaos lifecycle (test/chaos/lifecycle.ts) for seeds 1..N at fault
 * rate R (default 0.1 of requests), one line per seed and a summary; exit 1 when any run did not converge, left an
 * orphan or leaked a secret. `npm test` runs two seeds; this runs as many as you like.
 */
import { parseArgs } from 'node:util';
import { runChaos } from '../test/chaos/lifecycle';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { seeds: { type: 'string', default: '10' }, rate: { type: 'string', default: '0.1' } } });
  const seeds = Number(values.seeds);
  const rate = Number(values.rate);
  if (!Number.isInteger(seeds) || seeds < 1) throw new Error(`--seeds ${values.seeds}: give a whole number of runs, e.g. --seeds 20`);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`--rate ${values.rate}: give the share of requests to fault, between 0 and 1, e.g. --rate 0.1`);
  const totals = { runs: 0, converged: 0, retriedSteps: 0, recovered: 0, faults: 0, requests: 0, orphans: 0, secrets: 0 };
  process.stdout.write(`chaos: ${seeds} runs, fault rate ${rate}\nseed converged steps retried recovered-after-outage faults requests orphans secrets\n`);
  for (let seed = 1; seed <= seeds; seed++) {
    const r = await runChaos(seed, { rate });
    totals.runs++;
    totals.converged += r.converged ? 1 : 0;
    totals.retriedSteps += r.retriedSteps;
    totals.recovered += r.recoveredAfterOutage;
    totals.faults += r.faultsInjected;
    totals.requests += r.requests;
    totals.orphans += r.orphans.length;
    totals.secrets += r.secretsFound.length;
    process.stdout.write(`${seed} ${r.converged} ${r.steps} ${r.retriedSteps} ${r.recoveredAfterOutage} ${r.faultsInjected} ${r.requests} ${r.orphans.length} ${r.secretsFound.length}\n`);
    for (const o of r.orphans) process.stdout.write(`  orphan: ${o}\n`);
    for (const s of r.secretsFound) process.stdout.write(`  secret found: ${s}\n`);
    if (!r.converged) process.stdout.write(`  ${r.errors.at(-1)}\n`);
  }
  process.stdout.write(
    `runs ${totals.runs}, converged ${totals.converged}, steps retried ${totals.retriedSteps}, recovered after the outage ${totals.recovered}, ` +
      `faults injected ${totals.faults} in ${totals.requests} requests, orphans ${totals.orphans}, secrets found ${totals.secrets}\n`,
  );
  return totals.converged === totals.runs && totals.orphans === 0 && totals.secrets === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
