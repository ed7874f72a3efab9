/**
 * The cloud-init Secrets of a pool's VMs, read back. The secret inputs (userData, networkData) are recorded only as
 * keyed digests, so read gives them back as inputs only when every VM's Secret holds what the recorded inputs
 * render to (digests compared: the rendered user data with cloudInitHash, the userData input as written with
 * userDataHash, the network data with networkDataHash); otherwise it reports drift naming the Secret and never
 * its content, and leaves the input out so the preview shows it changed. An import, with nothing recorded, takes
 * them from the Secret. Pure; the Secrets come from observe.
 */
import type { Secret, VirtualMachine } from '../../client/objects';
import { secretDigest } from '../../core/hash';
import { guestAgentIn } from './cloud-config';
import { GUEST_CREDENTIALS_KEY, INIT_USER_DATA_INPUT_KEY, USER_DATA_INPUT_KEY, cloudInitSecretName, isInitMachine } from './desired';
import { NETWORK_DATA_HASH, USER_DATA_HASH } from './labels';

/** The Secret keys we write: the rendered user data, the network data and the userData input as written. */
const CLOUD_INIT_KEYS = ['userdata', 'networkdata', USER_DATA_INPUT_KEY, GUEST_CREDENTIALS_KEY, INIT_USER_DATA_INPUT_KEY] as const;

/** cloudInitDataDiffers says whether a live Secret's cloud-init data is not what the desired Secret holds. */
export function cloudInitDataDiffers(live: Secret, desired: Secret): boolean {
  return CLOUD_INIT_KEYS.some((key) => live.data?.[key] !== desired.data?.[key]);
}

/** A Secret's data without the keys we write (so the desired ones replace them, absent ones included). */
export function withoutCloudInitData(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).filter(([key]) => !(CLOUD_INIT_KEYS as readonly string[]).includes(key)));
}

/** The cloud-init data of one VM's Secret, decoded; `undefined` for a key it does not hold. */
function decoded(secret: Secret, key: (typeof CLOUD_INIT_KEYS)[number]): string | undefined {
  const value = secret.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

/** A live VM of the pool and its cloud-init Secret (undefined: missing). */
export interface MachineCloudInit {
  name: string;
  vm: VirtualMachine;
  secret?: Secret;
}

/** The digests a run records: of the userData input, the networkData input and the rendered user data. */
export interface CloudInitDigests {
  userDataHash?: string;
  initUserDataHash?: string;
  /** The rendered user data of the VM made from initUserData. */
  initCloudInitHash?: string;
  networkDataHash?: string;
  guestCredentialsHash?: string;
  cloudInitHash?: string;
}

/** What read gives back: the secret inputs every VM confirms, and one drift line per deviation. */
export interface CloudInitReadback {
  /** Present (and `userData`/`networkData` possibly undefined, meaning not set) only when confirmed. */
  inputs: { userData?: string; networkData?: string; guestCredentials?: string; initUserData?: string };
  drift: string[];
}

/**
 * readCloudInit compares each VM's Secret with the recorded digests (the VM's own digest annotations are reported
 * by read-back, reconstruct.ts; they only withhold userData, initUserData and networkData here). With no VM,
 * nothing confirms any input.
 */
export function readCloudInit(pool: { namespace: string; name: string }, recorded: CloudInitDigests, machines: MachineCloudInit[]): CloudInitReadback {
  const salt = `${pool.namespace}/${pool.name}`;
  const drift: string[] = [];
  let userData = machines.length > 0;
  let networkData = machines.length > 0;
  let credentials = machines.length > 0;
  let input: string | undefined;
  let network: string | undefined;
  let written: string | undefined;
  let initUserData = machines.some((m) => isInitMachine(m.vm));
  let initInput: string | undefined;
  for (const m of machines) {
    const where = `Secret ${pool.namespace}/${cloudInitSecretName(m.name)}`;
    const annotations = m.vm.metadata.annotations ?? {};
    if (!m.secret) {
      drift.push(`${where}: missing (deleted outside Pulumi); the next \`pulumi up\` recreates it`);
      userData = networkData = false;
      if (isInitMachine(m.vm)) initUserData = false;
      continue;
    }
    input = decoded(m.secret, USER_DATA_INPUT_KEY);
    network = decoded(m.secret, 'networkdata');
    written = decoded(m.secret, GUEST_CREDENTIALS_KEY);
    if (secretDigest(written, salt) !== recorded.guestCredentialsHash) {
      drift.push(`${where}: cloud-init guest credentials differ from the recorded guestCredentials`);
      credentials = false;
    }
    const rendered = secretDigest(decoded(m.secret, 'userdata'), salt);
    // The VM made from initUserData carries that user data rendered; every other VM userData's.
    const init = isInitMachine(m.vm);
    const expected = init ? recorded.initCloudInitHash : recorded.cloudInitHash;
    if (init) {
      initInput = decoded(m.secret, INIT_USER_DATA_INPUT_KEY);
      if (secretDigest(initInput, salt) !== recorded.initUserDataHash) {
        drift.push(`${where}: cloud-init user data differs from the recorded initUserData`);
        initUserData = false;
      }
    }
    if (secretDigest(input, salt) !== recorded.userDataHash) {
      drift.push(`${where}: cloud-init user data differs from the recorded userData`);
      userData = false;
    } else if (expected !== undefined && rendered !== expected) {
      drift.push(`${where}: cloud-init user data differs from the recorded ${init ? 'initUserData' : 'userData'}`);
      if (init) initUserData = false;
      else userData = false;
    }
    if (expected !== undefined && annotations[USER_DATA_HASH] !== expected) {
      if (init) initUserData = false;
      else userData = false;
    }
    if (secretDigest(network, salt) !== recorded.networkDataHash) {
      drift.push(`${where}: cloud-init network data differs from the recorded networkData`);
      networkData = false;
    }
    if (annotations[NETWORK_DATA_HASH] !== recorded.networkDataHash) networkData = false;
  }
  const inputs: CloudInitReadback['inputs'] = {};
  if (userData && input !== undefined) inputs.userData = input;
  if (networkData && network !== undefined) inputs.networkData = network;
  if (credentials && written !== undefined) inputs.guestCredentials = written;
  if (initUserData && initInput !== undefined) inputs.initUserData = initInput;
  return { inputs, drift };
}

/** What an import takes from the first VM's Secret (nothing recorded to compare with). */
export interface ImportedCloudInit extends CloudInitDigests {
  userData?: string;
  initUserData?: string;
  networkData?: string;
  guestCredentials?: string;
  /** Undefined when the Secret cannot tell (the user data starts the agent itself: both values render the same). */
  guestAgent?: 'install' | 'none';
}

/**
 * importCloudInit reads the secret inputs and their digests from a Secret of the pool, and guestAgent from what
 * was merged in: the rendered data starts qemu-guest-agent while the userData input does not → "install"; the
 * rendered data does not → "none". A Secret without the userData input as written (not made by this provider
 * version) gives no userData, so a program that sets one shows a change rather than a guess.
 */
export function importCloudInit(pool: { namespace: string; name: string }, secret: Secret | undefined, initSecret?: Secret): ImportedCloudInit {
  if (!secret) return {};
  const salt = `${pool.namespace}/${pool.name}`;
  const userData = decoded(secret, USER_DATA_INPUT_KEY);
  const networkData = decoded(secret, 'networkdata');
  const guestCredentials = decoded(secret, GUEST_CREDENTIALS_KEY);
  const rendered = decoded(secret, 'userdata');
  const renderedStarts = guestAgentIn(rendered) === 'yes';
  const guestAgent = !renderedStarts ? 'none' : guestAgentIn(userData) === 'yes' ? undefined : 'install';
  const imported: ImportedCloudInit = {
    userData,
    networkData,
    guestAgent,
    userDataHash: secretDigest(userData, salt),
    networkDataHash: secretDigest(networkData, salt),
    cloudInitHash: secretDigest(rendered, salt),
  };
  // Only a pool wired to credentials has them (older Secrets and other pools: the keys stay absent).
  if (guestCredentials !== undefined) Object.assign(imported, { guestCredentials, guestCredentialsHash: secretDigest(guestCredentials, salt) });
  // The VM made from initUserData holds that input as written, and its rendered form.
  const initUserData = initSecret ? decoded(initSecret, INIT_USER_DATA_INPUT_KEY) : undefined;
  if (initUserData !== undefined) {
    Object.assign(imported, { initUserData, initUserDataHash: secretDigest(initUserData, salt), initCloudInitHash: secretDigest(decoded(initSecret as Secret, 'userdata'), salt) });
  }
  return imported;
}
