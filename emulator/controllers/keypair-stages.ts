/**
 * KeyPair controller (harvester pkg/controller/master/keypair/controller.go), one row:
 * `keypair-validated`: public key set, no fingerprint yet → status.fingerPrint (legacy MD5) and condition
 * `validated=True`, or `validated=False` with the parse error when the key does not parse (only reachable if
 * the webhook was bypassed). The node driver refuses key pairs that are not validated=True (§A.3).
 */
import { Clock } from '../clock';
import { Condition, field, findCondition, isDeleting, setCondition, statusOf, timestamp } from './object-util';
import { ResolvedHarvesterOptions } from './options';
import { legacyMd5Fingerprint, parseAuthorizedKey } from './ssh-public-key';
import { Stage } from './stages';

/** The KeyPair stage table. */
export function keyPairStages(ctx: { options: ResolvedHarvesterOptions; clock: Clock }): Stage[] {
  return [
    {
      name: 'keypair-validated',
      when: (kp) =>
        !isDeleting(kp) &&
        typeof field(kp, 'spec', 'publicKey') === 'string' &&
        !field(kp, 'status', 'fingerPrint') &&
        !findCondition(kp, 'validated'),
      delayMs: () => ctx.options.delays.keyPairValidate,
      next: (kp) => {
        const status = statusOf(kp);
        const parsed = parseAuthorizedKey(String(field(kp, 'spec', 'publicKey')));
        const now = timestamp(ctx.clock.now());
        const conditions = status.conditions as Condition[] | undefined;
        if (parsed) {
          status.fingerPrint = legacyMd5Fingerprint(parsed.blob);
          status.conditions = setCondition(conditions, { type: 'validated', status: 'True' }, now, { stampUpdate: true });
        } else {
          status.conditions = setCondition(
            conditions,
            { type: 'validated', status: 'False', reason: 'failed to parse the public key, error: ssh: no key found' },
            now,
            { stampUpdate: true },
          );
        }
        return kp;
      },
    },
  ];
}
