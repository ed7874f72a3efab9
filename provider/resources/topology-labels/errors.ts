/**
 * TopologyLabels' user-facing problems: what failed on which host → why (observed value) → the fix.
 * Check-time problems are CheckFailures (all reported at preview); runtime ones ProviderErrors.
 */
import { formatPath } from '../../core/input-errors';
import { ProviderError } from '../../core/errors';
import type { CheckFailure } from '../../core/types';
import { OWNER_ANNOTATION, TOPOLOGY_KEYS } from './model';
import { liveValue, type LiveHost } from './plan';
import { failure } from '../../core/input-errors';


/** hostMissing: a host of the inputs is not a Node of the Harvester cluster. */
export function hostMissing(host: string, known: string[]): CheckFailure {
  return failure(
    formatPath(['hosts', host]),
    `no Harvester host is named "${host}" (hosts: ${known.join(', ') || 'none'}). Use a host name as \`kubectl get nodes\` lists it, or remove the entry.`,
  );
}

/** claimedByOther: another TopologyLabels resource manages this host's region/zone. */
export function claimedByOther(host: string, other: string): CheckFailure {
  return failure(
    formatPath(['hosts', host]),
    `is managed by TopologyLabels "${other}" (host annotation ${OWNER_ANNOTATION}); two TopologyLabels resources must never claim the same host. ` +
      `Remove the host from one of them (removing it from "${other}" restores its labels and frees it).`,
  );
}

/** notOwnedHost: the runtime form of claimedByOther (the host was claimed between preview and apply). */
export function notOwnedHost(host: string, other: string, owner: string): ProviderError {
  return new ProviderError('NotOwned', `Refusing to change host ${host}: its topology labels are managed by TopologyLabels "${other}" (annotation ${OWNER_ANNOTATION}), not "${owner}".`, {
    object: `Node ${host}`,
    fix: `Remove host ${host} from one of the two resources.`,
  });
}

/** hostGone: a host disappeared between preview and apply. */
export function hostGone(host: string): ProviderError {
  return new ProviderError('NotFound', `Host ${host} does not exist on the Harvester cluster.`, { object: `Node ${host}`, fix: 'Remove it from hosts, or re-add the host to Harvester.' });
}

/** concurrentEdit: the host's region/zone changed while we were writing them. */
export function concurrentEdit(host: string, before: LiveHost, after: LiveHost): ProviderError {
  const what = (['region', 'zone'] as const)
    .filter((k) => liveValue(before, k) !== liveValue(after, k))
    .map((k) => `${TOPOLOGY_KEYS[k]} ${JSON.stringify(liveValue(before, k))} → ${JSON.stringify(liveValue(after, k))}`);
  return new ProviderError(
    'ConcurrentEdit',
    `Host ${host} changed while its topology labels were being written (${what.join(', ') || 'ownership annotations changed'}), so the write was not repeated over that edit.`,
    { object: `Node ${host}`, fix: 'Check who else edits the host labels, then run `pulumi refresh` and `pulumi up` again.' },
  );
}

/** guestRefused: the guest cluster cannot sync, so waiting for it is refused (one line per reason). */
export function guestRefused(refusals: string[]): CheckFailure {
  return failure('waitForGuestSync', `${refusals.join(' Also, ')} Or set waitForGuestSync to false to only report the guest nodes.`);
}
