/**
 * One inverse of desired.ts (issue 33): refresh and the planner read a VM back the same way, so they agree about
 * which inputs differ.
 * - Property (fast-check): for random inputs check accepts (every input read back, in each of its spellings), reading
 *   back each VM desired.ts builds gives the inputs again, normalised independently here (references qualified, the
 *   model's defaults filled in), in the zone it was built for; so refresh against their record sees no drift.
 * - Property (fast-check): for random out-of-band edits of a live VM built by desired.ts (cpu, memory, disks,
 *   networks, keys, zone and affinity, labels, annotations, the cloud-init digest annotations, fields no input reads
 *   back), the inputs refresh reports as drifted are exactly the inputs the planner sees differ; labels and annotations
 *   are patched in place and everything else rolls; nothing drifts that no edit touched, and an edit sure to change
 *   its input or an unread field is seen; the drift lines and the planner's change lines, read as text, name those
 *   same inputs. The number of runs is set by INVERSE_RUNS.
 * - Exhaustively: every field desired.ts writes is either read back by an input or compared as left unread, so an
 *   edit of any of them is seen, by both or by the planner alone (a field no input reads back).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { VirtualMachine } from '../../../../../provider/client/objects';
import { qualify } from '../../../../../provider/core/object-ref';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import type { MachineDifference } from '../../../../../provider/resources/machine-pool/differences';
import type { MachineInput } from '../../../../../provider/resources/machine-pool/input-differences';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { observationOf } from '../../../../../provider/resources/machine-pool/observe';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import { planPool } from '../../../../../provider/resources/machine-pool/plan';
import { readBack } from '../../../../../provider/resources/machine-pool/read';
import { readBackMachine } from '../../../../../provider/resources/machine-pool/read-back';
import { reconstructInputs } from '../../../../../provider/resources/machine-pool/reconstruct';
import { validateInputs } from '../../../../../provider/resources/machine-pool/validate';
import { asHarvesterServes, context, inputs } from './fixtures';

const RUNS = Number(process.env.INVERSE_RUNS ?? 300);
type Obj = Record<string, any>;
const CLAIMS = 'harvesterhci.io/volumeClaimTemplates';
const IN_PLACE = new Set<MachineInput>(['labels', 'annotations']);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const keyPairs = { 'default/ops-key': 'ssh-ed25519 AAAAOps ops@example', 'default/other': 'ssh-ed25519 AAAAOther other@example' };

/**
 * A one-VM pool (its placement is then the VM's own: with more VMs the planner may also rebalance zones); with
 * initUserData, a pool born from it, so its VM is the one made from initUserData.
 */
function pool(args: Partial<MachinePoolArgs>) {
  const i = inputs({ ...args, count: 1 });
  const desired = desiredVirtualMachines(i, context({ keyPairPublicKeys: keyPairs }));
  const born = i.initUserData !== undefined;
  const machine = born ? desired.build(0, desired.machines[0].zone, undefined, true) : desired.machines[0];
  const statuses = [{ name: machine.name, index: 0, zone: machine.zone, phase: 'Running', ready: true }];
  const init = born ? { machine: machine.name, cloudInitHash: desired.initCloudInitHash! } : undefined;
  return { desired, machine, outputs: toOutputs(i, statuses, [], desired.cloudInitHash, init) };
}

/** What refresh and the planner say about one live VM of the pool. */
function verdicts(p: ReturnType<typeof pool>, live: VirtualMachine) {
  const refresh = reconstructInputs(p.outputs, [live]);
  const identity = p.desired.identity;
  // As observe sees the pool: the VM, no VMI (not needed to judge), its Secret as built.
  const observation = observationOf(identity, { vms: [live], vmis: [], secrets: [p.machine.secret] });
  const read = readBack({ identity, observation, secrets: [p.machine.secret] }, p.outputs, false);
  const plan = planPool(p.desired, observation.machines, { recordedIndexes: [0] });
  const planned: MachineDifference[] = [...plan.replaces.flatMap((r) => r.differences), ...plan.steps.flatMap((s) => (s.action === 'patch' ? s.differences : []))];
  const sorted = (list: (MachineInput | undefined)[]) => [...new Set(list.filter((x): x is MachineInput => x !== undefined))].sort();
  const drift = read!.props.drift;
  return {
    refresh, drift, plan, planned,
    refreshInputs: sorted(refresh.differences.map((d) => d.input)),
    planInputs: sorted(planned.map((d) => d.input)),
    // What the texts a user reads name: refresh's drift lines about the VM, the planner's change lines.
    lineInputs: sorted(drift.filter((line) => line.startsWith('VirtualMachine ') && !line.endsWith(': missing (deleted outside Pulumi)'))
      .map((line) => inputNamedBy(line.replace(/^VirtualMachine \S+: /, '')))),
    // A roll's line says one thing; an in-place update's joins its label and annotation changes with "; ".
    changeInputs: sorted(plan.changes.flatMap((line) => line.replace(/^(roll|update) \S+( in place)?: /, '').split(/; (?=(?:labels|annotations) is )/)).map(inputNamedBy)),
  };
}

/**
 * The input a drift line or a planner's change line names, read from its text as a user reads it (so this does not
 * trust the structured lists it is checked against); undefined for a field no input reads back.
 */
function inputNamedBy(text: string): MachineInput | undefined {
  if (text.endsWith('(no input reads it back)')) return undefined;
  if (text.startsWith('pinned to zone ')) return 'zones';
  if (text.startsWith('node pool label ')) return 'poolName';
  if (text.startsWith('cloud-init user data differs ')) return text.includes('initUserData') ? 'initUserData' : 'userData';
  if (text.startsWith('booted from other cloud-init network data ')) return 'networkData';
  const named = /^(\w+) is /.exec(text)?.[1];
  if (named === undefined) throw new Error(`a line that names no input: ${text}`);
  return named as MachineInput;
}

/**
 * The common ground: the same inputs, in place exactly for labels and annotations, one drift line each; with the VM's
 * name kept (`sameName`), refresh reports nothing else but, when `secretJudgedOtherwise` (the VM's init annotation
 * edited, so its intact Secret is judged against the other user data), the Secret's own line.
 */
function assertAgree(v: ReturnType<typeof verdicts>, sameName = true, secretJudgedOtherwise = false): void {
  assert.deepEqual(v.planInputs, v.refreshInputs, `planner ${JSON.stringify(v.planned)} vs refresh ${JSON.stringify(v.refresh.drift)}`);
  assert.deepEqual(v.lineInputs, v.refreshInputs, `the drift lines name other inputs: ${v.drift.join(' | ')}`);
  assert.deepEqual(v.changeInputs, v.planInputs, `the planner's change lines name other inputs: ${v.plan.changes.join(' | ')}`);
  for (const d of v.planned) assert.equal(d.inPlace, d.input !== undefined && IN_PLACE.has(d.input), JSON.stringify(d));
  const rolls = v.planned.some((d) => !d.inPlace);
  assert.equal(v.plan.replaces.length > 0, rolls, 'the VM rolls exactly when something not in place differs');
  assert.equal(v.plan.steps.some((s) => s.action === 'patch'), !rolls && v.planned.length > 0, 'patched in place exactly when only labels or annotations differ');
  assert.equal(v.refresh.drift.length, v.refresh.differences.length, 'one drift line per input');
  if (sameName) {
    const secretLines = v.drift.filter((line) => line.startsWith('Secret '));
    if (!secretJudgedOtherwise) assert.deepEqual(secretLines, [], 'its Secret is intact');
    assert.deepEqual(v.drift.filter((line) => !secretLines.includes(line)), v.refresh.drift, 'refresh reports these lines and nothing else');
  } else for (const line of v.refresh.drift) assert.ok(v.drift.includes(line), line);
}

/**
 * An out-of-band edit: what it does, the field it edits (each edited once per run, so no edit undoes another), the
 * input it may change (undefined: a field no input reads back), and whether it surely does.
 */
interface Edit {
  name: string;
  target: string;
  input?: MachineInput;
  sure: boolean;
  apply(vm: Obj): void;
}
const spec = (vm: Obj) => vm.spec.template.spec;
const editClaims = (vm: Obj, change: (list: Obj[]) => void) => {
  const list = JSON.parse(vm.metadata.annotations[CLAIMS]) as Obj[];
  change(list);
  vm.metadata.annotations[CLAIMS] = JSON.stringify(list);
};
const zoneTerm = (zone: string) => ({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }, { key: 'network.harvesterhci.io/mgmt', operator: 'In', values: ['true'] }] }] } });
const mapEdit = (input: 'labels' | 'annotations', map: string, where: (vm: Obj) => Obj) => fc.oneof(
  fc.constantFrom('team', 'extra').map((key): Edit => ({ name: `${map} ${key} set`, target: `${map} ${key}`, input, sure: true, apply: (vm) => { where(vm)[key] = 'edited'; } })),
  fc.constantFrom('team', 'note').map((key): Edit => ({ name: `${map} ${key} removed`, target: `${map} ${key}`, input, sure: false, apply: (vm) => { delete where(vm)[key]; } })),
);

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.integer({ min: 1, max: 4 }).map((k): Edit => ({ name: `cores +${k}`, target: 'cores', input: 'cpu', sure: true, apply: (vm) => { spec(vm).domain.cpu.cores += k; } })),
  fc.constant<Edit>({ name: 'cores removed', target: 'cores', input: 'cpu', sure: true, apply: (vm) => { delete spec(vm).domain.cpu.cores; } }),
  fc.constantFrom('1Gi', '2Gi', '2048Mi', '4Gi', '4096Mi').map((m): Edit => ({ name: `memory ${m}`, target: 'memory', input: 'memory', sure: false, apply: (vm) => { spec(vm).domain.resources.limits.memory = m; } })),
  fc.constantFrom('40Gi', '40960Mi', '50Gi', '20Gi').map((s): Edit => ({ name: `disk size ${s}`, target: 'claim size', input: 'disks', sure: false, apply: (vm) => editClaims(vm, (l) => { l[0].spec.resources.requests.storage = s; }) })),
  fc.constantFrom('virtio', 'scsi', 'sata').map((b): Edit => ({ name: `disk bus ${b}`, target: 'disk bus', input: 'disks', sure: false, apply: (vm) => { spec(vm).domain.devices.disks[1].disk.bus = b; } })),
  fc.constant<Edit>({ name: 'disk image', target: 'claim image', input: 'disks', sure: true, apply: (vm) => editClaims(vm, (l) => { l[0].metadata.annotations['harvesterhci.io/imageId'] = 'default/other-image'; }) }),
  fc.constantFrom('vm-net', 'default/vm-net', 'default/other-net').map((n): Edit => ({ name: `network ${n}`, target: 'network name', input: 'networks', sure: false, apply: (vm) => { spec(vm).networks[0].multus.networkName = n; } })),
  fc.constantFrom('virtio', 'e1000').map((m): Edit => ({ name: `nic model ${m}`, target: 'nic model', input: 'networks', sure: false, apply: (vm) => { spec(vm).domain.devices.interfaces[0].model = m; } })),
  fc.constant<Edit>({ name: 'nic binding swapped', target: 'nic binding', input: 'networks', sure: true, apply: (vm) => {
    const nic = spec(vm).domain.devices.interfaces[0];
    if ('bridge' in nic) { delete nic.bridge; nic.masquerade = {}; } else { delete nic.masquerade; nic.bridge = {}; }
  } }),
  fc.constantFrom('[]', '["default/ops-key"]', '["default/other"]', 'not json').map((k): Edit => ({ name: `sshNames ${k}`, target: 'sshNames', input: 'sshKeys', sure: false, apply: (vm) => { vm.spec.template.metadata.annotations['harvesterhci.io/sshNames'] = k; } })),
  fc.constantFrom('z1', 'z2', 'z3', undefined).map((z): Edit => ({ name: `zone ${z ?? 'none'}`, target: 'node affinity', input: 'zones', sure: false, apply: (vm) => {
    const affinity = spec(vm).affinity;
    if (z === undefined) delete affinity.nodeAffinity;
    else affinity.nodeAffinity = zoneTerm(z);
  } })),
  fc.constant<Edit>({ name: 'pod affinity added', target: 'pod affinity', input: 'affinity', sure: true, apply: (vm) => {
    spec(vm).affinity.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { edited: 'yes' } }, topologyKey: 'kubernetes.io/hostname' }] };
  } }),
  mapEdit('labels', 'VM label', (vm) => vm.metadata.labels),
  mapEdit('labels', 'template label', (vm) => vm.spec.template.metadata.labels),
  mapEdit('annotations', 'VM annotation', (vm) => vm.metadata.annotations),
  fc.boolean().map((drop): Edit => ({ name: `user-data digest ${drop ? 'removed' : 'changed'}`, target: 'user-data digest', input: 'userData', sure: true, apply: (vm) => {
    if (drop) delete vm.metadata.annotations['harvester-iac.io/user-data-hash'];
    else vm.metadata.annotations['harvester-iac.io/user-data-hash'] = 'hmac-sha256:edited';
  } })),
  // Only the VM made from initUserData carries the annotation: taking it away makes that VM a joiner with the wrong
  // digest; giving it to a joiner of a pool without initUserData changes a field no input reads back.
  fc.constantFrom<[string, MachineInput | undefined, (vm: Obj) => void]>(
    ['init annotation removed', 'userData', (vm) => { delete vm.metadata.annotations['harvester-iac.io/init-user-data']; }],
    ['init annotation added', undefined, (vm) => { vm.metadata.annotations['harvester-iac.io/init-user-data'] = 'true'; }],
  ).map(([name, input, apply]): Edit => ({ name, target: 'init annotation', input, sure: false, apply })),
  fc.constant<Edit>({ name: 'network-data digest changed', target: 'network-data digest', input: 'networkData', sure: true, apply: (vm) => { vm.metadata.annotations['harvester-iac.io/network-data-hash'] = 'hmac-sha256:edited'; } }),
  fc.constant<Edit>({ name: 'guest cluster label changed', target: 'guest cluster label', input: 'guestCluster', sure: true, apply: (vm) => { vm.metadata.labels['guestcluster.harvesterhci.io/name'] = 'other-gc'; } }),
  fc.constant<Edit>({ name: 'node pool label changed', target: 'node pool label', input: 'poolName', sure: true, apply: (vm) => { vm.metadata.labels['nodepool.harvesterhci.io/name'] = 'other-np'; } }),
  fc.constantFrom<[string, (vm: Obj) => void]>(
    ['evictionStrategy', (vm) => { spec(vm).evictionStrategy = 'None'; }],
    ['runStrategy', (vm) => { vm.spec.runStrategy = 'Always'; }],
    ['CPU limit', (vm) => { spec(vm).domain.resources.limits.cpu = '64'; }],
    ['cloud-init disk bus', (vm) => { spec(vm).domain.devices.disks[0].disk.bus = 'sata'; }],
    ['claim volume mode', (vm) => editClaims(vm, (l) => { l[0].spec.volumeMode = 'Filesystem'; })],
    ['waitForLease annotation', (vm) => { vm.spec.template.metadata.annotations['harvesterhci.io/waitForLeaseInterfaceNames'] = '["nic-0"]'; }],
    ['creator label', (vm) => { vm.metadata.labels['harvesterhci.io/creator'] = 'someone'; }],
  ).map(([name, apply]): Edit => ({ name, target: name, sure: true, apply })),
);

const poolArgs: fc.Arbitrary<Partial<MachinePoolArgs>> = fc.record({
  cpu: fc.constantFrom(1, 2, 4),
  memory: fc.constantFrom('2Gi', '4096Mi'),
  disks: fc.constantFrom<MachinePoolArgs['disks']>(
    [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }],
    [{ image: 'ubuntu-22.04-server-cloudimg', size: '40960Mi' }, { size: '10Gi', bus: 'scsi', storageClass: 'fast' }],
    [{ image: 'default/opensuse-leap-15.6', size: '20Gi', bus: 'sata' }],
  ),
  networks: fc.constantFrom<MachinePoolArgs['networks']>([{ network: 'vm-net' }], [{ network: 'default/vm-net', model: 'e1000' }, { network: 'other-net', type: 'masquerade' }]),
  sshKeys: fc.constantFrom([], ['ops-key'], ['default/ops-key', 'other']),
  zones: fc.constantFrom([], ['z1'], ['z1', 'z2']),
  labels: fc.constantFrom<Record<string, string>>({}, { team: 'a' }, { team: 'a', tier: 'web' }),
  annotations: fc.constantFrom<Record<string, string>>({}, { note: 'x' }),
  guestCluster: fc.constantFrom(undefined, 'gc'),
  affinity: fc.constantFrom(undefined, { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } }),
  userData: fc.constantFrom(undefined, '#cloud-config\nhostname: a\n'),
  networkData: fc.constantFrom(undefined, 'version: 2\n'),
  initUserData: fc.constantFrom(undefined, '#cloud-config\nruncmd:\n- echo init\n'),
}, { requiredKeys: [] });

/** Pool inputs, broadly: every input read-back inverts, with each of its spellings; the test keeps those check accepts. */
const quantity = fc.oneof(fc.integer({ min: 1, max: 64 }).map((n) => `${n}Gi`), fc.integer({ min: 1, max: 64 }).map((n) => `${n * 1024}Mi`), fc.constant('1536Mi'));
const ref = (names: string[]) => fc.constantFrom(...names.flatMap((n) => [n, `default/${n}`]), ...names.map((n) => `other-ns/${n}`));
const bus = fc.option(fc.constantFrom<'virtio' | 'scsi' | 'sata'>('virtio', 'scsi', 'sata'), { nil: undefined });
const imageDisk = fc.record({ image: ref(['ubuntu', 'opensuse']), size: quantity, bus }, { requiredKeys: ['image', 'size'] });
const blankDisk = fc.record({ size: quantity, bus, storageClass: fc.constantFrom('fast', 'longhorn') }, { requiredKeys: ['size'] });
const labelMap = fc.dictionary(fc.constantFrom('team', 'tier', 'example.com/owner', 'app.kubernetes.io/managed-by-team'), fc.constantFrom('', 'a', 'web-1'), { maxKeys: 3 });
const expression = (keys: string[]) => fc.oneof(
  fc.record({ key: fc.constantFrom(...keys), operator: fc.constantFrom('In', 'NotIn'), values: fc.uniqueArray(fc.constantFrom('a', 'b', 'ssd'), { minLength: 1, maxLength: 2 }) }),
  fc.record({ key: fc.constantFrom(...keys), operator: fc.constantFrom('Exists', 'DoesNotExist') }),
);
// The zone key too: check refuses it with zones set, and read-back must not take it for the pool's zone pinning without.
const nodeTerm = fc.record({ matchExpressions: fc.array(expression(['disk', 'example.com/rack', 'topology.kubernetes.io/zone']), { minLength: 1, maxLength: 2 }), matchFields: fc.array(expression(['metadata.name']), { maxLength: 1 }) }, { requiredKeys: ['matchExpressions'] });
const podTerm = fc.record({ labelSelector: fc.record({ matchLabels: fc.dictionary(fc.constantFrom('app', 'tier'), fc.constantFrom('db', 'web'), { minKeys: 1, maxKeys: 2 }) }), topologyKey: fc.constantFrom('kubernetes.io/hostname', 'topology.kubernetes.io/zone') });
const podAffinity = fc.record({
  requiredDuringSchedulingIgnoredDuringExecution: fc.array(podTerm, { minLength: 1, maxLength: 2 }),
  preferredDuringSchedulingIgnoredDuringExecution: fc.array(fc.record({ weight: fc.integer({ min: 1, max: 100 }), podAffinityTerm: podTerm }), { minLength: 1, maxLength: 2 }),
}, { requiredKeys: [] });
const affinity = fc.record({
  nodeAffinity: fc.record({
    requiredDuringSchedulingIgnoredDuringExecution: fc.record({ nodeSelectorTerms: fc.array(nodeTerm, { minLength: 1, maxLength: 2 }) }),
    preferredDuringSchedulingIgnoredDuringExecution: fc.array(fc.record({ weight: fc.integer({ min: 1, max: 100 }), preference: nodeTerm }), { minLength: 1, maxLength: 2 }),
  }, { requiredKeys: [] }),
  podAffinity,
  podAntiAffinity: podAffinity,
}, { requiredKeys: [] }).filter((a) => Object.keys(a).length > 0 && Object.values(a).every((v) => Object.keys(v).length > 0));

const validPoolArgs: fc.Arbitrary<MachinePoolArgs> = fc.record({
  name: fc.constantFrom('pool-a', 'workers', 'w'),
  namespace: fc.constantFrom('default', 'team-a'),
  count: fc.integer({ min: 1, max: 4 }),
  cpu: fc.integer({ min: 1, max: 64 }),
  memory: quantity,
  disks: fc.tuple(imageDisk, fc.array(fc.oneof(blankDisk, imageDisk), { maxLength: 3 })).map(([boot, rest]) => [boot, ...rest]),
  networks: fc.array(fc.record({ network: ref(['vm-net', 'data-net']), model: fc.constantFrom('virtio', 'e1000', 'e1000e', 'rtl8139'), type: fc.constant('bridge' as const) }, { requiredKeys: ['network'] }), { minLength: 1, maxLength: 3 }),
  sshKeys: fc.uniqueArray(ref(['ops-key', 'other']), { maxLength: 2, selector: (k) => k.split('/').pop() }),
  zones: fc.uniqueArray(fc.constantFrom('z1', 'z2', 'z3'), { maxLength: 3 }),
  affinity,
  labels: labelMap,
  annotations: fc.dictionary(fc.constantFrom('note', 'example.com/json', 'team'), fc.constantFrom('', 'x', '{"a":[1,2]}', 'two\nlines'), { maxKeys: 2 }),
  guestCluster: fc.constantFrom('gc', 'guest-1'),
  poolName: fc.constantFrom('np', 'workers-np'),
  userData: fc.constantFrom('#cloud-config\nhostname: a\n', '#cloud-config\npackages: [htop]\n'),
  networkData: fc.constant('version: 2\nethernets:\n  eth0:\n    dhcp4: true\n'),
  initUserData: fc.constantFrom('#cloud-config\nruncmd:\n- echo init\n', '#cloud-config\nwrite_files: []\n'),
  guestAgent: fc.constantFrom<'install' | 'none'>('install', 'none'),
}, { requiredKeys: ['name', 'disks', 'networks'] });

/** The context observe would resolve: every image and key pair the inputs name exists. */
function contextFor(args: MachinePoolArgs) {
  const ns = args.namespace ?? 'default';
  const images = args.disks.flatMap((d) => (d.image ? [qualify(d.image, ns)] : []));
  return context({
    imageStorageClasses: Object.fromEntries(images.map((i) => [i, `longhorn-${i.replace('/', '-')}`])),
    keyPairPublicKeys: Object.fromEntries((args.sshKeys ?? []).map((k) => [qualify(k, ns), `ssh-ed25519 AAAA${k.length} ${k}`])),
  });
}

/** Without undefined members, so a value left out and one read back as undefined compare equal. */
const defined = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('machine-pool: one inverse of desired.ts for refresh and the planner', () => {
  it(`property: reading back the VMs desired.ts builds gives back their inputs, normalised (references qualified, defaults filled in) (${RUNS} runs)`, () => {
    let valid = 0;
    fc.assert(
      fc.property(validPoolArgs, (args) => {
        const validation = validateInputs(args as unknown as Record<string, unknown>);
        fc.pre(validation.failures.length === 0);
        valid++;
        const i = validation.inputs!;
        const ns = i.namespace;
        const desired = desiredVirtualMachines(i, contextFor(args));
        const outputs = toOutputs(i, [], [], desired.cloudInitHash);
        // The inputs normalised independently of read-back: references qualified, the model's defaults filled in.
        const expected = {
          cpu: i.cpu,
          memory: i.memory,
          disks: i.disks.map((d) => (d.image ? { image: qualify(d.image, ns), size: d.size, bus: d.bus } : { ...d })),
          networks: i.networks.map((n) => ({ ...n, network: qualify(n.network, ns) })),
          sshKeys: i.sshKeys.map((k) => qualify(k, ns)),
          affinity: i.affinity,
          labels: i.labels,
          templateLabels: i.labels,
          annotations: i.annotations,
          guestCluster: i.guestCluster,
          nodePool: i.guestCluster === undefined ? undefined : i.poolName ?? i.name,
          userDataHash: desired.cloudInitHash,
          networkDataHash: outputs.networkDataHash,
        };
        assert.equal(desired.machines.length, i.count);
        // A pool born from nothing: its first VM made from initUserData (when set), as the planner builds it then.
        const born = i.initUserData !== undefined;
        const first = desired.build(0, desired.machines[0].zone, undefined, true);
        const machines = [first, ...desired.machines.slice(1)];
        for (const m of machines) {
          const init = born && m === first;
          const { name, zone, ...read } = readBackMachine(m.vm);
          assert.equal(name, m.name);
          assert.deepEqual(defined(read), defined({ ...expected, init, userDataHash: init ? desired.initCloudInitHash : desired.cloudInitHash }), m.name);
          assert.equal(zone, m.zone, `${m.name} reads back in the zone it is built for`);
          assert.ok(i.zones.length === 0 ? zone === undefined : i.zones.includes(zone!), `${m.name} in zone ${zone}, zones ${i.zones.join(', ')}`);
        }
        // And so refresh, against the record of these inputs, sees no drift.
        const record = born ? toOutputs(i, [], [], desired.cloudInitHash, { machine: first.name, cloudInitHash: desired.initCloudInitHash! }) : outputs;
        assert.deepEqual(reconstructInputs(record, machines.map((m) => m.vm)).drift, []);
      }),
      { numRuns: RUNS, seed: 20261208 },
    );
    assert.equal(valid, RUNS, 'every run judged valid inputs');
  });

  it(`property: for random out-of-band edits of a live VM, refresh's drifted inputs are exactly the planner's (${RUNS} runs)`, () => {
    const served = fc.record({ hotplug: fc.boolean(), clusterNetworks: fc.constantFrom<string[]>(['mgmt'], ['data', 'mgmt']) });
    fc.assert(
      fc.property(poolArgs, served, fc.uniqueArray(edit, { maxLength: 4, selector: (e) => e.target }), (args, serve, edits) => {
        const p = pool(args);
        const live = asHarvesterServes(p.machine.vm, serve) as unknown as Obj;
        for (const e of edits) e.apply(live);
        const v = verdicts(p, live as VirtualMachine);
        assertAgree(v, true, edits.some((e) => e.target === 'init annotation'));
        // The VM made from initUserData carries that input's digest where the others carry userData's.
        const digestOf = (input: MachineInput): MachineInput => (input === 'initUserData' ? 'userData' : input);
        const touched = new Set(edits.map((e) => e.input));
        for (const input of v.refreshInputs) assert.ok(touched.has(digestOf(input)), `${input} drifted, but no edit touched it: ${edits.map((e) => e.name).join(', ')}`);
        for (const e of edits.filter((x) => x.sure && x.input !== undefined)) assert.ok(v.refreshInputs.map(digestOf).includes(e.input!), `${e.name} must show as ${e.input}: ${v.refresh.drift.join(' | ')}`);
        if (edits.some((e) => e.sure && e.input === undefined)) assert.ok(v.planned.some((d) => d.field !== undefined && !d.inPlace), `an unread field edited must roll: ${JSON.stringify(v.planned)}`);
        if (edits.length === 0) assert.ok(v.plan.upToDate && v.drift.length === 0, 'as Harvester serves it, the VM is up to date');
      }),
      { numRuns: RUNS, seed: 20261207 },
    );
  });

  it('every field desired.ts writes is read back by an input or compared as unread: an edit of any is seen, with refresh and planner agreeing', () => {
    const p = pool({
      initUserData: '#cloud-config\nruncmd:\n- echo init\n',
      zones: ['z1', 'z2'], guestCluster: 'gc', sshKeys: ['ops-key'], labels: { team: 'a' }, annotations: { note: 'x' }, networkData: 'version: 2\n',
      disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }, { size: '10Gi', bus: 'scsi', storageClass: 'fast' }],
      networks: [{ network: 'vm-net' }, { network: 'other-net', type: 'masquerade' }],
      affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' } }] } },
    });
    const seen = { byInput: 0, unread: 0 };
    for (const [path, value] of leaves(p.machine.vm)) {
      const live = asHarvesterServes(p.machine.vm) as unknown as Obj;
      setLeaf(live, path, changed(value));
      const v = verdicts(p, live as VirtualMachine);
      const where = `${path.join('.')} = ${JSON.stringify(changed(value))}`;
      assert.ok(v.planned.length > 0, `an edit of ${where} goes unseen`);
      assertAgree(v, path.join('.') !== 'metadata.name', path.includes('harvester-iac.io/init-user-data'));
      if (v.planInputs.length) seen.byInput++;
      else seen.unread++;
    }
    // Both kinds exist: a guard against a read-back that takes everything (or nothing).
    assert.ok(seen.byInput > 10 && seen.unread > 10, JSON.stringify(seen));
  });
});

type Leaf = [(string | number)[], string | number | boolean];

/** Every scalar field of a VM, the volumeClaimTemplates annotation opened up (as read-back views it). */
function leaves(value: unknown, path: (string | number)[] = []): Leaf[] {
  if (typeof value === 'string' && path.join('.') === `metadata.annotations.${CLAIMS}`) return leaves(JSON.parse(value), path);
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [[path, value]] : [];
}

function changed(value: string | number | boolean): string | number | boolean {
  return typeof value === 'number' ? value + 1 : typeof value === 'boolean' ? !value : `${value}-edited`;
}

function setLeaf(vm: Obj, path: (string | number)[], value: unknown): void {
  const claims = path.slice(0, 3).join('.') === `metadata.annotations.${CLAIMS}` && path.length > 3;
  if (claims) {
    const list = clone(JSON.parse(vm.metadata.annotations[CLAIMS]) as unknown);
    setLeaf(list as Obj, path.slice(3), value);
    vm.metadata.annotations[CLAIMS] = JSON.stringify(list);
    return;
  }
  let cur: Obj = vm;
  for (const key of path.slice(0, -1)) cur = cur[key];
  cur[path[path.length - 1]] = value;
}
