/**
 * KeyPair controller (harvester pkg/controller/master/keypair/controller.go, OnKeyPairChanged), one row:
 * `keypair-validated`. Upstream skips a deleted key pair, an empty key and any key pair that already has a
 * fingerprint (so a key changed later keeps its first fingerprint); otherwise it parses the key and writes
 * status.fingerPrint (legacy MD5) with condition `validated=True`, or `validated=False` with reason
 * `failed to parse the public key, error: <err>` (only reachable when the webhook was bypassed).
 * The node driver refuses key pairs that are not validated=True (docs/design/harvester-vms.md
 * §"Node driver defaults").
 */
import { KubeObject } from '../api/types';
import { Clock } from '../clock';
import { deepEqual } from '../api/store-json';
import { clone, Condition, field, isDeleting, setCondition, statusOf, timestamp } from '../util/objects';
import { ResolvedHarvesterOptions } from './options';
import { legacyMd5Fingerprint, parseAuthorizedKeyText } from './ssh-public-key';
import { Stage } from './stages';

/**
 * The handler's result for one key pair: the updated copy, or undefined when upstream leaves it as it is
 * (deleted, no key, fingerprint already set, or the update would change nothing).
 */
export function onKeyPairChanged(kp: KubeObject | undefined, now: string): KubeObject | undefined {
  if (!kp || isDeleting(kp)) return undefined;
  const key = field<string>(kp, 'spec', 'publicKey');
  if (!key || field(kp, 'status', 'fingerPrint')) return undefined;
  const next = clone(kp);
  const status = statusOf(next);
  const conditions = status.conditions as Condition[] | undefined;
  const parsed = parseAuthorizedKeyText(key);
  if (parsed.key) {
    status.fingerPrint = legacyMd5Fingerprint(parsed.key.blob);
    status.conditions = setCondition(conditions, { type: 'validated', status: 'True' }, now, { stampUpdate: true });
  } else {
    const reason = `failed to parse the public key, error: ${parsed.error}`;
    status.conditions = setCondition(conditions, { type: 'validated', status: 'False', reason }, now, { stampUpdate: true });
  }
  return deepEqual(next.status, kp.status) ? undefined : next;
}

/** The KeyPair stage table. */
export function keyPairStages(ctx: { options: ResolvedHarvesterOptions; clock: Clock }): Stage[] {
  return [
    {
      name: 'keypair-validated',
      // An unchanged verdict restamps nothing, so the row stops matching once written.
      when: (kp) => onKeyPairChanged(kp, timestamp(ctx.clock.now())) !== undefined,
      delayMs: () => ctx.options.delays.keyPairValidate,
      next: (kp) => onKeyPairChanged(kp, timestamp(ctx.clock.now())),
    },
  ];
}
