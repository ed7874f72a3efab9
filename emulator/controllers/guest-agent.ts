/**
 * Will this guest run qemu-guest-agent? Bridge-bound Multus NICs only learn their IP from the agent
 * (docs/design/harvester-vms.md §"Readiness"), and the node driver stopped injecting it in v0.6.3
 * (docs/design/harvester-vms.md §"Cloud-init"), so
 * the simulated guest reports an IP only when its cloud-init user data is a `#cloud-config` that both
 * installs the package (`packages`) and starts the service (`runcmd`: `systemctl enable --now …` or
 * `systemctl start …`, string or list form) — the docs' snippet. The YAML is parsed, not grepped.
 *
 * Or when its boot image already runs the agent. Neither Harvester nor the node driver records that about an
 * image (a real cluster cannot know what is inside a qcow2), so this is the emulator's own marker of the
 * image's contents: the annotation `emulator.harvester-iac.io/guest-agent-preinstalled: "true"` on the
 * VirtualMachineImage (seed option `guestAgentPreinstalled`), found through the VMI's PVCs'
 * `harvesterhci.io/imageId`.
 */
import { parse } from 'yaml';
import { KindInfo, KubeObject, StoreReader } from '../api/types';
import type { HarvesterKinds } from './kinds';
import { field, specOf } from '../util/objects';

const AGENT = 'qemu-guest-agent';
const AGENT_UNITS = new Set([AGENT, `${AGENT}.service`]);

function decodeBase64(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}

/**
 * The cloud-init user data of a VMI spec (inline `userData`/`userDataBase64`, or `secretRef` → Secret key
 * `userdata`), or undefined when there is none or the Secret is missing.
 */
export function userDataOf(
  podSpec: Record<string, unknown>,
  namespace: string,
  store: StoreReader,
  secretKind: KindInfo,
): string | undefined {
  const volumes = (podSpec.volumes as Record<string, unknown>[] | undefined) ?? [];
  for (const volume of volumes) {
    const source = (volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive) as Record<string, unknown> | undefined;
    if (!source) continue;
    if (typeof source.userData === 'string') return source.userData;
    if (typeof source.userDataBase64 === 'string') return decodeBase64(source.userDataBase64);
    const secretName = field<string>(source, 'secretRef', 'name');
    if (secretName) {
      const secret = store.get(secretKind, namespace, secretName);
      // The store already turned any stringData into base64 data, as the apiserver does.
      const data = field<string>(secret, 'data', 'userdata');
      return typeof data === 'string' ? decodeBase64(data) : undefined;
    }
  }
  return undefined;
}

function installsPackage(packages: unknown): boolean {
  if (!Array.isArray(packages)) return false;
  // Entries are names, or [name, version] pairs.
  return packages.some((p) => p === AGENT || (Array.isArray(p) && p[0] === AGENT));
}

function splitShell(command: string): string[][] {
  return command
    .split(/&&|\|\||;|\n/)
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0);
}

function startsAgent(words: string[]): boolean {
  const args = words[0] === 'sudo' ? words.slice(1) : words;
  if (args.length === 0 || !/(^|\/)systemctl$/.test(args[0])) return false;
  const unitNamed = args.some((a) => AGENT_UNITS.has(a.replace(/^['"]|['"]$/g, '')));
  if (!unitNamed) return false;
  const verbs = args.slice(1).map((a) => a.replace(/^['"]|['"]$/g, ''));
  return verbs.includes('start') || verbs.includes('restart') || (verbs.includes('enable') && verbs.includes('--now'));
}

function runsAgent(runcmd: unknown): boolean {
  if (!Array.isArray(runcmd)) return false;
  return runcmd.some((entry) => {
    if (typeof entry === 'string') return splitShell(entry).some(startsAgent);
    if (Array.isArray(entry)) return startsAgent(entry.map(String));
    return false;
  });
}

/** True when the user data is a #cloud-config that installs and starts qemu-guest-agent. */
export function cloudConfigRunsGuestAgent(userData: string | undefined): boolean {
  if (!userData) return false;
  let text = userData.replace(/^\uFEFF/, '');
  // The node driver keeps a leading jinja template header in front of #cloud-config (docs/design/harvester-vms.md
  // §"Cloud-init").
  if (text.startsWith('## template: jinja')) text = text.slice(text.indexOf('\n') + 1);
  if (!/^#cloud-config[ \t]*(\r?\n|$)/.test(text)) return false;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return false;
  }
  if (!doc || typeof doc !== 'object') return false;
  const config = doc as Record<string, unknown>;
  return installsPackage(config.packages) && runsAgent(config.runcmd);
}

/** The emulator's marker of an image whose guest runs qemu-guest-agent out of the box (see the header). */
export const ANN_GUEST_AGENT_PREINSTALLED = 'emulator.harvester-iac.io/guest-agent-preinstalled';
const ANN_IMAGE_ID = 'harvesterhci.io/imageId';

/** The images the VMI's disks were made from (through their PVCs' `harvesterhci.io/imageId`). */
export function imagesOfVmi(vmi: KubeObject, store: StoreReader, kinds: HarvesterKinds): KubeObject[] {
  const namespace = String(vmi.metadata.namespace);
  const volumes = (specOf(vmi).volumes as Record<string, unknown>[] | undefined) ?? [];
  return volumes.flatMap((volume) => {
    const claim = field<string>(volume, 'persistentVolumeClaim', 'claimName');
    const imageId = claim ? store.get(kinds.pvc, namespace, claim)?.metadata.annotations?.[ANN_IMAGE_ID] : undefined;
    if (!imageId || !imageId.includes('/')) return [];
    const [ins, iname] = imageId.split('/', 2);
    const image = store.get(kinds.image, ins, iname);
    return image ? [image] : [];
  });
}

/** True when a disk of the VMI was made from an image marked as running the agent. */
function bootsAgentImage(vmi: KubeObject, store: StoreReader, kinds: HarvesterKinds): boolean {
  return imagesOfVmi(vmi, store, kinds).some((image) => image.metadata.annotations?.[ANN_GUEST_AGENT_PREINSTALLED] === 'true');
}

/** Whether the VMI's guest will report an IP through the agent. */
export function vmiRunsGuestAgent(vmi: KubeObject, store: StoreReader, kinds: HarvesterKinds): boolean {
  return cloudConfigRunsGuestAgent(userDataOf(specOf(vmi), String(vmi.metadata.namespace), store, kinds.secret)) || bootsAgentImage(vmi, store, kinds);
}
