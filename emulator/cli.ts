#!/usr/bin/env node
/**
 * `harvester-emulator`: run the Harvester API emulator until SIGTERM/SIGINT.
 *
 *   harvester-emulator --kubeconfig PATH [--port N] [--boot-delay MS] [--latency MS] [--seed N]
 *                      [--faults RULES.yaml]
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
