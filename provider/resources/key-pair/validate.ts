/**
 * check's pure rules for a key pair: the model, the public key as Harvester's webhook judges it (public-key.ts:
 * "public key is required" / "key is not in valid OpenSSH public key format", with the reason), and the labels
 * (valid keys and values; none of the keys reserved for Harvester or this provider).
 */
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { labelMapProblems } from '../../core/labels';
import { SECRET_INPUTS, keyPairSchema } from './model';
import { judgePublicKey } from './public-key';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const KEY_EXAMPLE = 'paste the one line of your .pub file (e.g. ~/.ssh/id_ed25519.pub: "ssh-ed25519 AAAA… me@laptop")';

export function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (property: string, reason: string) => out.push({ property, reason });
  if (typeof user.publicKey === 'string' && !isUnknown(user.publicKey)) {
    const verdict = judgePublicKey(user.publicKey);
    if (!verdict.ok) {
      const harvester = user.publicKey === '' ? 'public key is required' : 'key is not in valid OpenSSH public key format';
      fail('publicKey', `${verdict.reason} (Harvester refuses it: "${harvester}"): ${KEY_EXAMPLE}`);
    }
  }
  if (isObj(user.labels)) for (const [property, reason] of labelMapProblems('labels', user.labels)) fail(property, reason);
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(keyPairSchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}
