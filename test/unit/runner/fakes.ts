/**
 * In-process stand-ins for what the runner's engine side talks to, so its logic is tested without a program or a
 * dynamic-provider host: a host whose answers each test sets, a state store that keeps every saved state, and a
 * display that collects its lines.
 */
import { Deployment, type DeploymentOptions } from '../../../runner/deployment';
import { Display } from '../../../runner/display';
import type { DynamicHost } from '../../../runner/dynamic-host';
import type { Registration } from '../../../runner/monitor';
import type { StackState, StateStore } from '../../../runner/state';

type Raw = Record<string, unknown>;

export type HostCall = [string, ...unknown[]];

/** The host's answers, by default: inputs check clean, nothing changes, create names the object by its inputs. */
export class FakeHost {
  readonly calls: HostCall[] = [];
  check = async (_urn: string, _olds: Raw, news: Raw): Promise<{ inputs: Raw; failures: { property: string; reason: string }[] }> => ({ inputs: news, failures: [] });
  diff = async (): Promise<{ changes: 'some' | 'none' | 'unknown'; replaces: string[]; deleteBeforeReplace: boolean }> => ({ changes: 'none', replaces: [], deleteBeforeReplace: false });
  create = async (_urn: string, props: Raw): Promise<{ id: string; properties: Raw }> => ({ id: `id-${String(props.name)}`, properties: { ...props, made: true } });
  read = async (_urn: string, id: string, props: Raw, inputs?: Raw): Promise<{ id: string; properties: Raw; inputs?: Raw }> => ({ id, properties: props, inputs });
  update = async (_urn: string, _id: string, _olds: Raw, news: Raw): Promise<{ properties: Raw }> => ({ properties: { ...news, updated: true } });
  delete = async (): Promise<void> => undefined;

  /** The host as the deployment sees it, recording each call's name and arguments. */
  get asHost(): DynamicHost {
    const record =
      (name: keyof FakeHost) =>
      (...args: unknown[]) => {
        this.calls.push([name, ...args]);
        return (this[name] as (...a: unknown[]) => unknown)(...args);
      };
    return { check: record('check'), diff: record('diff'), create: record('create'), read: record('read'), update: record('update'), delete: record('delete') } as unknown as DynamicHost;
  }

  /** The calls' names in order. */
  get ops(): string[] {
    return this.calls.map((c) => c[0]);
  }
}

/** A store that keeps a copy of each saved state. */
export class FakeStore {
  readonly saved: StackState[] = [];
  save(state: StackState): void {
    this.saved.push(JSON.parse(JSON.stringify(state)) as StackState);
  }
  get asStore(): StateStore {
    return this as unknown as StateStore;
  }
}

export function emptyState(): StackState {
  return { stack: 'dev', project: 'proj', resources: [], outputs: {}, outputSecretKeys: [] };
}

export const WIDGET = 'pulumi-nodejs:dynamic/test:Widget';

/** A custom dynamic resource's registration, its inputs `{ name }` unless given. */
export function registration(name: string, over: Partial<Registration> = {}): Registration {
  return {
    type: WIDGET,
    name,
    parent: '',
    custom: true,
    object: { name },
    additionalSecretOutputs: [],
    deleteBeforeReplace: false,
    importId: '',
    ignoreChanges: [],
    dependencies: [],
    ...over,
  };
}

export const urnOf = (name: string, type = WIDGET) => `urn:pulumi:dev::proj::${type}::${name}`;

/** A deployment over fakes, with the lines it printed. */
export function fakeDeployment(over: Partial<DeploymentOptions> & { fakeHost?: FakeHost } = {}) {
  const host = over.fakeHost ?? new FakeHost();
  const store = new FakeStore();
  const lines: string[] = [];
  const state = over.state ?? emptyState();
  const deployment = new Deployment({ host: host.asHost, state, store: store.asStore, dryRun: false, display: new Display((l) => lines.push(l)), ...over });
  return { deployment, host, store, lines, state };
}
