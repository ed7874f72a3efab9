/**
 * Pure KeyPair planning: the desired object, the live key pair read back in the inputs' own shape (so a refresh
 * shows an out-of-band edit per property), the drift lines and the wait's verdict.
 */
import type { CheckResult as WaitVerdict } from '../../await';
import type { KeyPair } from '../../client/objects';
import { stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { userEntries } from '../../core/labels';
import type { KeyPairInputs, KeyPairOutputs } from './model';

export const RESOURCE_TYPE = 'key-pair';
export const API_VERSION = 'harvesterhci.io/v1beta1';

/** The owner identity, by name as the load balancer's (the namespace is the object's own). */
export function keyPairOwner(inputs: Pick<KeyPairInputs, 'name'>): OwnerIdentity {
  return { resourceType: RESOURCE_TYPE, resourceName: inputs.name };
}

/** The resource's id: what a machine pool's sshKeys[] takes. */
export const keyPairId = (inputs: Pick<KeyPairInputs, 'namespace' | 'name'>) => `${inputs.namespace}/${inputs.name}`;

/** The object we write: the key, the user's labels and our ownership labels. */
export function desiredKeyPair(inputs: KeyPairInputs): KeyPair {
  const object: KeyPair = { apiVersion: API_VERSION, kind: 'KeyPair', metadata: { name: inputs.name, namespace: inputs.namespace, labels: { ...inputs.labels } }, spec: { publicKey: inputs.publicKey } };
  return stampOwnership(object, keyPairOwner(inputs));
}

/** The live key pair as inputs: its key and its labels other than Harvester's, Kubernetes' and ours. */
export function liveInputs(kp: KeyPair): Pick<KeyPairInputs, 'publicKey' | 'labels'> {
  return { publicKey: kp.spec?.publicKey ?? '', labels: userEntries(kp.metadata.labels) };
}

/** The wait's verdict: done once validated=True; a validated=False is final (Harvester never parses it again). */
export function validation(id: string, kp: KeyPair | undefined): WaitVerdict {
  const validated = kp?.status?.conditions?.find((c) => c.type === 'validated');
  if (validated?.status === 'True') return { done: true, description: `KeyPair ${id} is validated` };
  if (validated?.status === 'False') {
    return { done: false, description: `KeyPair ${id} was not validated`, error: new Error(`Harvester did not validate KeyPair ${id}: ${validated.reason ?? validated.message ?? 'no reason given'}`) };
  }
  return { done: false, description: `KeyPair ${id}: waiting for Harvester's key pair controller`, pending: ['validated condition'] };
}

/** Outputs from inputs and the live key pair. */
export function toOutputs(inputs: KeyPairInputs, live: KeyPair, drift: string[] = []): KeyPairOutputs {
  const validated = live.status?.conditions?.find((c) => c.type === 'validated');
  return {
    ...inputs,
    fingerprint: live.status?.fingerPrint ?? '',
    validated: validated?.status === 'True',
    message: validated?.status === 'True' ? '' : (validated?.reason ?? validated?.message ?? 'not validated yet'),
    drift,
  };
}
