/**
 * Calls the ClusterNetwork / VlanConfig webhooks (emulator/webhooks/cluster-network.ts) directly, in process, on
 * a fixed set of stored objects: exact outcomes and messages without a running simulation. The rules and
 * messages are upstream's (docs/design/harvester-networks.md §"ClusterNetwork rules", §"VlanConfig rules").
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject, StoreReader } from '../../emulator/api/types';
import { harvesterKinds, HarvesterKinds } from '../../emulator/controllers/kinds';
import { createHarvesterRegistry } from '../../emulator/kinds';
import { clusterNetworkWebhooks } from '../../emulator/webhooks/cluster-network';
import { expectStatusError } from './harvester-fixture';

export const kinds: HarvesterKinds = harvesterKinds(createHarvesterRegistry());
const [mutatorHook, cnValidatorHook, vcValidatorHook] = clusterNetworkWebhooks(kinds);

export const CN_LABEL = 'network.harvesterhci.io/clusternetwork';
export const MATCHED = 'network.harvesterhci.io/matched-nodes';
export const UPLINK_MTU = 'network.harvesterhci.io/uplink-mtu';
export const CONTROLLER = 'system:serviceaccount:harvester-system:harvester-network-controller';
const DENIED = 'admission webhook "validator.harvester-system.harvester-network-webhook" denied the request: Internal error occurred: ';
const DELETED_AT = '2026-01-01T00:00:00Z';

/** What the store holds when the webhook runs. */
export interface Stored { cns?: KubeObject[]; vcs?: KubeObject[]; nads?: KubeObject[]; vmis?: KubeObject[]; nodes?: KubeObject[] }

function readerOf(stored: Stored): StoreReader {
  const byKind = new Map<unknown, KubeObject[]>([
    [kinds.clusterNetwork, stored.cns ?? []],
    [kinds.vlanConfig, stored.vcs ?? []],
    [kinds.nad, stored.nads ?? []],
    [kinds.vmi, stored.vmis ?? []],
    [kinds.node, stored.nodes ?? []],
  ]);
  const list = (kind: unknown) => ({ items: byKind.get(kind) ?? [], resourceVersion: '1' });
  return {
    get: (kind, ns, name) => (byKind.get(kind) ?? []).find((o) => o.metadata.name === name && o.metadata.namespace === ns),
    list,
    listShared: list,
  };
}

export type Req = Pick<AdmissionRequest, 'operation'> & Partial<Omit<AdmissionRequest, 'operation' | 'store'>>;
const request = (req: Req, stored: Stored): AdmissionRequest => ({ dryRun: false, kind: kinds.vlanConfig, ...req, store: readerOf(stored) });

export const validateCn = (req: Req, stored: Stored = {}): void => cnValidatorHook.validate!(request({ kind: kinds.clusterNetwork, ...req }, stored));
export const validateVc = (req: Req, stored: Stored = {}): void => vcValidatorHook.validate!(request(req, stored));
/** Runs the VlanConfig mutator and returns the (mutated) object. */
export function mutateVc(req: Req, stored: Stored = {}): KubeObject {
  const r = request(req, stored);
  mutatorHook.mutate!(r);
  return r.object!;
}

/** The network webhook's 500 for `fn`; returns the text after `Internal error occurred: `. */
export function denial(fn: () => unknown): string {
  const err = expectStatusError(fn);
  const message = err.status.message ?? '';
  assert.equal(err.status.code, 500, message);
  assert.ok(message.startsWith(DENIED), message);
  return message.slice(DENIED.length);
}

export const deleting = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: DELETED_AT } });

export function cn(name: string, mtu?: string): KubeObject {
  return { apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name, annotations: mtu === undefined ? undefined : { [UPLINK_MTU]: mtu } } };
}

export interface VcOptions {
  mtu?: number;
  /** The clusternetwork label; `null` for none; the spec's cluster network when left out. */
  label?: string | null;
  matched?: string[];
  nodeSelector?: Record<string, string>;
}

export function vc(name: string, clusterNetwork: string, o: VcOptions = {}): KubeObject {
  const label = o.label === undefined ? clusterNetwork : o.label;
  return {
    apiVersion: 'network.harvesterhci.io/v1beta1',
    kind: 'VlanConfig',
    metadata: {
      name,
      labels: label === null ? undefined : { [CN_LABEL]: label },
      annotations: o.matched ? { [MATCHED]: JSON.stringify(o.matched) } : undefined,
    },
    spec: { clusterNetwork, nodeSelector: o.nodeSelector ?? {}, uplink: { nics: ['eth1'], linkAttributes: { mtu: o.mtu ?? 1500 } } },
  };
}

export function nad(ns: string, name: string, clusterNetwork: string): KubeObject {
  return {
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: { name, namespace: ns, labels: { [CN_LABEL]: clusterNetwork } },
    spec: { config: JSON.stringify({ cniVersion: '0.3.1', type: 'bridge', bridge: `${clusterNetwork}-br`, vlan: 100 }) },
  };
}

/** A VMI on `nodeName` (none: not scheduled yet) whose multus network is `network` (`ns/name`). */
export function vmi(ns: string, name: string, network: string, nodeName?: string): KubeObject {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: ns },
    spec: { networks: [{ name: 'nic-1', multus: { networkName: network } }] },
    status: nodeName === undefined ? {} : { nodeName },
  };
}

export const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } } });
