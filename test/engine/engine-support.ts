/**
 * The engine's side of the engine-contract tests: the embedded emulator, Pulumi's real dynamic-provider host
 * (runner/dynamic-host.ts) started from the repository root (where `harvester-iac` resolves to this package,
 * as it does from a user's program), and `__provider` texts serialized from the real SDK provider objects.
 */
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { repoRoot } from '../../scripts/resource-docs';
import { providerFor } from '../../sdk/runtime';
import { DynamicHost, serializeProvider } from '../../runner/dynamic-host';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import type { EmulatorOptions } from '../../emulator';

/** A started emulator + host; `stop()` ends both. */
export interface EngineHarness {
  t: TestEmulator;
  host: DynamicHost;
  client: HarvesterClient;
  /** `__provider` of an export of harvester-iac/provider, from the SDK's provider object. */
  providerText(exportName: string): Promise<string>;
  urn(type: string, name: string): string;
  /** A one-VM pool's inputs, as a program writes them (plus `__provider`). */
  poolInputs(name: string, providerText: string, overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Starts another host (e.g. a new `pulumi` run after a token rotation), stopped by stop(). */
  newHost(config?: Record<string, string>): Promise<DynamicHost>;
  stop(): Promise<void>;
}

export const HOST_CALL_TIMEOUT_MS = 60_000;

/**
 * Resolves once `probe` is true (polling the emulator every 20 ms, at most 10 s): a test's own observation of the
 * cluster (e.g. to kill a host mid-operation), never the provider's way of waiting.
 */
export async function until(probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await probe()); i++) await new Promise((r) => setTimeout(r, 20));
}

/** Options of startEngineHarness. */
export interface EngineHarnessOptions {
  /** Receives every line the hosts print besides their port (standard error and output). */
  onHostLine?: (line: string) => void;
  /** Emulator options besides the harness's delays (e.g. a guest cluster). */
  emulator?: EmulatorOptions;
}

export async function startEngineHarness(options: EngineHarnessOptions = {}): Promise<EngineHarness> {
  const t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } }, ...options.emulator });
  const hosts: DynamicHost[] = [];
  const newHost = async (config: Record<string, string> = { 'harvester:kubeconfig': t.emulator.kubeconfig }) => {
    const host = await DynamicHost.start({ cwd: repoRoot(), callTimeoutMs: HOST_CALL_TIMEOUT_MS, env: { KUBECONFIG: join(t.dir, 'no-such-kubeconfig') }, onLog: options.onHostLine, onOutput: options.onHostLine });
    hosts.push(host);
    await host.configure(config);
    return host;
  };
  const host = await newHost();
  const client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  const texts = new Map<string, string>();
  return {
    t,
    host,
    client,
    async providerText(exportName) {
      if (!texts.has(exportName)) texts.set(exportName, await serializeProvider(providerFor(exportName)));
      return texts.get(exportName)!;
    },
    urn: (type, name) => `urn:pulumi:test::harvester-iac::pulumi-nodejs:dynamic/harvester:${type}::${name}`,
    poolInputs: (name, providerText, overrides = {}) => ({
      __provider: providerText,
      name,
      count: 1,
      disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }],
      networks: [{ network: 'default/vm-net' }],
      userData: '#cloud-config\npassword: s3cr3t-user-data\n',
      timeouts: { create: '60s', update: '60s', delete: '60s' },
      ...overrides,
    }),
    newHost,
    async stop() {
      await Promise.all(hosts.map((h) => h.stop()));
      await t.stop();
    },
  };
}
