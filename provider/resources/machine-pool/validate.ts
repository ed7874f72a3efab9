/**
 * Pure input validation for `check`: the zod model plus the rules that span fields, every failure named by
 * its input path with the observed value and the fix, all reported at once. Values that are Pulumi's
 * unknown sentinel (preview) are never judged. Secret inputs are never quoted.
 */
import type { CheckFailure } from '../../core/types';
import { inputErrorMap, issuesToFailures, schemaKeys } from '../../core/input-errors';
import { containsUnknown, isUnknown } from '../../core/unknowns';
import { withDefaultsAroundUnknowns } from '../../core/validate-model';
import { CLUSTER_NETWORK_KEY_PREFIX, ZONE_KEY, affinityZonePin, mentionsNodeKey, mutatorStrippedTerms } from './affinity';
import { networkDataProblem, userDataProblem } from './cloud-config';
import { labelMapProblems } from '../../core/labels';
import { SECRET_INPUTS, machinePoolSchema, type MachinePoolInputs } from './model';

type Obj = Record<string, unknown>;

/** Result of validateInputs. */
export interface Validation {
  /** Inputs with defaults applied, when valid and fully known. */
  inputs?: MachinePoolInputs;
  failures: CheckFailure[];
  /** True when some input is unknown (preview): cluster checks that need it must be skipped. */
  hasUnknowns: boolean;
  /**
   * Preview with unknown top-level inputs: the known ones with defaults applied, the unknown ones kept as they are,
   * so the engine's old-vs-new comparison shows only what really changes (not every defaulted field).
   */
  previewInputs?: Obj;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const knownKeys = schemaKeys(machinePoolSchema);

/** crossFieldFailures checks the rules that involve more than one field (on the raw inputs). */
export function crossFieldFailures(raw: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (property: string, reason: string) => out.push({ property, reason });
  const disks = raw.disks;
  if (Array.isArray(disks)) {
    const first = disks[0];
    if (isObj(first) && first.image === undefined) {
      fail('disks[0].image', 'the boot disk needs an image: machine pools boot cloud images configured by cloud-init. Set disks[0].image to a cloud image, e.g. "default/ubuntu-22.04-server-cloudimg".');
    }
    disks.forEach((d, i) => {
      if (isObj(d) && d.image !== undefined && d.storageClass !== undefined && !isUnknown(d.storageClass)) {
        fail(`disks[${i}].storageClass`, 'is not allowed with an image: an image disk uses the image\'s own storage class (status.storageClassName). Remove storageClass, or remove image for a blank disk.');
      }
    });
  }
  const networks = raw.networks;
  if (Array.isArray(networks)) {
    networks.forEach((n, i) => {
      // KubeVirt's admission: "Masquerade interface only implemented with pod network" (vmi-create-admitter).
      if (isObj(n) && n.type === 'masquerade') {
        fail(`networks[${i}].type`, 'is "masquerade", which KubeVirt allows only on the pod network, and every pool network is a VM network (Multus): the VM would be refused. Use "bridge" (the default, as the node driver).');
      }
    });
  }
  const rolling = raw.rollingUpdate;
  if (isObj(rolling) && !containsUnknown(rolling)) {
    const zero = (v: unknown) => v === 0 || v === '0%';
    if (zero(rolling.maxSurge) && zero(rolling.maxUnavailable)) {
      fail('rollingUpdate', 'maxSurge and maxUnavailable are both 0, so no VM could ever be replaced. Set maxSurge to 1 (new VM first) or maxUnavailable to 1 (old VM first).');
    }
  }
  const zones = raw.zones;
  if (Array.isArray(zones)) {
    zones.forEach((z, i) => {
      if (typeof z === 'string' && !isUnknown(z) && zones.indexOf(z) !== i) fail(`zones[${i}]`, `"${z}" is listed twice. List each zone once.`);
    });
    if (zones.length > 0 && isObj(raw.affinity) && mentionsNodeKey(raw.affinity, ZONE_KEY)) {
      fail('affinity', 'constrains topology.kubernetes.io/zone while zones is set. Use zones for zone placement and keep affinity for other rules.');
    }
  }
  // Without zones, an affinity pinning every VM to one zone builds the VM zones would build (affinity.ts rule 3): read
  // back, it is the pool's zone pinning, so refresh would report affinity and zones drifted after every up.
  const noZones = zones === undefined || (Array.isArray(zones) && zones.length === 0);
  const pinned = noZones && isObj(raw.affinity) && !containsUnknown(raw.affinity) ? affinityZonePin(raw.affinity) : undefined;
  if (pinned !== undefined) {
    fail('affinity', `pins every VM to zone "${pinned}" (each required node selector term has ${ZONE_KEY} In ["${pinned}"]), which is what zones: ["${pinned}"] writes, so the VMs would read back as that and drift. Set zones: ["${pinned}"] and remove that expression from affinity.`);
  }
  if (isObj(raw.affinity) && mentionsNodeKey(raw.affinity, CLUSTER_NETWORK_KEY_PREFIX)) {
    fail('affinity.nodeAffinity', `uses a ${CLUSTER_NETWORK_KEY_PREFIX}* key: Harvester adds those itself from the VM networks (one per cluster network). Remove that expression; the networks input already places the VMs on hosts of the right cluster network.`);
  }
  if (isObj(raw.affinity) && !containsUnknown(raw.affinity)) for (const [property, reason] of mutatorStrippedTerms(raw.affinity, noZones)) fail(property, reason);
  for (const field of ['labels', 'annotations'] as const) {
    const map = raw[field];
    if (!isObj(map)) continue;
    for (const [property, reason] of labelMapProblems(field, map)) fail(property, reason);
  }
  const guestAgent = raw.guestAgent ?? 'install';
  if ((typeof raw.userData === 'string' || raw.userData === undefined) && !isUnknown(raw.userData) && !isUnknown(guestAgent) && !containsUnknown(raw.sshKeys)
    && (guestAgent === 'install' || guestAgent === 'none')) {
    const withKeys = Array.isArray(raw.sshKeys) && raw.sshKeys.length > 0;
    // Credentials not known yet (preview: made by the same program) still need a cloud-config to merge into.
    const credentials = isUnknown(raw.guestCredentials) ? CREDENTIALS_PLACEHOLDER : typeof raw.guestCredentials === 'string' ? raw.guestCredentials : undefined;
    const credentialsProblem = userDataProblem(undefined, 'none', false, credentials);
    if (credentialsProblem) out.push({ property: 'guestCredentials', reason: credentialsProblem });
    const problem = userDataProblem(raw.userData as string | undefined, guestAgent, withKeys, credentialsProblem ? undefined : credentials);
    if (problem) out.push({ property: 'userData', reason: problem });
    if (typeof raw.initUserData === 'string' && !isUnknown(raw.initUserData)) {
      // The same rules, about the other input (the messages name it).
      const initProblem = userDataProblem(raw.initUserData, guestAgent, withKeys, credentialsProblem ? undefined : credentials);
      if (initProblem) out.push({ property: 'initUserData', reason: initProblem.replace(/\buserData\b/g, 'initUserData') });
    }
  }
  if (typeof raw.networkData === 'string' && !isUnknown(raw.networkData)) {
    const problem = networkDataProblem(raw.networkData);
    if (problem) out.push({ property: 'networkData', reason: problem });
  }
  return out;
}

/** Stands for guestCredentials unknown at preview: what matters is that some write_files will be merged. */
const CREDENTIALS_PLACEHOLDER = '#cloud-config\nwrite_files:\n- path: /etc/kubernetes/cloud-config\n';

/**
 * validateInputs checks raw inputs (as Pulumi passes them to `check`; keys starting with "__" such as
 * `__provider` are ignored) and returns every failure at once.
 */
export function validateInputs(raw: Record<string, unknown>): Validation {
  const user: Obj = Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !k.startsWith('__')));
  const hasUnknowns = containsUnknown(user);
  const parsed = machinePoolSchema.safeParse(user, { error: inputErrorMap });
  const failures = parsed.success ? [] : issuesToFailures(parsed.error.issues, user, { secretInputs: SECRET_INPUTS, knownKeys });
  const seen = new Set(failures.map((f) => f.property));
  for (const f of crossFieldFailures(user)) if (!seen.has(f.property)) failures.push(f);
  const inputs = parsed.success && failures.length === 0 && !hasUnknowns ? parsed.data : undefined;
  return { inputs, failures, hasUnknowns, previewInputs: hasUnknowns && failures.length === 0 ? withDefaultsAroundUnknowns(machinePoolSchema, user) : undefined };
}
