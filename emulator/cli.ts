#!/usr/bin/env node
/**
 * `harvester-emulator`: run the Harvester API emulator until SIGTERM/SIGINT.
 *
 *   harvester-emulator --kubeconfig PATH [--port N] [--boot-delay MS] [--latency MS] [--seed N]
 *                      [--faults RULES.yaml] [--hosts N --host-cpu CORES --host-memory Q …] [--setting N=V …]
 *                      [--guest-kubeconfig PATH --guest-ccm-version vX --guest-kubelet-version vY]
 *
 * Prints exactly one line containing `ready` (with the URL and kubeconfig path) once it serves, so scripts
 * can wait for it; exits 0 after SIGTERM/SIGINT, 2 on bad flags or a bad faults file, 1 when it cannot
 * start. SIGHUP re-reads the faults file and replaces the running rules (a broken file keeps the old ones).
 */
// Types only: the emulator itself is loaded after the flags parse, so --help and flag errors answer fast.
import { resolve as resolvePath } from 'node:path';
import type { Emulator, EmulatorOptions } from './index';
import type { FaultRule } from './faults/rules';

const USAGE = `Usage: harvester-emulator --kubeconfig PATH [options]

Options:
  --kubeconfig PATH             write the kubeconfig here (required)
  --port N                      port to listen on (default 0: a free port)
  --host ADDR                   address to listen on (default 127.0.0.1)
  --boot-delay MS               VM boot time, Scheduled to Running (default 1500)
  --guest-agent-delay MS        time until the guest agent reports the VM IP (default 1000)
  --latency MS                  delay added to every response (default 0)
  --seed N                      seed of fault probabilities (default 1)
  --faults PATH                 fault rules (YAML/JSON list: match, action, times, skip, probability);
                                SIGHUP re-reads the file
  --token-ttl MS                token lifetime (default: never expires)
  --no-controllers              serve the API only, without Harvester's controllers and webhooks
  --hosts N                     number of hosts (default 3: harvester-node-0..2, zones us-east-1a/1b/1c)
  --host-cpu CORES              cores per host (default 64; allocatable is less the installer's reservation)
  --host-memory QUANTITY        memory per host (default 1056561152Ki, a 1 TiB host; allocatable = capacity)
  --host-max-pods N             max pods per host (default 200, as Harvester's installer sets)
  --host-system-cpu QUANTITY    CPU requested by each host's system pods (default 1360m; 0 for none)
  --host-system-memory QUANTITY memory requested by each host's system pods (default 2240Mi; 0 for none)
  --server-version VERSION      Harvester version the cluster reports (default v1.6.1); from v1.8.0 the
                                overcommit-config default is {"cpu":1000,"memory":150,"storage":100}, before
                                it {"cpu":1600,"memory":150,"storage":200}
  --setting NAME=VALUE          set a Harvester setting's value (repeatable), e.g.
                                --setting 'overcommit-config={"cpu":1600,"memory":150,"storage":200}'
                                (an upgraded v1.8 cluster) or --setting additional-guest-memory-overhead-ratio=2
  --guest-kubeconfig PATH       also serve a guest RKE2 cluster API; write its kubeconfig here
  --guest-ccm-version VERSION   harvester-cloud-provider version of the guest (e.g. v0.2.4)
  --guest-kubelet-version VER   kubelet version of the guest nodes (e.g. v1.32.4+rke2r1)
  --guest-cluster-name NAME     guest cluster name (default guest)
  --guide                       after the ready line, print how to use the emulator (npm run emulator does)
  --help                        show this help

Image downloads are simulated, never dialled (a VirtualMachineImage with sourceType download imports in about
2s). These URL forms fail as a real download would, then Harvester's retries run (spec.retry, 10s apart):
  a host under .invalid          https://images.example.invalid/x.img  (the HEAD: no such host)
  a path segment http-<code>     https://example.com/http-404/x.img    (got 404 status code from <url>)
  a path segment fail-at-<n>     https://example.com/fail-at-50/x.img  (the download breaks at 50%)

A VM whose cloud-init user data writes /etc/rancher/rke2/config.yaml and starts rke2-server or rke2-agent
boots a simulated RKE2 node (docs/emulator.md, "Guest RKE2 clusters"). Each guest API or supervisor endpoint
is printed as it opens: addresses in 127.0.0.0/8 are served as they are, others on 127.0.0.1 at a free port.

VMs get KubeVirt's virt-launcher pods, placed by Σ requests ≤ allocatable besides selectors, affinity, taints
and cordon; a VM that fits nowhere stays ErrorUnschedulable with kube-scheduler's FailedScheduling message
(kubectl get pods,events -A; kubectl describe node). ResourceQuotas refuse launcher pods over their limits.
Settings can also be changed live: kubectl patch settings.harvesterhci.io overcommit-config --type merge
-p '{"value":"{\"cpu\":1000,\"memory\":150,\"storage\":100}"}' (each value must be at least 100).

The written kubeconfig is an all-powerful admin. Service-account tokens (Secrets of type
kubernetes.io/service-account-token, filled by the emulator) are subject to RBAC with kube-apiserver's
401/403 answers; the guest's cloud provider uses the cloud-config cloud-init writes on its VMs
(docs/emulator-rbac.md).`;

/** A flag error: message for stderr, exit code 2. */
export class UsageError extends Error {}

const VALUE_FLAGS = new Set([
  'kubeconfig',
  'port',
  'host',
  'boot-delay',
  'guest-agent-delay',
  'latency',
  'seed',
  'token-ttl',
  'guest-kubeconfig',
  'guest-ccm-version',
  'guest-kubelet-version',
  'guest-cluster-name',
  'faults',
  'hosts',
  'host-cpu',
  'host-memory',
  'host-max-pods',
  'host-system-cpu',
  'host-system-memory',
  'server-version',
  'setting',
]);
const BOOLEAN_FLAGS = new Set(['no-controllers', 'help', 'guide']);

function wholeNumber(flag: string, raw: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > max) throw new UsageError(`--${flag} must be a whole number between 0 and ${max} (got "${raw}")`);
  return n;
}

function version(flag: string, raw: string, example: string): string {
  if (!/^v\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/.test(raw)) throw new UsageError(`--${flag} must be a version like ${example} (got "${raw}")`);
  return raw;
}

/** Parsed command line: emulator options plus what the CLI itself handles. */
export interface ParsedArgs {
  options: EmulatorOptions;
  help: boolean;
  guide?: boolean;
  /** `--faults PATH`: rules loaded at start and on SIGHUP. */
  faultsPath?: string;
}

/** Parse argv (without node and script) into emulator options; throws UsageError on bad flags. */
export function parseArgs(argv: string[]): ParsedArgs {
  const values = new Map<string, string>();
  const settings: Record<string, string> = {};
  const booleans = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"; flags start with --`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (BOOLEAN_FLAGS.has(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      booleans.add(name);
      continue;
    }
    if (!VALUE_FLAGS.has(name)) throw new UsageError(`unknown flag --${name}`);
    let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    value = value.trim();
    if (value === '') throw new UsageError(`--${name} needs a value`);
    if (name === 'setting') {
      const at = value.indexOf('=');
      if (at <= 0) throw new UsageError(`--setting must be NAME=VALUE, e.g. --setting additional-guest-memory-overhead-ratio=2 (got "${value}")`);
      settings[value.slice(0, at)] = value.slice(at + 1);
      continue;
    }
    values.set(name, value);
  }
  if (booleans.has('help')) return { options: {}, help: true };
  const kubeconfigPath = values.get('kubeconfig');
  if (!kubeconfigPath) throw new UsageError('--kubeconfig PATH is required (where to write the kubeconfig for kubectl and the provider)');
  const options: EmulatorOptions = { kubeconfigPath };
  if (values.has('port')) options.port = wholeNumber('port', values.get('port')!, 65535);
  if (values.has('host')) options.host = values.get('host');
  if (values.has('boot-delay')) options.bootDelayMs = wholeNumber('boot-delay', values.get('boot-delay')!);
  if (values.has('guest-agent-delay')) options.guestAgentDelayMs = wholeNumber('guest-agent-delay', values.get('guest-agent-delay')!);
  if (values.has('latency')) options.latencyMs = wholeNumber('latency', values.get('latency')!);
  if (values.has('seed')) options.seed = wholeNumber('seed', values.get('seed')!);
  if (values.has('token-ttl')) options.tokenTtlMs = wholeNumber('token-ttl', values.get('token-ttl')!);
  if (booleans.has('no-controllers')) options.controllers = false;
  applyClusterFlags(options, values, settings);
  const guestFlags = ['guest-ccm-version', 'guest-kubelet-version', 'guest-cluster-name'].filter((f) => values.has(f));
  if (values.has('guest-kubeconfig')) {
    const ccm = values.get('guest-ccm-version');
    const kubelet = values.get('guest-kubelet-version');
    options.guest = {
      kubeconfigPath: values.get('guest-kubeconfig'),
      ccmVersion: ccm === undefined ? undefined : version('guest-ccm-version', ccm, 'v0.2.7'),
      kubeletVersion: kubelet === undefined ? undefined : version('guest-kubelet-version', kubelet, 'v1.32.4+rke2r1'),
      clusterName: values.get('guest-cluster-name'),
    };
  } else if (guestFlags.length > 0) {
    throw new UsageError(`--${guestFlags[0]} needs --guest-kubeconfig PATH (the guest cluster is only started with its kubeconfig path)`);
  }
  const parsed: ParsedArgs = { options, help: false, guide: booleans.has('guide') };
  if (values.has('faults')) parsed.faultsPath = values.get('faults');
  return parsed;
}

function quantityFlag(flag: string, raw: string, example: string): string {
  if (!/^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.test(raw)) throw new UsageError(`--${flag} must be a quantity like ${example} (got "${raw}")`);
  return raw;
}

/** The host sizing, server version and settings flags. */
function applyClusterFlags(options: EmulatorOptions, values: Map<string, string>, settings: Record<string, string>): void {
  const hosts: NonNullable<EmulatorOptions['hosts']> = {};
  if (values.has('hosts')) hosts.count = wholeNumber('hosts', values.get('hosts')!, 1000);
  if (hosts.count === 0) throw new UsageError('--hosts must be at least 1');
  if (values.has('host-cpu')) hosts.cpu = quantityFlag('host-cpu', values.get('host-cpu')!, '64 or 32500m');
  if (values.has('host-memory')) hosts.memory = quantityFlag('host-memory', values.get('host-memory')!, '512Gi');
  if (values.has('host-max-pods')) hosts.pods = wholeNumber('host-max-pods', values.get('host-max-pods')!, 10000);
  const systemCpu = values.get('host-system-cpu');
  const systemMemory = values.get('host-system-memory');
  if (systemCpu !== undefined || systemMemory !== undefined) {
    const cpu = systemCpu === undefined ? '1360m' : quantityFlag('host-system-cpu', systemCpu, '2 or 1360m');
    const memory = systemMemory === undefined ? '2240Mi' : quantityFlag('host-system-memory', systemMemory, '8Gi');
    hosts.systemRequests = Number.parseFloat(cpu) === 0 && Number.parseFloat(memory) === 0 ? null : { cpu, memory };
  }
  if (Object.keys(hosts).length > 0) options.hosts = hosts;
  const seed: NonNullable<EmulatorOptions['seedData']> = {};
  if (values.has('server-version')) seed.serverVersion = version('server-version', values.get('server-version')!, 'v1.8.0');
  if (Object.keys(settings).length > 0) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { settingProblem } = require('./webhooks/setting') as typeof import('./webhooks/setting');
    for (const [name, value] of Object.entries(settings)) {
      const problem = settingProblem(name, value);
      if (problem) throw new UsageError(`--setting ${name}: Harvester's setting validator refuses it: ${problem}`);
    }
    seed.settings = settings;
  }
  if (Object.keys(seed).length > 0) options.seedData = seed;
}

/** What `--guide` prints after the ready line (it never contains the word scripts wait for). */
export function guideText(emulator: Pick<Emulator, 'url' | 'kubeconfigPath'>): string {
  const kubeconfig = emulator.kubeconfigPath ? resolvePath(emulator.kubeconfigPath) : '<kubeconfig>';
  return [
    '',
    `The embedded Harvester API emulator is serving at ${emulator.url} (3 hosts, cloud images, an ISO, VM network`,
    'default/vm-net, key pair default/ops-key). Point kubectl or any Kubernetes client at it:',
    '',
    `  export KUBECONFIG=${kubeconfig}`,
    '  kubectl get nodes -L topology.kubernetes.io/zone',
    '  kubectl get virtualmachineimages,network-attachment-definitions,keypairs -A',
    '  kubectl get virtualmachines,virtualmachineinstances,loadbalancers,ippools -A -w',
    '',
    'This kubeconfig is the all-powerful admin; service-account tokens are subject to RBAC (Harvester\'s',
    'harvesterhci.io:cloudprovider and harvesterhci.io:csi-driver ClusterRoles are seeded). Ask like the real server:',
    '  kubectl auth can-i create loadbalancers.loadbalancer.harvesterhci.io -n default --as system:serviceaccount:default:gc1',
    '',
    "From a program or test: const { startEmulator } = require('harvester-iac/emulator').",
    'Stop it with Ctrl-C.',
    '',
  ].join('\n');
}

/** Loads the faults file lazily (the YAML parser is only needed when one is given). */
function loadRules(path: string): FaultRule[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadFaultRules } = require('./faults/load') as typeof import('./faults/load');
  return loadFaultRules(path);
}

/** SIGHUP: re-read the faults file and swap the rules; a broken file leaves the running rules alone. */
function reloadFaults(emulator: Emulator, path: string): void {
  try {
    const rules = loadRules(path);
    emulator.faults.clear();
    emulator.faults.add(...rules);
    process.stdout.write(`harvester-emulator faults reloaded from ${path}: ${rules.length} rule${rules.length === 1 ? '' : 's'}\n`);
  } catch (err) {
    process.stderr.write(`harvester-emulator: faults not reloaded: ${(err as Error).message}\n`);
  }
}

async function main(): Promise<void> {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(process.argv.slice(2));
    if (parsed.faultsPath !== undefined && !parsed.help) {
      try {
        parsed.options.faults = loadRules(parsed.faultsPath);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`harvester-emulator: ${err.message}\nRun harvester-emulator --help for the list of flags.\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  parsed.options.rke2 = {
    onEndpoint: (e, open) => {
      const where = open ? `served at ${e.url}${e.note ? ` (${e.note})` : ''}` : 'closed';
      process.stdout.write(`harvester-emulator rke2 cluster=${e.cluster} ${e.kind} ${e.address} ${where}\n`);
    },
  };
  let emulator: Emulator;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startEmulator } = require('./index') as typeof import('./index');
    emulator = await startEmulator(parsed.options);
  } catch (err) {
    process.stderr.write(`harvester-emulator: failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const guest = emulator.guest ? ` guest-url=${emulator.guest.url} guest-kubeconfig=${emulator.guest.kubeconfigPath}` : '';
  process.stdout.write(`harvester-emulator ready url=${emulator.url} kubeconfig=${emulator.kubeconfigPath}${guest}\n`);
  if (parsed.guide) process.stdout.write(`${guideText(emulator)}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    emulator.stop().then(
      () => process.exit(0),
      (err: Error) => {
        process.stderr.write(`harvester-emulator: error while stopping: ${err.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const faultsPath = parsed.faultsPath;
  if (faultsPath !== undefined) process.on('SIGHUP', () => reloadFaults(emulator, faultsPath));
}

if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`harvester-emulator: ${err.message}\n`);
    process.exit(1);
  });
}
