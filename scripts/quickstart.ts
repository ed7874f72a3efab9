/**
 * `npm start`: the quickstart program (examples/quickstart) against the embedded Harvester emulator, the whole
 * story a platform team lives: preview, up, changes made behind Pulumi's back, refresh + preview showing exactly
 * that drift, up healing it, the drift gate clean again, destroy leaving nothing.
 *
 * The engine is the Pulumi CLI when one is installed (Automation API, a file backend in a scratch folder, no
 * login), else the local runner (runner/), which drives Pulumi's real SDK and dynamic-provider host itself.
 * Set HARVESTER_IAC_ENGINE=local to force the local runner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../emulator';
import { HarvesterClient } from '../provider/client/harvester-client';
import { type Sink, stdoutSink } from '../runner/display';
import { BANNER } from '../runner/operations';
import { repoRoot } from './resource-docs';
import { chooseEngine, type StoryEngine } from './quickstart-engines';

export const POOL_SELECTOR = 'harvester-iac.io/resource-name=workers';

export interface StoryOptions {
  sink?: Sink;
  /** Force an engine; default: the Pulumi CLI when on PATH, else the local runner. */
  engine?: 'local' | 'pulumi-cli';
  /** Keep the scratch folder (state, kubeconfig) for inspection; the caller removes it. */
  keepScratch?: boolean;
  /** Called after each step with the scratch folder (tests look at the state file mid-story). */
  afterStep?: (step: number, scratch: string) => void;
}

/** Runs the story; resolves when every step checked out, rejects with the step that did not. */
export async function runQuickstart(options: StoryOptions = {}): Promise<{ scratch: string }> {
  const say = options.sink ?? stdoutSink;
  const scratch = mkdtempSync(join(tmpdir(), 'harvester-iac-quickstart-'));
  const emulator = await startEmulator({ kubeconfigPath: join(scratch, 'kubeconfig'), bootDelayMs: 400, guestAgentDelayMs: 200 });
  const client = await HarvesterClient.connect({ kubeconfig: emulator.kubeconfig });
  const engine: StoryEngine = await chooseEngine(options.engine ?? (process.env.HARVESTER_IAC_ENGINE as 'local' | undefined), {
    root: repoRoot(),
    scratch,
    kubeconfig: emulator.kubeconfig,
    sink: say,
  });
  let step = 0;
  const title = (n: number, text: string) => {
    if (step) options.afterStep?.(step, scratch);
    step = n;
    say('');
    say(`━━ ${n}/8 ${text}`);
  };
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`quickstart: ${what}`);
  };
  try {
    say(engine.name === 'local' ? BANNER : 'harvester-iac quickstart, with the Pulumi CLI found on PATH (Automation API, file backend in a scratch folder).');
    say(`Embedded Harvester API emulator at ${emulator.url} (kubeconfig ${join(scratch, 'kubeconfig')}); stack config harvester:kubeconfig (secret) points at it.`);

    title(1, 'pulumi preview: what would be created');
    let r = await engine.run('preview');
    expect(r.ok && r.changes === 7, `the first preview should plan 7 creates, got ${JSON.stringify(r.counts)}`);

    title(2, 'pulumi up: a cloud image downloaded, a VM network, an SSH key pair, topology labels on the hosts, 3 VMs over the zones they define, an IP pool, a load balancer in front of the VMs');
    r = await engine.run('up');
    expect(r.ok, 'up failed');

    title(3, 'out-of-band changes, as a colleague with kubectl would make them');
    await client.virtualMachines.delete('workers-1', { namespace: 'default' });
    await gone(() => client.virtualMachines.get('workers-1', 'default'));
    say('  kubectl delete vm workers-1                                      (a VM of the pool deleted)');
    await client.nodes.mergePatch('harvester-node-2', { metadata: { labels: { 'topology.kubernetes.io/zone': 'moved-by-hand' } } });
    say('  kubectl label node harvester-node-2 topology.kubernetes.io/zone=moved-by-hand --overwrite');
    await client.loadBalancers.mergePatch('workers-api', { spec: { healthCheck: { periodSeconds: 30 } } }, { namespace: 'default' });
    say('  kubectl patch lb workers-api --type merge -p \'{"spec":{"healthCheck":{"periodSeconds":30}}}\'  (a health check edited)');
    await client.images.mergePatch('ubuntu-noble', { spec: { description: 'edited by hand' } }, { namespace: 'default' });
    say('  kubectl patch virtualmachineimage ubuntu-noble --type merge -p \'{"spec":{"description":"edited by hand"}}\'');
    await client.networks.mergePatch('quickstart-net', { metadata: { annotations: { 'field.cattle.io/description': 'edited by hand' } } }, { namespace: 'default' });
    say('  kubectl annotate net-attach-def quickstart-net field.cattle.io/description="edited by hand" --overwrite');
    await client.keyPairs.mergePatch('quickstart-key', { metadata: { labels: { team: 'someone-else' } } }, { namespace: 'default' });
    say('  kubectl label keypair quickstart-key team=someone-else --overwrite');

    title(4, 'pulumi refresh: the live cluster read back, drift shown per property');
    r = await engine.run('refresh');
    expect(r.ok && r.changes >= 6, `refresh should see the six changes, got ${JSON.stringify(r.counts)}`);

    title(5, 'pulumi preview --expect-no-changes: the drift gate trips');
    r = await engine.run('preview', { expectNoChanges: true });
    expect(!r.ok && r.changes >= 1, `the drift gate should fail on the 6 drifted resources, got ${JSON.stringify(r.counts)}`);
    say('  (exit code 1 in CI: the gate did its job)');

    title(6, 'pulumi up: heals exactly what drifted');
    r = await engine.run('up');
    expect(r.ok && r.changes === 6, `up should update 6 resources, got ${JSON.stringify(r.counts)}`);

    title(7, 'pulumi preview --refresh --expect-no-changes: the gate is green again');
    r = await engine.run('preview', { refresh: true, expectNoChanges: true });
    expect(r.ok && r.changes === 0, `the gate should be clean, got ${JSON.stringify(r.counts)}`);

    title(8, 'pulumi destroy: nothing left behind');
    r = await engine.run('destroy');
    expect(r.ok, 'destroy failed');
    const left = await leftovers(client);
    expect(left.length === 0, `left behind: ${left.join(', ')}`);
    say('  no VM, cloud-init Secret, volume, load balancer, IP pool, image, VM network or key pair remains; the hosts carry their labels from before the stack.');
    options.afterStep?.(step, scratch);
    say('');
    say('Quickstart complete.');
    return { scratch };
  } finally {
    await engine.close();
    await emulator.stop();
    if (!options.keepScratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Waits until `probe` finds nothing (a deletion finishing behind its finalizers); at most 30 s. */
async function gone(probe: () => Promise<unknown>): Promise<void> {
  for (let waited = 0; (await probe()) !== undefined; waited += 100) {
    if (waited > 30_000) throw new Error('quickstart: an out-of-band deletion did not finish within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the stack would have leaked: objects of the pool, and host labels it set. */
async function leftovers(client: HarvesterClient): Promise<string[]> {
  const opts = { namespace: 'default', labelSelector: POOL_SELECTOR };
  const names = (kind: string, items: { metadata?: { name?: string } }[]) => items.map((i) => `${kind} ${i.metadata?.name}`);
  const left = [
    ...names('VirtualMachine', (await client.virtualMachines.list(opts)).items),
    ...names('Secret', (await client.secrets.list(opts)).items),
    ...names('PersistentVolumeClaim', (await client.persistentVolumeClaims.list(opts)).items),
  ];
  left.push(...names('LoadBalancer', (await client.loadBalancers.list({ namespace: 'default' })).items));
  left.push(...names('IPPool', (await client.ipPools.list({})).items));
  // What the program made from zero (the emulator's seed has its own image, network and key pair, which stay).
  if (await client.images.get('ubuntu-noble', 'default')) left.push('VirtualMachineImage ubuntu-noble');
  if (await client.networks.get('quickstart-net', 'default')) left.push('NetworkAttachmentDefinition quickstart-net');
  if (await client.keyPairs.get('quickstart-key', 'default')) left.push('KeyPair quickstart-key');
  for (const node of (await client.nodes.list({})).items) {
    const zone = node.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '';
    if (zone.startsWith('eu-west')) left.push(`zone label ${zone} on ${node.metadata?.name}`);
  }
  return left;
}

if (require.main === module) {
  runQuickstart().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`\n${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
