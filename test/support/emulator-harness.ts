/**
 * Test helpers around startEmulator: one emulator per test file, its kubeconfig and kubectl caches in a
 * private temp folder (removed on stop), a kubectl runner bound to it and a client-node KubeConfig.
 *
 *   let t: TestEmulator;
 *   before(async () => { t = await startTestEmulator(); });
 *   after(() => t.stop());
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { Emulator, EmulatorOptions, startEmulator } from '../../emulator';
import { KubectlEnv, KubectlProcess, KubectlResult, KubectlRunOptions, describeResult, runKubectl, spawnKubectl } from './kubectl';

/** A running emulator plus the tools tests drive it with. */
export interface TestEmulator {
  emulator: Emulator;
  /** Private temp folder (kubeconfig, kubectl HOME and cache). */
  dir: string;
  kubectlEnv: KubectlEnv;
  /** Run kubectl to completion. */
  kubectl(args: string[], options?: KubectlRunOptions): Promise<KubectlResult>;
  /** Run kubectl and return stdout; throws with the whole result when rc ≠ 0. */
  kubectlOk(args: string[], options?: KubectlRunOptions): Promise<string>;
  /** Start kubectl in the background; stopped (if still running) by stop(). */
  spawnKubectl(args: string[], options?: KubectlRunOptions): KubectlProcess;
  /** A client-node KubeConfig for the emulator (re-read from the current kubeconfig each call). */
  kubeConfig(): KubeConfig;
  /** Stop background kubectls, the emulator, and remove the temp folder. */
  stop(): Promise<void>;
}

/** Start an emulator for a test file. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const dir = mkdtempSync(join(tmpdir(), 'harvester-emu-test-'));
  const kubeconfigPath = options.kubeconfigPath ?? join(dir, 'kubeconfig');
  let emulator: Emulator;
  try {
    emulator = await startEmulator({ ...options, kubeconfigPath });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const kubectlEnv: KubectlEnv = { kubeconfigPath, cacheDir: join(dir, 'kube-cache'), home: join(dir, 'home') };
  const background = new Set<KubectlProcess>();
  const t: TestEmulator = {
    emulator,
    dir,
    kubectlEnv,
    kubectl: (args, o) => runKubectl(kubectlEnv, args, o),
    async kubectlOk(args, o) {
      const r = await runKubectl(kubectlEnv, args, o);
      if (r.code !== 0) throw new Error(describeResult(r));
      return r.stdout;
    },
    spawnKubectl(args, o) {
      const p = spawnKubectl(kubectlEnv, args, o);
      background.add(p);
      void p.done.then(() => background.delete(p));
      return p;
    },
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromString(emulator.kubeconfig);
      return kc;
    },
    async stop() {
      await Promise.all([...background].map((p) => p.stop()));
      await emulator.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Poll `check` every 20 ms until it returns a truthy value; throws `message` after `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, message: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${message}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
