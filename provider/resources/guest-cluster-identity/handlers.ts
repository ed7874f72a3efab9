/**
 * GuestClusterIdentity on the reconciler (core/reconciler): one Secret, `<clusterName>-rke2-identity`.
 * - check: the model's rules (validate.ts); against the cluster, the namespace exists; against the recorded state,
 *   a version change RKE2 supports (no minor skipped, none gone back: rke2/versions.ts), announced as the roll it
 *   causes (a progress line at preview). The reconciler refuses a Secret of that name we do not own.
 * - converge: the material comes from the recorded outputs (what the nodes were given), else the live Secret (an
 *   import), else it is generated (create); the admin certificate is re-issued near its expiry; the Secret is written
 *   whole, so keys deleted or edited by hand come back.
 * - read: the settings from the Secret's annotation; keys that differ from the recorded ones are drift.
 * - remove: ours, waiting until gone.
 */
import { waitFor, waitForDeletion } from '../../await';
import type { Secret } from '../../client/objects';
import { isOwnedBy } from '../../client/ownership';
import { ProviderError } from '../../core/errors';
import { stableStringify } from '../../core/hash';
import { changedKeys } from '../../core/imported';
import { inputsFlagged } from '../../core/input-flags';
import { CONNECTION_INPUTS } from '../../core/connection';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource, ResourceContext } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import { isUnknown } from '../../core/unknowns';
import { upgradeProblem } from '../../core/rke2/versions';
import { guestClusterIdentityOutputsSchema, guestClusterIdentitySchema, type GuestClusterIdentityInputs as Inputs, type GuestClusterIdentityOutputs as Outputs } from './model';
import { generatePki, issueAdminCertificate } from './pki';
import {
  adminNeedsRenewal, adminUserOf, desiredSecret, identityOwner, liveInputs, materialFromOutputs, materialOf, newPassword, RENEW_BEFORE_MS, secretNameOf, settingsOf, toOutputs,
  type IdentityMaterial,
} from './plan';
import { validateInputs } from './validate';

export type GuestClusterIdentityProviderOptions = ReconcilerOptions;

const timeoutsOf = (recorded: Partial<Outputs>) => guestClusterIdentitySchema.shape.timeouts.parse(recorded.timeouts);
const INPUT_KEYS = Object.keys(guestClusterIdentitySchema.shape).filter((k) => !CONNECTION_INPUTS.includes(k));
const REPLACES = inputsFlagged(guestClusterIdentitySchema, 'replaceOnChanges');
/** The inputs the Secret's settings annotation records. */
const SETTING_KEYS = Object.keys(settingsOf(Object.fromEntries(Object.keys(guestClusterIdentitySchema.shape).map((k) => [k, true])) as unknown as Inputs)) as (keyof Inputs)[];

/** The material the identity keeps: what the nodes were given, else what the Secret holds, else new. */
async function materialFor(ctx: ResourceContext, inputs: Inputs, live: Secret | undefined, recorded: Partial<Outputs>): Promise<IdentityMaterial> {
  const fromState = materialFromOutputs(recorded);
  if (fromState) return fromState;
  if (live) {
    const { material, problem } = materialOf(live);
    if (material) return material;
    throw new ProviderError('IdentityUnusable', `Secret ${inputs.namespace}/${live.metadata.name} cannot be used as the cluster's identity: ${problem}.`, {
      object: `GuestClusterIdentity ${inputs.namespace}/${inputs.clusterName}`,
      fix: 'Restore the Secret from a backup, or delete it and the cluster\'s VMs to start a new cluster.',
    });
  }
  const now = ctx.clock.now().getTime();
  const pki = await generatePki(now);
  const admin = await issueAdminCertificate(pki.client, adminUserOf(inputs.clusterName), inputs.adminCertificateDays, now);
  return { pki, serverPassword: newPassword(), agentPassword: newPassword(), admin };
}

/** What a version change of the servers or of an agent pool does, or why it is refused (recorded → new). */
function versionChanges(recorded: Partial<Outputs>, raw: Record<string, unknown>): { refused: { property: string; reason: string }[]; notes: string[] } {
  const refused: { property: string; reason: string }[] = [];
  const notes: string[] = [];
  const next = raw.kubernetesVersion;
  if (typeof recorded.kubernetesVersion === 'string' && typeof next === 'string' && !isUnknown(next) && next !== recorded.kubernetesVersion) {
    const problem = upgradeProblem(recorded.kubernetesVersion, next);
    if (problem) refused.push({ property: 'kubernetesVersion', reason: problem });
    else notes.push(`kubernetesVersion ${recorded.kubernetesVersion} → ${next}: the servers roll one at a time (each replacement Ready before its predecessor leaves etcd), then the agent pools`);
  }
  const agents = raw.agentVersions;
  if (agents && typeof agents === 'object' && !isUnknown(agents)) {
    for (const [pool, version] of Object.entries(agents as Record<string, unknown>)) {
      const before = recorded.agentVersions?.[pool];
      if (typeof version !== 'string' || isUnknown(version) || !before || before === version) continue;
      const problem = upgradeProblem(before, version);
      if (problem) refused.push({ property: `agentVersions.${pool}`, reason: problem });
      else notes.push(`agent pool ${pool}: ${before} → ${version}: its VMs roll after the servers`);
    }
  }
  return { refused, notes };
}

export const guestClusterIdentityResource: ManagedResource<Inputs, Outputs, Secret> = {
  type: 'GuestClusterIdentity',
  model: { inputs: guestClusterIdentitySchema, outputs: guestClusterIdentityOutputsSchema, validate: validateInputs },
  scope: 'namespaced',
  nameInput: 'clusterName',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.clusterName as string }),
  refInputs: (ref) => ({ namespace: ref.namespace, clusterName: ref.name }),
  describe: (ref) => `GuestClusterIdentity ${ref.namespace}/${ref.name}`,
  owner: (ref) => identityOwner(ref.name),

  observe: (ctx, ref) => ctx.client.secrets.get(secretNameOf(ref.name), ref.namespace),
  owns: (live, ref) => isOwnedBy(live, identityOwner(ref.name)),
  foreign: (live, ref) => (isOwnedBy(live, identityOwner(ref.name)) ? [] : [live]),

  async checkCluster(ctx, { inputs, raw, recorded }) {
    const references = [];
    const namespace = inputs?.namespace ?? (typeof raw.namespace === 'string' && !isUnknown(raw.namespace) ? raw.namespace : undefined);
    if (namespace && !(await ctx.client.namespaces.get(namespace))) {
      references.push({ property: 'namespace', reason: `namespace ${namespace} does not exist: create it, or choose the namespace of the cluster's VMs` });
    }
    const { refused, notes } = versionChanges(recorded, raw);
    if (ctx.operation === 'check' && refused.length === 0) for (const note of notes) ctx.progress(note);
    return { references, always: refused };
  },
  checkBeforeWrite: true,

  async converge(ctx, inputs, live, op, recorded) {
    const api = ctx.client.secrets;
    const owner = identityOwner(inputs.clusterName);
    const material = await materialFor(ctx, inputs, live, recorded);
    const now = ctx.clock.now().getTime();
    const daysChanged = recorded.adminCertificateDays !== undefined && recorded.adminCertificateDays !== inputs.adminCertificateDays;
    if (adminNeedsRenewal(material.admin, now) || daysChanged) {
      ctx.progress('issuing a new admin client certificate');
      material.admin = await issueAdminCertificate(material.pki.client, adminUserOf(inputs.clusterName), inputs.adminCertificateDays, now);
    }
    const desired = desiredSecret(inputs, material);
    const name = desired.metadata.name as string;
    if (!live) await api.create(desired, { owner });
    else {
      await api.update(name, inputs.namespace, (current) => ({
        ...current,
        metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...desired.metadata.labels }, annotations: { ...current.metadata.annotations, ...desired.metadata.annotations } },
        type: current.type,
        data: desired.data,
      }), { owner });
    }
    // Until the Secret serves what was written (as every one-object resource waits for its object).
    const [written] = await waitFor<Secret>({
      resource: api,
      namespace: inputs.namespace,
      name,
      timeoutMs: timeoutMs(inputs.timeouts, op),
      timeoutOption: `timeouts.${op}`,
      what: `Secret ${inputs.namespace}/${name} to hold the identity`,
      onProgress: ctx.progress,
      clock: ctx.clock,
      check: ([current]) => ({
        done: stableStringify(current?.data ?? {}) === stableStringify(desired.data),
        description: current ? `Secret ${inputs.namespace}/${name} is written` : `Secret ${inputs.namespace}/${name} does not exist yet`,
      }),
    });
    return written;
  },

  // A refresh reads the endpoint back; the other settings are the identity's own record (what the nodes were given):
  // one edited on the Secret is a drift line the next up writes back — never a change of input, which for the
  // networking would replace the whole cluster. An import takes them all from the Secret.
  liveInputs: (live, recorded) => (Object.keys(recorded).length === 0 ? liveInputs(live) : { endpoint: liveInputs(live).endpoint ?? recorded.endpoint }),

  drift(recorded, live) {
    const ref = `GuestClusterIdentity ${recorded.namespace}/${recorded.clusterName}`;
    const onSecret = liveInputs(live);
    const lines = SETTING_KEYS
      .filter((k) => stableStringify(onSecret[k]) !== stableStringify(recorded[k]))
      .map((k) => (k === 'endpoint'
        ? `${ref}: endpoint is ${JSON.stringify(onSecret.endpoint)} on the Secret, this resource set ${JSON.stringify(recorded.endpoint)}`
        : `${ref}: the Secret records ${k} ${JSON.stringify(onSecret[k])}, the cluster was given ${JSON.stringify(recorded[k])}; the next up writes it back`));
    const given = materialFromOutputs(recorded as unknown as Partial<Outputs>);
    const { material, problem } = materialOf(live);
    if (problem) lines.push(`${ref}: the Secret's keys cannot be used (${problem}); the next up writes back those the nodes were given`);
    else if (given && material && stableStringify({ ...given, admin: undefined }) !== stableStringify({ ...material, admin: undefined })) {
      lines.push(`${ref}: the Secret's CAs or tokens differ from those the nodes were given; the next up writes those back`);
    }
    return lines;
  },

  readBack(live, recorded, importing) {
    const ref = { namespace: live.metadata.namespace as string, name: recorded.clusterName ?? (live.metadata.name as string).replace(/-rke2-identity$/, '') };
    const record = recorded as Record<string, unknown>;
    const kept = importing ? {} : Object.fromEntries(Object.keys(guestClusterIdentitySchema.shape).filter((k) => record[k] !== undefined).map((k) => [k, record[k]]));
    const now = this.liveInputs(live, importing ? {} : recorded);
    const inputs = guestClusterIdentitySchema.parse({ ...kept, namespace: ref.namespace, clusterName: ref.name, ...now }) as Inputs;
    const material = importing ? materialOf(live).material : (materialFromOutputs(recorded) ?? materialOf(live).material);
    if (!material) return undefined;
    const drift = importing ? [] : [...this.drift!(recorded as unknown as Inputs, live, now), ...((recorded.drift ?? []).filter((l) => l.includes('did not finish')))];
    const props: Partial<Outputs> = toOutputs(inputs, material, drift);
    if (importing) delete props.timeouts;
    if (!importing) props.adminKubeconfig = recorded.adminKubeconfig ?? props.adminKubeconfig;
    if (!importing && recorded.adminCertificateExpires) props.adminCertificateExpires = recorded.adminCertificateExpires;
    const readInputs = Object.fromEntries(Object.entries(props).filter(([k, v]) => k in guestClusterIdentitySchema.shape && v !== undefined && !(importing && k === 'timeouts')));
    return { props: props as Outputs, inputs: readInputs };
  },

  diff(olds, news) {
    const changed = changedKeys(olds as Record<string, unknown>, news as Record<string, unknown>, INPUT_KEYS);
    const expires = olds.adminCertificateExpires ? new Date(olds.adminCertificateExpires).getTime() : Number.POSITIVE_INFINITY;
    const renew = expires - Date.now() < RENEW_BEFORE_MS;
    const drifted = (olds.drift ?? []).length > 0;
    return { changes: changed.length > 0 || renew || drifted, replaces: changed.filter((k) => REPLACES.includes(k)) };
  },

  outputs(inputs, live, drift) {
    const { material, problem } = materialOf(live);
    if (!material) throw new Error(`GuestClusterIdentity ${inputs.namespace}/${inputs.clusterName}: the Secret just written cannot be read back (${problem})`);
    return toOutputs(inputs, material, drift);
  },

  async remove(ctx, _live, ref, recorded) {
    const name = secretNameOf(ref.name);
    await ctx.client.secrets.delete(name, { namespace: ref.namespace, owner: identityOwner(ref.name) });
    await waitForDeletion<Secret>({
      resource: ctx.client.secrets,
      namespace: ref.namespace,
      name,
      timeoutMs: timeoutMs(timeoutsOf(recorded), 'delete'),
      timeoutOption: 'timeouts.delete',
      what: `Secret ${ref.namespace}/${name} to be deleted`,
      onProgress: ctx.progress,
      clock: ctx.clock,
    });
  },
};

export function createGuestClusterIdentityProvider(options: GuestClusterIdentityProviderOptions = {}) {
  return reconciledProvider(guestClusterIdentityResource, options);
}

export type GuestClusterIdentityProvider = ReturnType<typeof createGuestClusterIdentityProvider>;
