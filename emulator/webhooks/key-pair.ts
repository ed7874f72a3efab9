/**
 * Harvester's KeyPair validator (harvester pkg/webhook/resources/keypair/validator.go): on create and update
 * `spec.publicKey` must be present ("public key is required") and parse as ssh.ParseAuthorizedKey parses it
 * (controllers/ssh-public-key.ts: "key is not in valid OpenSSH public key format"); both answer 422 Invalid with
 * the cause on field spec.publicKey (werror.NewInvalidError). Deletes are not checked.
 */
import { AdmissionHook } from '../api/types';
import { field } from '../util/objects';
import { parseAuthorizedKey } from '../controllers/ssh-public-key';
import { HARVESTER_VALIDATOR, denyInvalid } from './admission';

/** The KeyPair validating webhook. */
export function keyPairWebhooks(): AdmissionHook[] {
  return [
    {
      name: HARVESTER_VALIDATOR,
      resources: ['keypairs.harvesterhci.io'],
      validate: (req) => {
        const kp = req.object;
        // Upstream registers CREATE and UPDATE only (no DELETE), and has no mutator.
        if (!kp || req.operation === 'DELETE' || req.subresource) return;
        const key = field<string>(kp, 'spec', 'publicKey');
        if (!key) throw denyInvalid(HARVESTER_VALIDATOR, 'public key is required', 'spec.publicKey');
        if (!parseAuthorizedKey(key)) {
          throw denyInvalid(HARVESTER_VALIDATOR, 'key is not in valid OpenSSH public key format', 'spec.publicKey');
        }
      },
    },
  ];
}
