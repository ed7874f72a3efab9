/**
 * The HarvesterKeyPair inputs and outputs: the one source of truth (types, check, schema.json, docs).
 * A KeyPair (`harvesterhci.io/v1beta1`, namespaced) holds an SSH public key; Harvester's controller stores its MD5
 * fingerprint and sets condition `validated` once, and a machine pool's `sshKeys[]` names it as "namespace/name"
 * (the resource's id).
 */
import { z } from 'zod';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';
import { connectionInputs } from '../../core/connection-inputs';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** What a machine pool's sshKeys[] accepts as a name (and Kubernetes as an object name). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The HarvesterKeyPair inputs (zod schema). */
export const keyPairSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(253).regex(OBJECT_NAME, { error: 'must be a lower-case DNS name (a-z, 0-9, "-", "."), e.g. "ops-key"' }).meta({ replaceOnChanges: true }).describe(
    'KeyPair name. Default: the resource\'s name. A change replaces the key pair.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').meta({ replaceOnChanges: true }).describe(
    'Namespace of the key pair (it must exist). Default "default". A change replaces the key pair.',
  ),
  publicKey: z.string().meta({ replaceOnChanges: true }).describe(
    'The OpenSSH public key, as one line of a .pub file: "<type> <base64> [comment]" (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/384/521, ssh-dss ' +
      'or a security key). Refused at preview when Harvester would refuse it. Required. A change replaces the key pair (Harvester computes the ' +
      'fingerprint once and never again).',
  ),
  labels: z.record(z.string(), z.string()).default({}).describe('Extra labels on the KeyPair. Default none. A change updates in place.'),
  timeouts: timeoutsInput(
    {
      create: ['1m', 'Until Harvester has validated the key.'],
      update: ['1m', 'Until the key pair is validated again.'],
      delete: ['1m', 'Until the key pair is gone.'],
    },
    'Bounds of every wait. Default 1m each.',
  ),
});

export type KeyPairInputs = z.output<typeof keyPairSchema>;
export type KeyPairArgs = z.input<typeof keyPairSchema>;

/** The HarvesterKeyPair outputs: the inputs (defaults applied) plus what Harvester recorded. */
export const keyPairOutputsSchema = keyPairSchema.extend({
  fingerprint: z.string().describe('MD5 fingerprint Harvester computed ("aa:bb:…", 16 bytes), as `ssh-keygen -l -E md5` shows it.'),
  validated: z.boolean().describe('Harvester\'s `validated` condition is True (a machine pool takes only validated key pairs).'),
  message: z.string().describe('The `validated` condition\'s reason when it is not True (empty when validated).'),
  drift: z.array(z.string()).describe('Differences found by the last read between the live key pair and the recorded inputs.'),
});
export type KeyPairOutputs = z.output<typeof keyPairOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(keyPairSchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(keyPairSchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(keyPairOutputsSchema.shape).filter((k) => !(k in keyPairSchema.shape));
