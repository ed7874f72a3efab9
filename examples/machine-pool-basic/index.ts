/**
 * Example: a 3-VM machine pool spread over three zones, driven through the provider handlers exactly as the
 * Pulumi engine calls them (check → create → read → diff/update → delete), against the embedded emulator.
 *
 *   npm run build && node dist/examples/machine-pool-basic/index.js
 *
 * Point it at a real Harvester instead with HARVESTER_KUBECONFIG=<path> (and the image/network/key pair names
 * of that cluster in POOL_IMAGE, POOL_NETWORK, POOL_KEYPAIR, POOL_ZONES).
 */
import { readFileSync } from 'node:fs';
import { startEmulator, type Emulator } from '../../emulator';
import { machinePools } from '../../provider';
import type { MachinePoolArgs, MachinePoolOutputs } from '../../provider/resources/machine-pool';

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The pool as a program declares it. */
function poolArgs(kubeconfig: string, count: number): MachinePoolArgs {
  return {
    kubeconfig,
    name: 'workers',
    namespace: 'default',
    count,
    cpu: 2,
    memory: '4Gi',
    disks: [{ image: process.env.POOL_IMAGE ?? 'default/ubuntu-22.04-server-cloudimg', size: '40Gi' }],
    networks: [{ network: process.env.POOL_NETWORK ?? 'default/vm-net' }],
    sshKeys: [process.env.POOL_KEYPAIR ?? 'default/ops-key'],
    zones: (process.env.POOL_ZONES ?? 'us-east-1a,us-east-1b,us-east-1c').split(','),
    guestCluster: 'demo',
    // guestAgent defaults to "install": qemu-guest-agent is merged into this cloud-config.
    userData: '#cloud-config\npackage_update: true\nruncmd:\n  - echo hello from harvester-iac\n',
  };
}

function table(outs: MachinePoolOutputs): string[] {
  return outs.machines.map((m) => `  ${m.name.padEnd(12)} ${String(m.zone).padEnd(11)} ${String(m.host).padEnd(17)} ${String(m.ip).padEnd(15)} ${m.phase}`);
}

/** Runs the example, printing through `say` (the example test collects the lines). */
export async function main(say: (line: string) => void = print): Promise<void> {
  let emulator: Emulator | undefined;
  let kubeconfig: string;
  if (process.env.HARVESTER_KUBECONFIG) {
    kubeconfig = readFileSync(process.env.HARVESTER_KUBECONFIG, 'utf8');
  } else {
    emulator = await startEmulator({ bootDelayMs: 300, guestAgentDelayMs: 200 });
    kubeconfig = emulator.kubeconfig;
    say(`embedded Harvester emulator at ${emulator.url}`);
  }
  const pool = machinePools.createMachinePoolProvider({ onProgress: (line) => say(`  … ${line}`) });
  try {
    const checked = await pool.check({}, poolArgs(kubeconfig, 3) as Record<string, unknown>);
    if (checked.failures?.length) throw new Error(checked.failures.map((f) => f.reason).join('\n')); // each reason names its property
    say('creating pool default/workers (3 VMs over 3 zones)');
    const created = await pool.create(checked.inputs!);
    let outs = created.outs!;
    table(outs).forEach(say);

    const read = await pool.read(created.id, outs as unknown as Record<string, unknown>);
    say(`refresh: drift ${JSON.stringify(read.props!.drift)}`);

    const scaled = await pool.check(checked.inputs!, poolArgs(kubeconfig, 5) as Record<string, unknown>);
    const diff = await pool.diff(created.id, outs as unknown as Record<string, unknown>, scaled.inputs!);
    say(`scaling to 5: changes=${diff.changes} replaces=${JSON.stringify(diff.replaces)}`);
    outs = (await pool.update(created.id, outs as unknown as Record<string, unknown>, scaled.inputs!)).outs!;
    table(outs).forEach(say);

    say('destroying the pool (VMs, cloud-init Secrets and volumes)');
    await pool.delete(created.id, outs as unknown as Record<string, unknown>);
    say('done');
  } finally {
    await emulator?.stop();
  }
}

if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
