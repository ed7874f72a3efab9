/**
 * Opens and closes the listeners of the emulated RKE2 clusters' endpoints (docs/design/guest-rke2.md §"Reaching
 * the guest API", docs/emulator.md §"Guest RKE2 clusters"): an address in 127.0.0.0/8 (which Linux routes to the
 * loopback interface without configuration) is served at that very address and port, so a kubeconfig naming
 * `https://127.1.0.10:6443` works unchanged; any other address is served on 127.0.0.1 at a free port, and the
 * endpoint says where (its `url`; clients keep the real address as TLS server name). An address in use falls back
 * the same way. Nothing is ever dialled.
 */
import type { ApiServer } from '../../api/server';
import { parseIPv4 } from '../../util/ipv4';
import { DesiredEndpoint } from './endpoints';
import type { Rke2Endpoint } from './options';
import { startSupervisor, SupervisorServer } from './supervisor';

interface Open {
  desired: DesiredEndpoint;
  endpoint: Rke2Endpoint;
  close(): Promise<void>;
}

/** Is `ip` in 127.0.0.0/8? */
export function isLoopback(ip: string): boolean {
  const n = parseIPv4(ip);
  return n !== undefined && Math.floor(n / 2 ** 24) === 127;
}

function sameTarget(a: DesiredEndpoint, b: DesiredEndpoint): boolean {
  return a.kind === b.kind && a.cluster === b.cluster && a.certOf === b.certOf;
}

/** The set of open listeners, driven towards a desired set. */
export class EndpointListeners {
  private readonly open = new Map<string, Open>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly onChange?: (endpoint: Rke2Endpoint, open: boolean) => void) {}

  /** Every endpoint open now. */
  endpoints(): Rke2Endpoint[] {
    return [...this.open.values()].map((o) => o.endpoint);
  }

  /** Open what is desired and not open, close what is open and no longer desired (serialised, in order). */
  sync(desired: DesiredEndpoint[]): void {
    const want = new Map(desired.map((d) => [`${d.address}:${d.port}`, d]));
    this.queue = this.queue.then(async () => {
      for (const [key, o] of [...this.open]) {
        const d = want.get(key);
        if (d && sameTarget(d, o.desired)) continue;
        this.open.delete(key);
        await o.close();
        this.onChange?.(o.endpoint, false);
      }
      for (const [key, d] of want) {
        if (this.open.has(key) || this.stopped) continue;
        const opened = await this.start(d);
        if (!opened) continue;
        if (this.stopped) {
          await opened.close();
          continue;
        }
        this.open.set(key, opened);
        this.onChange?.(opened.endpoint, true);
      }
    }).catch((err: Error) => process.emitWarning(`emulator RKE2 endpoints: ${err.stack ?? err.message}`, 'EmulatorServerWarning'));
  }

  private async listen(d: DesiredEndpoint, host: string, port: number): Promise<{ port: number; close(): Promise<void> } | undefined> {
    const tls = d.cluster.tlsOf(d.certOf);
    if (!tls) return undefined;
    if (d.kind === 'supervisor') {
      const s: SupervisorServer = await startSupervisor(d.cluster, host, port, tls);
      return s;
    }
    const api = d.cluster.api;
    if (!api) return undefined;
    const server: ApiServer = await api.listen({ host, port, tls });
    return { port: Number(new URL(server.url).port), close: () => server.close() };
  }

  private async start(d: DesiredEndpoint): Promise<Open | undefined> {
    const address = `${d.address}:${d.port}`;
    let note: string | undefined;
    let bound: { port: number; close(): Promise<void> } | undefined;
    let host = d.address;
    if (isLoopback(d.address)) {
      try {
        bound = await this.listen(d, d.address, d.port);
      } catch (err) {
        note = `${address} could not be bound (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); served on 127.0.0.1 instead`;
      }
    } else {
      note = `${d.address} is not a loopback address: served on 127.0.0.1; keep ${d.address} as the TLS server name (kubectl --tls-server-name ${d.address})`;
    }
    if (!bound && note) {
      host = '127.0.0.1';
      try {
        bound = await this.listen(d, host, 0);
      } catch (err) {
        d.cluster.journal.error(`${address}: cannot serve the ${d.kind}: ${(err as Error).message}`);
        return undefined;
      }
    }
    if (!bound) return undefined;
    const endpoint: Rke2Endpoint = { cluster: d.cluster.id, kind: d.kind, address, url: `https://${host}:${bound.port}`, ...(note ? { note } : {}) };
    return { desired: d, endpoint, close: bound.close };
  }

  /** Waits until every queued open/close is done. */
  async settle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.queue;
      await current;
    } while (current !== this.queue);
  }

  /** Closes everything. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sync([]);
    await this.settle();
  }
}
