/**
 * Where integration tests run. By default: a fresh embedded emulator per test file. With
 * `HARVESTER_IAC_ACCEPTANCE_KUBECONFIG=<path>` set: a real Harvester cluster (acceptance mode), using the
 * fixtures named by the `HARVESTER_IAC_ACCEPTANCE_*` variables below (see ACCEPTANCE_VARIABLES).
 *
 * Tests written against a TestTarget use only the API (the provider handlers, the client layer), so the same
 * suite runs on both. Tests that need the emulator's own powers (fault injection, its request journal, its
 * clock, token expiry, the guest cluster) call `requireEmulator(this, target)`, which skips them in
 * acceptance mode. Every object a test creates is named with `target.name(base)` (a per-file random
 * suffix), so runs never collide with each other or with what already lives on a shared cluster.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'mocha';
import type { EmulatorOptions } from '../../emulator';
import { parseDuration } from '../../provider/await/duration';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { startTestEmulator, TestEmulator } from './emulator-harness';

/** Names of existing objects the tests build on (the emulator seeds these; a real cluster must have them). */
export interface TargetFixtures {
  /** Namespace the tests create their objects in. */
  namespace: string;
  /** A cloud image `namespace/name` without qemu-guest-agent pre-installed, whose VMs can install it. */
  cloudImage: string;
  /** An ISO installer image `namespace/name` (refused by machine pools). */
  isoImage: string;
  /** A VM network (NetworkAttachmentDefinition) `namespace/name` with DHCP. */
  network: string;
  /** A KeyPair `namespace/name`. */
  keyPair: string;
  /** Every zone on the hosts' labels (`topology.kubernetes.io/zone`), sorted. */
  zones: string[];
  /** A second cloud image the rolling-update test switches to; unset: the roll changes only the disk size. */
  rollImage?: string;
  /**
   * IPv4 subnet (CIDR, prefix /27 or shorter) whose addresses network+10 … network+29 are free: the
   * load-balancer tests put them in their own IP pools. Unset: those tests are skipped.
   */
  lbSubnet?: string;
}

/** How long things may take on the target. */
export interface TargetTimeouts {
  /** Machine pool `timeouts.create/update/delete` (a duration such as "60s"). */
  pool: string;
  /** Create timeout of the pool whose VMs run without a guest agent: long enough to reach Running. */
  boot: string;
  /** Waits on Harvester's controllers (load balancer addresses, deletions), in ms. */
  waitMs: number;
}

/** One test file's target. */
export interface TestTarget {
  mode: 'emulator' | 'cluster';
  /** Kubeconfig content (YAML); the emulator's changes when its token is rotated. */
  readonly kubeconfig: string;
  /** A file holding the kubeconfig. */
  kubeconfigPath: string;
  fixtures: TargetFixtures;
  timeouts: TargetTimeouts;
  /** Random per target (per test file): the suffix of every name the tests create. */
  runId: string;
  /** `base` made unique to this run: `<base>-<runId>`. */
  name(base: string): string;
  /** Present in emulator mode only. */
  emulator?: TestEmulator;
  stop(): Promise<void>;
}

/** The variable that switches the integration suites to a real cluster. */
export const ACCEPTANCE_ENV = 'HARVESTER_IAC_ACCEPTANCE_KUBECONFIG';

/** Every acceptance variable with what it means (for docs/guides/acceptance-tests.md and for error messages). */
export const ACCEPTANCE_VARIABLES: Record<string, string> = {
  KUBECONFIG: 'path of a kubeconfig of the Harvester cluster (switches acceptance mode on)',
  NAMESPACE: 'namespace the tests create their objects in (default "default")',
  CLOUD_IMAGE: 'cloud image "namespace/name" without qemu-guest-agent pre-installed, able to install it (required)',
  ISO_IMAGE: 'ISO installer image "namespace/name" (required)',
  NETWORK: 'VM network "namespace/name" with DHCP (required)',
  KEYPAIR: 'SSH KeyPair "namespace/name" (required)',
  ZONES: 'comma-separated zones on the hosts\' topology.kubernetes.io/zone labels (default: read from the hosts)',
  ROLL_IMAGE: 'second cloud image "namespace/name" for the rolling-update test (default: roll by disk size only)',
  LB_SUBNET: 'IPv4 CIDR whose addresses network+10…+29 are free, for test IP pools (unset: load-balancer tests skipped)',
  TIMEOUT: 'machine pool create/update/delete timeout (default "15m")',
  BOOT_TIMEOUT: 'how long a VM needs to reach Running (default "5m")',
  GUEST_SUBNET: 'IPv4 CIDR whose addresses network+10…+29 are free, for a GuestCluster\'s control plane and Services (unset: the GuestCluster test fails with what to set)',
  RKE2_VERSION: 'RKE2 release of the GuestCluster test (default "v1.32.5+rke2r1")',
  RKE2_UPGRADE_VERSION: 'the next minor RKE2 release: the GuestCluster test then rolls the cluster to it (unset: that step is skipped)',
};

/** The emulator's seed, as fixtures. */
export const EMULATOR_FIXTURES: TargetFixtures = {
  namespace: 'default',
  cloudImage: 'default/ubuntu-22.04-server-cloudimg',
  isoImage: 'default/ubuntu-24.04-live-server',
  network: 'default/vm-net',
  keyPair: 'default/ops-key',
  zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
  rollImage: 'default/opensuse-leap-15.6',
  lbSubnet: '192.168.60.0/24',
};

const EMULATOR_TIMEOUTS: TargetTimeouts = { pool: '60s', boot: '3s', waitMs: 10_000 };

/** True when the suites run against a real cluster. */
export function acceptanceMode(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[ACCEPTANCE_ENV]);
}

/** A mocha timeout for a suite: `emulatorMs` on the emulator, `clusterMs` on a real cluster. */
export function suiteTimeout(emulatorMs: number, clusterMs = 60 * 60_000, env: NodeJS.ProcessEnv = process.env): number {
  return acceptanceMode(env) ? Math.max(emulatorMs, clusterMs) : emulatorMs;
}

const REF = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

function variable(name: string): string {
  return `HARVESTER_IAC_ACCEPTANCE_${name}`;
}

function problem(name: string, what: string): string {
  return `${variable(name)} ${what} (${ACCEPTANCE_VARIABLES[name]})`;
}

/** Parse and validate the acceptance variables; zones may still be undefined (read from the hosts later). */
function acceptanceFixtures(env: NodeJS.ProcessEnv): { fixtures: Omit<TargetFixtures, 'zones'> & { zones?: string[] }; timeouts: TargetTimeouts } {
  const problems: string[] = [];
  const ref = (name: string, required: boolean): string | undefined => {
    const value = env[variable(name)]?.trim();
    if (!value) {
      if (required) problems.push(problem(name, 'is not set'));
      return undefined;
    }
    if (!REF.test(value)) problems.push(problem(name, `is "${value}", not "namespace/name"`));
    return value;
  };
  const duration = (name: string, fallback: string): string => {
    const value = env[variable(name)]?.trim() || fallback;
    if (parseDuration(value) === undefined) problems.push(problem(name, `is "${value}", not a duration such as "15m"`));
    return value;
  };
  const lbSubnet = env[variable('LB_SUBNET')]?.trim() || undefined;
  if (lbSubnet !== undefined) {
    const m = CIDR.exec(lbSubnet);
    if (!m || m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 27) {
      problems.push(problem('LB_SUBNET', `is "${lbSubnet}", not an IPv4 CIDR with a prefix of /27 or shorter`));
    }
  }
  const zones = env[variable('ZONES')]?.split(',').map((z) => z.trim()).filter(Boolean);
  const fixtures = {
    namespace: env[variable('NAMESPACE')]?.trim() || 'default',
    cloudImage: ref('CLOUD_IMAGE', true)!,
    isoImage: ref('ISO_IMAGE', true)!,
    network: ref('NETWORK', true)!,
    keyPair: ref('KEYPAIR', true)!,
    rollImage: ref('ROLL_IMAGE', false),
    lbSubnet,
    zones: zones?.length ? zones.sort() : undefined,
  };
  const timeouts: TargetTimeouts = { pool: duration('TIMEOUT', '15m'), boot: duration('BOOT_TIMEOUT', '5m'), waitMs: 5 * 60_000 };
  if (problems.length) {
    throw new Error(
      `${ACCEPTANCE_ENV} is set, so the integration tests run against a real cluster, but their fixtures are not usable:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        '\nSet them (docs/guides/acceptance-tests.md), or unset the kubeconfig variable to use the embedded emulator.',
    );
  }
  return { fixtures, timeouts };
}

const ZONE_LABEL = 'topology.kubernetes.io/zone';

/**
 * Check that the named fixtures exist on the cluster and resolve the zones, reporting every problem at once
 * (a missing fixture would otherwise surface as a puzzling failure deep in some test).
 */
async function resolveOnCluster(kubeconfig: string, partial: ReturnType<typeof acceptanceFixtures>['fixtures']): Promise<TargetFixtures> {
  const client = await HarvesterClient.connect({ kubeconfig });
  const where = client.connection.server;
  const problems: string[] = [];
  const split = (r: string): [string, string] => r.split('/') as [string, string];
  const exists = async (name: string, kind: string, get: () => Promise<unknown>, ref: string): Promise<void> => {
    if (!(await get())) problems.push(`${variable(name)} names ${kind} ${ref}, which does not exist on ${where}: create it or name an existing one`);
  };
  if (!(await client.namespaces.get(partial.namespace))) {
    problems.push(`${variable('NAMESPACE')} names namespace ${partial.namespace}, which does not exist on ${where}: create it or name an existing one`);
  }
  for (const [name, ref] of [['CLOUD_IMAGE', partial.cloudImage], ['ISO_IMAGE', partial.isoImage], ['ROLL_IMAGE', partial.rollImage]] as const) {
    if (ref) await exists(name, 'VirtualMachineImage', () => client.images.get(split(ref)[1], split(ref)[0]), ref);
  }
  await exists('NETWORK', 'VM network', () => client.networks.get(split(partial.network)[1], split(partial.network)[0]), partial.network);
  await exists('KEYPAIR', 'KeyPair', () => client.keyPairs.get(split(partial.keyPair)[1], split(partial.keyPair)[0]), partial.keyPair);
  const nodes = await client.nodes.list();
  const onHosts = [...new Set(nodes.items.map((n) => n.metadata.labels?.[ZONE_LABEL]).filter((z): z is string => Boolean(z)))].sort();
  const zones = partial.zones ?? onHosts;
  const unknown = zones.filter((z) => !onHosts.includes(z));
  if (unknown.length) problems.push(`${variable('ZONES')} lists ${unknown.join(', ')}, not on any host of ${where} (zones on hosts: ${onHosts.join(', ') || 'none'})`);
  if (zones.length === 0) problems.push(`no host of ${where} has a ${ZONE_LABEL} label: label the hosts (the machine pool tests spread VMs over zones)`);
  if (problems.length) {
    throw new Error(`The acceptance fixtures do not match the cluster:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return { ...partial, zones };
}

function newRunId(): string {
  return randomBytes(3).toString('hex');
}

function withNames<T extends Omit<TestTarget, 'name' | 'runId'>>(t: T): T & Pick<TestTarget, 'name' | 'runId'> {
  const runId = newRunId();
  return Object.defineProperties(t, {
    runId: { value: runId, enumerable: true },
    name: { value: (base: string) => `${base}-${runId}`, enumerable: true },
  }) as T & Pick<TestTarget, 'name' | 'runId'>;
}

/** Start the target for one test file: the emulator (with `options`), or the acceptance cluster. */
export async function startTarget(options: EmulatorOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<TestTarget> {
  const kubeconfigPath = env[ACCEPTANCE_ENV];
  if (kubeconfigPath) {
    const { fixtures, timeouts } = acceptanceFixtures(env);
    let kubeconfig: string;
    try {
      kubeconfig = readFileSync(kubeconfigPath, 'utf8');
    } catch (err) {
      throw new Error(`${ACCEPTANCE_ENV} is ${kubeconfigPath}, which cannot be read (${(err as NodeJS.ErrnoException).code}): point it at the cluster's kubeconfig file.`);
    }
    return withNames({
      mode: 'cluster' as const,
      kubeconfig,
      kubeconfigPath,
      fixtures: await resolveOnCluster(kubeconfig, fixtures),
      timeouts,
      stop: async () => undefined,
    });
  }
  const emulator = await startTestEmulator(options);
  return withNames({
    mode: 'emulator' as const,
    get kubeconfig() {
      return emulator.emulator.kubeconfig;
    },
    kubeconfigPath: emulator.kubectlEnv.kubeconfigPath,
    fixtures: EMULATOR_FIXTURES,
    timeouts: EMULATOR_TIMEOUTS,
    emulator,
    stop: () => emulator.stop(),
  });
}

/** Skip the current test (or suite, from a before hook) unless it runs on the emulator; narrows `target.emulator`. */
export function requireEmulator(ctx: Context, target: TestTarget): asserts target is TestTarget & { emulator: TestEmulator } {
  if (!target.emulator) {
    ctx.skip();
  }
}

let warnedLbSubnet = false;

/**
 * Skip the current test (or suite, from a before hook) when no subnet for test IP pools is configured, saying
 * once on stderr which variable would enable it (mocha shows skipped tests only as pending).
 */
export function requireLbSubnet(ctx: Context, target: TestTarget): asserts target is TestTarget & { fixtures: { lbSubnet: string } } {
  if (target.fixtures.lbSubnet === undefined) {
    if (!warnedLbSubnet) {
      warnedLbSubnet = true;
      process.stderr.write(`acceptance: ${variable('LB_SUBNET')} is unset, so the load-balancer tests are skipped (${ACCEPTANCE_VARIABLES.LB_SUBNET})\n`);
    }
    ctx.skip();
  }
}
