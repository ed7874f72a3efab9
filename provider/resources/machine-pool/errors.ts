/**
 * The machine pool's user-facing problems, each: what failed on which object → why (observed value) →
 * the fix. Cluster checks return CheckFailures (reported by `check` at preview, all at once); runtime
 * problems are ProviderErrors with a CamelCase code.
 */
import { ProviderError } from '../../core/errors';
import type { CheckFailure } from '../../core/types';
import { failure } from '../../core/input-errors';


/** namespaceMissing: the pool's namespace does not exist. */
export function namespaceMissing(namespace: string): CheckFailure {
  return failure('namespace', `Namespace ${namespace} does not exist on the Harvester cluster. Create it first, or set namespace to an existing one.`);
}

/** imageMissing: a disk's image does not exist. */
export function imageMissing(property: string, ref: string): CheckFailure {
  return failure(property, `VirtualMachineImage ${ref} does not exist. Upload or download the cloud image in Harvester (Images), or fix the name ("name" in the pool namespace, or "namespace/name").`);
}

/**
 * imageIsIso: an ISO installer image. The node driver supports cloud images only (harvester/docs
 * node-driver.md; rancher/docs#3889): an ISO boots an interactive installer, cloud-init never runs.
 */
export function imageIsIso(property: string, ref: string, evidence: string): CheckFailure {
  return failure(
    property,
    `Image ${ref} is an ISO installer (${evidence}). Machine pools boot cloud images configured by cloud-init, as the Harvester node driver does. ` +
      `Use a cloud image (e.g. a *-cloudimg-amd64.img or .qcow2) and set ${property} to its namespace/name.`,
  );
}

/** imageNotReady: the image exists but is not imported yet (or failed). */
export function imageNotReady(property: string, ref: string, state: string): CheckFailure {
  return failure(property, `Image ${ref} is not ready (${state}). Wait for the import to finish in Harvester (Images), or fix the image, then run again.`);
}

/** diskTooSmall: a disk is smaller than its image's virtual size. */
export function diskTooSmall(property: string, ref: string, size: string, imageSize: string): CheckFailure {
  return failure(property, `is ${size}, smaller than image ${ref} (virtual size ${imageSize}). Set it to at least ${imageSize}.`);
}

/** networkMissing: a VM network does not exist. */
export function networkMissing(property: string, ref: string): CheckFailure {
  return failure(property, `VM network (NetworkAttachmentDefinition) ${ref} does not exist. Create it in Harvester (Networks → VM Networks), or fix the name.`);
}

/** clusterNetworkUnreachable: no host is attached to the cluster network a VM network runs on. */
export function clusterNetworkUnreachable(property: string, ref: string, clusterNetwork: string): CheckFailure {
  return failure(
    property,
    `VM network ${ref} runs on cluster network "${clusterNetwork}", but no Harvester host carries the label ` +
      `network.harvesterhci.io/${clusterNetwork}=true, so its VMs could never be scheduled. Attach hosts to "${clusterNetwork}" ` +
      '(Networks → Cluster Networks → Network Configs), or use a VM network of a cluster network the hosts have.',
  );
}

/** keyPairMissing: a key pair does not exist. */
export function keyPairMissing(property: string, ref: string): CheckFailure {
  return failure(property, `KeyPair ${ref} does not exist. Create it in Harvester (Advanced → SSH Keys), or fix the name.`);
}

/** keyPairNotValidated: the key pair is not validated (the node driver refuses those too). */
export function keyPairNotValidated(property: string, ref: string): CheckFailure {
  return failure(property, `KeyPair ${ref} is not validated by Harvester (condition validated is not True), so its public key cannot be trusted. Fix its spec.publicKey (an OpenSSH public key).`);
}

/** zoneMissing: no host carries the zone. */
export function zoneMissing(property: string, zone: string, known: string[]): CheckFailure {
  const list = known.length ? `zones on hosts: ${known.join(', ')}` : 'no host has a topology.kubernetes.io/zone label';
  return failure(property, `no Harvester host is in zone "${zone}" (${list}), so a VM pinned there could never be scheduled. Use one of the hosts' zones, or label hosts with topology.kubernetes.io/zone.`);
}

/** What a name-holding object shows of its owner: labels with values, annotations by key only (values may be secret). */
export interface NameHolder {
  kind: 'VirtualMachine' | 'Secret' | 'PersistentVolumeClaim';
  namespace: string;
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const KUBECTL_RESOURCE: Record<NameHolder['kind'], string> = { VirtualMachine: 'virtualmachine', Secret: 'secret', PersistentVolumeClaim: 'pvc' };
const ROLE: Record<NameHolder['kind'], string> = {
  VirtualMachine: 'its VM of that name',
  Secret: 'the cloud-init Secret of that name, which its VM would boot from',
  PersistentVolumeClaim: 'the disk of that name',
};

/**
 * nameTaken: an object the pool will create already exists and is not this pool's. Says which object, who
 * holds it (labels; annotation keys only), and the two ways out: delete it, or import it into the pool.
 */
export function nameTaken(holder: NameHolder, pool: string, ownership: Record<string, string>): CheckFailure {
  const ref = `${holder.namespace}/${holder.name}`;
  const labels = Object.entries(holder.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  const annotations = Object.keys(holder.annotations ?? {}).filter((k) => k !== 'kubectl.kubernetes.io/last-applied-configuration');
  const who = [
    labels.length ? `labels ${labels.join(', ')}` : 'no labels',
    annotations.length ? `annotations ${annotations.join(', ')}` : 'no annotations',
  ].join('; ');
  const resource = KUBECTL_RESOURCE[holder.kind];
  const label = Object.entries(ownership).map(([k, v]) => `${k}=${v}`).join(' ');
  return failure(
    'name',
    `${holder.kind} ${ref} already exists and is not managed by machine pool ${pool} (${who}; it lacks the pool's ownership labels), ` +
      `so the pool cannot create ${ROLE[holder.kind]}; nothing was created. Either delete it if nothing needs it ` +
      `(kubectl delete ${resource} -n ${holder.namespace} ${holder.name}), or import it into the pool by giving it the pool's ` +
      `ownership labels (kubectl label ${resource} -n ${holder.namespace} ${holder.name} ${label}), after which the pool manages it.`,
  );
}


/** Facts a readiness timeout reports about one VM. */
export interface NotReadyMachine {
  name: string;
  phase: string;
  host?: string;
  /** Why it is not ready, as the readiness check describes it. */
  waitingFor: string;
  /** Running, but no IPv4 address. */
  runningWithoutIp: boolean;
}

/**
 * readyTimeout: VMs did not become Running with an IPv4 address in time. A Running VM without an address
 * almost always means qemu-guest-agent is not running in the guest (harvester/harvester#7018): the
 * message says so, and what to do depending on whether the pool installs the agent.
 */
export function readyTimeout(pool: string, timeout: string, option: string, machines: NotReadyMachine[], guestAgent: 'install' | 'none', agentInUserData: 'yes' | 'no' | 'unknown'): ProviderError {
  const lines = machines.map((m) => `VirtualMachine ${m.name}: ${m.waitingFor} (phase ${m.phase}${m.host ? ` on ${m.host}` : ''})`);
  const noIp = machines.some((m) => m.runningWithoutIp);
  let fix: string;
  if (noIp && guestAgent === 'none' && agentInUserData !== 'yes') {
    fix = 'These VMs run but report no IP address: Harvester learns a bridged VM\'s address only from qemu-guest-agent, and guestAgent is "none" while the user data does not install and start qemu-guest-agent. ' +
      'Set guestAgent to "install" (the default), or add qemu-guest-agent to packages and `systemctl enable --now qemu-guest-agent.service` to runcmd.';
  } else if (noIp) {
    fix = 'These VMs run but report no IP address: Harvester learns it only from qemu-guest-agent. Check that the image can install qemu-guest-agent (package mirror reachable, or pre-baked in the image) ' +
      'and that the VM network gives the VM an address (DHCP on the VLAN, or networkData).';
  } else {
    fix = `Check the VMs' events in Harvester (scheduling, image, storage), or raise timeouts.${option}.`;
  }
  return new ProviderError('WaitTimeout', `Machine pool ${pool} was not ready within ${timeout}:\n${lines.map((l) => `  - ${l}`).join('\n')}`, {
    object: `MachinePool ${pool}`,
    fix: `${fix} The wait can be raised with timeouts.${option}.`,
  });
}
