/**
 * The emulator's read path against a bare `node:https` server (issue 25), in one run on the same machine, each
 * over keep-alive with 8 requests in flight:
 * - a GET of a small object (a seeded Node, ~2 KB) against a bare server answering the same bytes: within 1.5×;
 * - a label-selected LIST of 10 among 1,500 ConfigMaps against that GET: within 2× (a list through the label
 *   index and cached item texts costs about what a GET does).
 * The three are timed in alternating rounds and the median round of each is kept, so load from other work on
 * the machine hits all three alike.
 */
import { Agent, createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startEmulator } from '../emulator';
import { createTlsMaterial } from '../emulator/api/tls';
import { KINDS } from '../emulator/kinds';
import { median, nowMs } from './measure';
import { fmt, type Reporter } from './report';

const IN_FLIGHT = 8;
const PER_ROUND = 800;
const ROUNDS = 7;
const CONFIGMAPS = 1500;
const SELECTED = 10;

/** GET `url` and return the body (throws on a non-200 answer). */
function get(agent: Agent, url: string, token: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' }, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${url}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Requests per second of `PER_ROUND` GETs of `url`, `IN_FLIGHT` at a time over one keep-alive agent. */
async function rate(agent: Agent, url: string, token: string): Promise<number> {
  let left = PER_ROUND;
  const start = nowMs();
  await Promise.all(
    [...Array(IN_FLIGHT)].map(async () => {
      while (left-- > 0) await get(agent, url, token);
    }),
  );
  return (PER_ROUND / (nowMs() - start)) * 1000;
}

export async function benchEmulatorRead(report: Reporter): Promise<void> {
  const emulator = await startEmulator({ host: '127.0.0.1', controllers: false });
  const tls = await createTlsMaterial();
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  let bare: ReturnType<typeof createServer> | undefined;
  try {
    const store = emulator.store;
    for (let i = 0; i < CONFIGMAPS; i++) {
      const labels = { app: 'bench', group: `g${i % 150}`, ...(i % (CONFIGMAPS / SELECTED) === 0 ? { selected: 'yes' } : {}) };
      store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default', labels }, data: { key: 'value'.repeat(20) } });
    }
    const node = store.list(KINDS.node).items[0].metadata.name!;
    const getUrl = `${emulator.url}/api/v1/nodes/${node}`;
    const listUrl = `${emulator.url}/api/v1/namespaces/default/configmaps?labelSelector=${encodeURIComponent('selected=yes')}`;
    const token = emulator.token;
    const body = await get(agent, getUrl, token);
    const listed = JSON.parse((await get(agent, listUrl, token)).toString()) as { items: unknown[] };
    if (listed.items.length !== SELECTED) throw new Error(`emulator-read: the selector listed ${listed.items.length} ConfigMaps, expected ${SELECTED}`);

    const server = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
    bare = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const bareUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const rates = { bare: [] as number[], get: [] as number[], list: [] as number[] };
    for (let round = 0; round <= ROUNDS; round++) {
      const b = await rate(agent, bareUrl, token);
      const g = await rate(agent, getUrl, token);
      const l = await rate(agent, listUrl, token);
      // Round 0 warms up connections and the JIT.
      if (round === 0) continue;
      rates.bare.push(b);
      rates.get.push(g);
      rates.list.push(l);
    }
    const bareRate = median(rates.bare);
    const getRate = median(rates.get);
    const listRate = median(rates.list);
    report.add({
      name: `emulator GET of a ${fmt(body.length / 1024, 'KiB')} Node (keep-alive, ${IN_FLIGHT} in flight)`,
      measured: `${fmt(1000 / getRate, 'ms')} per request`,
      baseline: `${fmt(1000 / bareRate, 'ms')} from a bare node:https server sending the same bytes`,
      ratio: bareRate / getRate,
      target: 1.5,
      note: `${fmt(getRate)} vs ${fmt(bareRate)} requests/s`,
    });
    report.add({
      name: `emulator LIST of ${SELECTED} among ${CONFIGMAPS} ConfigMaps by label selector`,
      measured: `${fmt(1000 / listRate, 'ms')} per request`,
      baseline: `${fmt(1000 / getRate, 'ms')} per GET above`,
      ratio: getRate / listRate,
      target: 2.0,
      note: `${fmt(listRate)} lists/s`,
    });
  } finally {
    agent.destroy();
    if (bare) {
      bare.closeAllConnections();
      await new Promise<void>((resolve) => bare!.close(() => resolve()));
    }
    await emulator.stop();
  }
}
