/**
 * refresh: every recorded resource read back through the host's `read`, a bounded number at a time (the host
 * answers calls concurrently; each read is a few API round trips), with the results shown and applied in the
 * state's order as soon as each and those before it are in. A resource gone from the cluster leaves the state.
 * What a read found is labelled by what moved: the inputs (the cluster differs from the program: drift, which
 * `up` would change back) or only outputs (an IP pool's allocations, a VM's address: no drift).
 */
import { propertyChanges, type CountKey, type Display } from './display';
import type { DynamicHost } from './dynamic-host';
import type { ResourceState, StackState } from './state';

/** Reads at once when --parallel is not given. */
export const DEFAULT_REFRESH_PARALLEL = 8;

export interface RefreshContext {
  state: StackState;
  host: DynamicHost;
  display: Display;
  full?: boolean;
  parallel: number;
  count(op: CountKey): void;
  fail(r: ResourceState, err: unknown): void;
}

/**
 * limited: starts `work` for every item, at most `limit` running at once, and returns one promise per item in
 * the items' order (each settles when its own work does).
 */
export function limited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R>[] {
  let running = 0;
  const waiting: (() => void)[] = [];
  const slot = async (): Promise<void> => {
    if (running < limit) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const done = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return items.map(async (item) => {
    await slot();
    try {
      return await work(item);
    } finally {
      done();
    }
  });
}

export async function refreshResources(ctx: RefreshContext): Promise<void> {
  const { state, host, display } = ctx;
  const resources = [...state.resources];
  const reads = limited(resources, Math.max(1, ctx.parallel), (r) =>
    host.read(r.urn, r.id, r.outputs, r.inputs).then(
      (read) => ({ read, err: undefined }),
      (err: unknown) => ({ read: undefined, err }),
    ),
  );
  for (const [i, r] of resources.entries()) {
    const { read, err } = await reads[i];
    if (!read) {
      ctx.fail(r, err);
      display.step('refresh', r.type, r.name, '**refresh failed**');
    } else if (!read.id) {
      ctx.count('delete');
      display.step('delete', r.type, r.name, 'deleted (gone from the cluster)');
      state.resources = state.resources.filter((x) => x.urn !== r.urn);
    } else {
      const inputs = read.inputs ?? r.inputs;
      const drift = propertyChanges(r.inputs, inputs, { secretKeys: r.secretKeys, full: ctx.full });
      const moved = propertyChanges(r.outputs, read.properties, { secretKeys: r.secretKeys, full: ctx.full });
      if (drift.length) {
        ctx.count('refresh');
        display.step('refresh', r.type, r.name, 'refreshed (the cluster differs)', moved.length ? moved : drift);
      } else if (moved.length) {
        ctx.count('outputs');
        display.step('outputs', r.type, r.name, 'outputs refreshed (no drift)', moved);
      } else {
        ctx.count('same');
      }
      Object.assign(r, { id: read.id, outputs: read.properties, inputs });
    }
  }
}
