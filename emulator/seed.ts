/**
 * Seed data of the simulated Harvester: what a freshly installed 3-node Harvester v1.6 cluster with a few
 * images, a VLAN VM network and an SSH key pair holds. Everything is written through the store (so watchers
 * and webhooks see it) and already in its settled state (nodes Ready, images Imported, key pair validated).
 * Seeding is idempotent: objects that already exist are left alone.
 *
 * Defaults: namespaces default, kube-system, harvester-public; hosts harvester-node-0..2 in region us-east,
 * zones us-east-1a/1b/1c; images default/ubuntu-22.04-server-cloudimg (.img), default/opensuse-leap-15.6
 * (.qcow2), default/ubuntu-24.04-live-server (.iso) with legacy `longhorn-<name>` storage classes; VM
 * network default/vm-net (VLAN 100, 172.16.100.0/24); key pair default/ops-key; settings server-version,
 * overcommit-config, default-vm-termination-grace-period-seconds; the bootstrap RBAC roles and Harvester's
 * harvesterhci.io:cloudprovider / harvesterhci.io:csi-driver ClusterRoles (rbac/seed-roles.ts). No IPPool unless `ipPools` asks for one —
 * LoadBalancers with ipam pool then stay Ready=False "no matched IPPool" until a pool is created.
 */
import { createHash } from 'node:crypto';
import { StatusError } from './api/errors';
import { KindInfo, KubeObject, Store } from './api/types';
import { harvesterKinds, HarvesterKinds } from './controllers/kinds';
import { ANN_NETWORK_ROUTE, LABEL_CLUSTER_NETWORK, LABEL_IMAGE_DISPLAY_NAME, LABEL_VLAN_ID } from './util/names';
import { LONGHORN_DEFAULT_PARAMETERS, longhornStorageClass, RESERVED_STORAGE_CLASS } from './controllers/image-stages';
import { clone, timestamp, writeChanges } from './util/objects';
import { hostNode, hostSystemPod, SeedNode } from './seed-hosts';
import { settingProblem } from './webhooks/setting';
import { OVERCOMMIT_SETTING, OVERHEAD_RATIO_DEFAULT, OVERHEAD_RATIO_SETTING, overcommitDefault } from './controllers/overcommit';
import { ANN_GUEST_AGENT_PREINSTALLED } from './controllers/guest-agent';
import { seedClusterRoleBindings, seedClusterRoles } from './rbac/seed-roles';
import { ed25519PublicKeyLine, legacyMd5Fingerprint, parseAuthorizedKey } from './controllers/ssh-public-key';

/** An image to seed (already Imported). */
export interface SeedImage {
  namespace: string;
  name: string;
  displayName: string;
  url: string;
  /** @default `longhorn-<name>` (the legacy naming seeded images keep) */
  storageClassName?: string;
  /** Bytes. */
  size?: number;
  virtualSize?: number;
  /**
   * The image's guest runs qemu-guest-agent without cloud-init installing it (emulator-only marker: the
   * annotation emulator.harvester-iac.io/guest-agent-preinstalled, see controllers/guest-agent.ts).
   */
  guestAgentPreinstalled?: boolean;
}

/** A VLAN VM network (NetworkAttachmentDefinition) to seed. */
export interface SeedNetwork {
  namespace: string;
  name: string;
  vlan: number;
  /** Address block recorded in `network.harvesterhci.io/route` (VM IPs come from it). */
  cidr: string;
  gateway: string;
  /** @default mgmt */
  clusterNetwork?: string;
}

/** A key pair to seed (validated). */
export interface SeedKeyPair {
  namespace: string;
  name: string;
  publicKey: string;
}

/** What seedHarvester writes; every field replaces its default. */
export interface SeedOptions {
  namespaces?: string[];
  nodes?: SeedNode[];
  images?: SeedImage[];
  networks?: SeedNetwork[];
  keyPairs?: SeedKeyPair[];
  /** IPPool objects (loadbalancer.harvesterhci.io/v1beta1) to create; none by default. */
  ipPools?: KubeObject[];
  /**
   * Harvester settings by name: each becomes the Setting's `value` (what an administrator set). Settings with a
   * code default (`overcommit-config`, `additional-guest-memory-overhead-ratio`,
   * `default-vm-termination-grace-period-seconds`) are seeded with that `default` and no value unless given
   * here; `overcommit-config`'s default follows `serverVersion` (1600/150/200 before v1.8, 1000/150/100 from
   * v1.8; an upgraded v1.8 cluster keeps `{"cpu":1600,"memory":150,"storage":200}` as its value).
   */
  settings?: Record<string, string>;
  /** The Setting `server-version`. @default v1.6.1 */
  serverVersion?: string;
}

export type { SeedNode } from './seed-hosts';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/** The public key of the seeded `default/ops-key` (a fixed, syntactically valid ed25519 key). */
export const OPS_KEY_PUBLIC = ed25519PublicKeyLine(createHash('sha256').update('harvester-iac/ops-key').digest(), 'ops@harvester-iac');

/** Sizes of the seeded hosts (EmulatorOptions.hosts, the CLI's --hosts/--host-* flags). */
export interface HostSizing {
  /** How many hosts (harvester-node-0…, zones us-east-1a/1b/1c in turn). @default 3 */
  count?: number;
  /** Cores per host. @default "64" */
  cpu?: string;
  /** Memory per host. @default "1056561152Ki" */
  memory?: string;
  /** Max pods per host. @default 200 */
  pods?: number;
  /** Requests of each host's system pods, null for none. @default { cpu: "1360m", memory: "2240Mi" } */
  systemRequests?: { cpu?: string; memory?: string } | null;
}

/** The default hosts, sized as asked. */
export function seedHosts(sizing: HostSizing = {}): SeedNode[] {
  const { count = 3, ...size } = sizing;
  return [...Array(count).keys()].map((i) => ({ name: `harvester-node-${i}`, region: 'us-east', zone: ZONES[i % ZONES.length], address: `10.0.${Math.floor(i / 90)}.${10 + (i % 90)}`, ...size }));
}

/** The default seed content. */
export function defaultSeed(): Required<SeedOptions> {
  return {
    namespaces: ['default', 'kube-system', 'harvester-public'],
    nodes: seedHosts(),
    images: [
      {
        namespace: 'default',
        name: 'ubuntu-22.04-server-cloudimg',
        displayName: 'ubuntu-22.04-server-cloudimg-amd64.img',
        url: 'https://cloud-images.ubuntu.com/releases/22.04/release/ubuntu-22.04-server-cloudimg-amd64.img',
        size: 667_156_480,
        virtualSize: 2_361_393_152,
      },
      {
        namespace: 'default',
        name: 'opensuse-leap-15.6',
        displayName: 'openSUSE-Leap-15.6.x86_64-NoCloud.qcow2',
        url: 'https://download.opensuse.org/repositories/Cloud:/Images:/Leap_15.6/images/openSUSE-Leap-15.6.x86_64-NoCloud.qcow2',
        size: 637_534_208,
        virtualSize: 25_769_803_776,
      },
      {
        namespace: 'default',
        name: 'ubuntu-24.04-live-server',
        displayName: 'ubuntu-24.04.1-live-server-amd64.iso',
        url: 'https://releases.ubuntu.com/24.04/ubuntu-24.04.1-live-server-amd64.iso',
        size: 2_773_874_688,
        virtualSize: 2_773_874_688,
      },
    ],
    networks: [{ namespace: 'default', name: 'vm-net', vlan: 100, cidr: '172.16.100.0/24', gateway: '172.16.100.1' }],
    keyPairs: [{ namespace: 'default', name: 'ops-key', publicKey: OPS_KEY_PUBLIC }],
    ipPools: [],
    settings: {},
    serverVersion: 'v1.6.1',
  };
}

function createOrKeep(store: Store, kind: KindInfo, object: KubeObject): KubeObject {
  const existing = store.get(kind, object.metadata.namespace, String(object.metadata.name));
  if (existing) return existing;
  try {
    return store.create(kind, object, { fieldManager: 'harvester-seed' });
  } catch (err) {
    if (err instanceof StatusError && err.code === 409) return store.get(kind, object.metadata.namespace, String(object.metadata.name))!;
    throw err;
  }
}

/** Create `object` if missing, then make its status match (seeded objects start settled). */
function seedWithStatus(store: Store, kind: KindInfo, object: KubeObject): KubeObject {
  const { status, ...rest } = object;
  const stored = createOrKeep(store, kind, rest as KubeObject);
  if (!status || stored.status) return stored;
  return writeChanges(store, kind, stored, { ...clone(stored), status: clone(status) }, { fieldManager: 'harvester-seed' });
}

function seedImages(store: Store, kinds: HarvesterKinds, images: SeedImage[], now: string): void {
  for (const image of images) {
    const scName = image.storageClassName ?? `longhorn-${image.name}`;
    if (kinds.storageClass) {
      const parameters = { backingImage: `${image.namespace}-${image.name}`, ...LONGHORN_DEFAULT_PARAMETERS };
      createOrKeep(store, kinds.storageClass, longhornStorageClass(scName, parameters, RESERVED_STORAGE_CLASS));
    }
    const condition = (type: string) => ({ type, status: 'True', lastUpdateTime: now });
    seedWithStatus(store, kinds.image, {
      apiVersion: 'harvesterhci.io/v1beta1',
      kind: 'VirtualMachineImage',
      metadata: {
        name: image.name,
        namespace: image.namespace,
        labels: { [LABEL_IMAGE_DISPLAY_NAME]: image.displayName },
        ...(image.guestAgentPreinstalled ? { annotations: { [ANN_GUEST_AGENT_PREINSTALLED]: 'true' } } : {}),
      },
      spec: { displayName: image.displayName, sourceType: 'download', url: image.url, backend: 'backingimage', retry: 3 },
      status: {
        appliedUrl: image.url,
        progress: 100,
        failed: 0,
        size: image.size ?? 600 * 2 ** 20,
        virtualSize: image.virtualSize ?? 10 * 2 ** 30,
        storageClassName: scName,
        conditions: [condition('Initialized'), condition('Imported')],
      },
    });
  }
}

/**
 * Writes the seed into a Harvester store (registry from createHarvesterRegistry()). Safe to call before or
 * after installHarvester, and more than once.
 */
export function seedHarvester(store: Store, seed: SeedOptions = {}): void {
  const kinds = harvesterKinds(store.registry);
  const s = { ...defaultSeed(), ...seed };
  const now = timestamp(new Date());
  for (const ns of s.namespaces) createOrKeep(store, kinds.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

  if (kinds.storageClass) {
    const annotations = { 'storageclass.kubernetes.io/is-default-class': 'true' };
    createOrKeep(store, kinds.storageClass, longhornStorageClass('harvester-longhorn', { ...LONGHORN_DEFAULT_PARAMETERS }, annotations));
  }
  // Settings with a code default carry it in `default`; a value only where one was set (Harvester's layout).
  const defaults: Record<string, string> = {
    [OVERCOMMIT_SETTING]: overcommitDefault(s.serverVersion),
    [OVERHEAD_RATIO_SETTING]: OVERHEAD_RATIO_DEFAULT,
    'default-vm-termination-grace-period-seconds': '120',
  };
  const given: Record<string, string> = { 'server-version': s.serverVersion, ...s.settings };
  for (const [name, value] of Object.entries(given)) {
    const problem = settingProblem(name, value);
    if (problem) throw new Error(`seed setting ${name} is refused by Harvester's setting validator: ${problem}`);
  }
  for (const name of new Set([...Object.keys(defaults), ...Object.keys(given)])) {
    const setting: KubeObject = { apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name }, default: defaults[name] ?? given[name] };
    if (given[name] !== undefined) setting.value = given[name];
    createOrKeep(store, kinds.setting, setting);
  }
  for (const node of s.nodes) {
    seedWithStatus(store, kinds.node, hostNode(node, now));
    const system = hostSystemPod(node, now);
    if (system && s.namespaces.includes('kube-system')) seedWithStatus(store, kinds.pod, system);
  }
  // Cluster networks the seeded VM networks ride on: `mgmt` always (Harvester creates it at startup, ready),
  // others as if a VlanConfig attached every host (their node labels come with nodeObject for mgmt only).
  const clusterNetworks = new Set(['mgmt', ...s.networks.map((n) => n.clusterNetwork ?? 'mgmt')]);
  for (const cn of clusterNetworks) {
    seedWithStatus(store, kinds.clusterNetwork, {
      apiVersion: 'network.harvesterhci.io/v1beta1',
      kind: 'ClusterNetwork',
      metadata: { name: cn },
      status: { conditions: [{ type: 'ready', status: 'True', lastUpdateTime: now }] },
    });
  }
  for (const net of s.networks) {
    const route = { mode: 'auto', serverIPAddr: '', cidr: net.cidr, gateway: net.gateway, connectivity: 'true' };
    const config = { cniVersion: '0.3.1', name: net.name, type: 'bridge', bridge: `${net.clusterNetwork ?? 'mgmt'}-br`, promiscMode: true, vlan: net.vlan, ipam: {} };
    createOrKeep(store, kinds.nad, {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: net.name,
        namespace: net.namespace,
        labels: {
          [LABEL_VLAN_ID]: String(net.vlan),
          [LABEL_CLUSTER_NETWORK]: net.clusterNetwork ?? 'mgmt',
          'network.harvesterhci.io/type': 'L2VlanNetwork',
          'network.harvesterhci.io/ready': 'true',
        },
        annotations: { [ANN_NETWORK_ROUTE]: JSON.stringify(route) },
      },
      spec: { config: JSON.stringify(config) },
    });
  }
  seedImages(store, kinds, s.images, now);
  for (const kp of s.keyPairs) {
    const parsed = parseAuthorizedKey(kp.publicKey);
    seedWithStatus(store, kinds.keyPair, {
      apiVersion: 'harvesterhci.io/v1beta1',
      kind: 'KeyPair',
      metadata: { name: kp.name, namespace: kp.namespace },
      spec: { publicKey: kp.publicKey },
      status: {
        fingerPrint: parsed ? legacyMd5Fingerprint(parsed.blob) : '',
        conditions: [{ type: 'validated', status: parsed ? 'True' : 'False', lastUpdateTime: now }],
      },
    });
  }
  for (const pool of s.ipPools) createOrKeep(store, kinds.ipPool, clone(pool));
  seedRbac(store);
}

/** Kubernetes' bootstrap roles and Harvester's guest-cluster roles, when the registry serves RBAC. */
function seedRbac(store: Store): void {
  const clusterRole = store.registry.byKind('rbac.authorization.k8s.io/v1', 'ClusterRole');
  const clusterRoleBinding = store.registry.byKind('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding');
  if (clusterRole) for (const role of seedClusterRoles()) createOrKeep(store, clusterRole, role);
  if (clusterRoleBinding) for (const binding of seedClusterRoleBindings()) createOrKeep(store, clusterRoleBinding, binding);
}
