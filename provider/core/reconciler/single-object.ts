/**
 * The resources that are one Kubernetes object (a key pair, an IP pool, a VM network, an image) share one way
 * to observe, converge and remove it: a GET; a create with our ownership labels, or a merge patch of what
 * differs on ours (preconditioned on our ownership); a watch until the object serves; a delete of ours and a
 * watch until it is gone. The resource supplies the object's kind, the desired object, the patch, and its verdict.
 */
import { waitFor, waitForDeletion, type CheckResult as WaitVerdict } from '../../await';
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject } from '../../client/objects';
import { isOwnedBy, type OwnerIdentity } from '../../client/ownership';
import type { ResourceClient } from '../../client/resource-client';
import type { ObjectRef } from '../object-ref';
import type { WriteOperation } from '../partial';
import { timeoutMs, type Timeouts } from '../timeouts';
import type { ManagedResource, ResourceContext } from './resource';

/** What a one-object resource says about its object. */
export interface SingleObject<I extends { timeouts: Timeouts }, O, T extends KubeObject> {
  /** The typed client of the object's kind. */
  api(client: HarvesterClient): ResourceClient<T>;
  /** The owner identity its labels carry. */
  owner(ref: ObjectRef): OwnerIdentity;
  /** The object as we create it (ownership labels stamped). */
  desired(inputs: I): T;
  /** The merge patch bringing our live object to the inputs; undefined when nothing differs. */
  patch(inputs: I, live: T): Record<string, unknown> | undefined;
  /** True when our live object can never become the inputs in place (it is deleted and made anew). */
  remake?(inputs: I, live: T): boolean;
  /** The wait's verdict on the object after a write (done, or what it waits for, or a final error). */
  ready(inputs: I, current: T | undefined): WaitVerdict;
  /** What the wait waits for, e.g. "to be validated" (after the object's description). */
  readyWhat(inputs: I): string;
  /** Refuses (a ProviderError naming what uses it) or waits, before a delete. */
  beforeRemove?(ctx: ResourceContext, live: T, recorded: Partial<O>): Promise<void>;
  /** How the delete wait is described. @default "to be deleted" */
  removeWhat?: string;
}

type Parts<I extends object, O extends object, T> = Pick<ManagedResource<I, O, T>, 'owner' | 'observe' | 'owns' | 'foreign' | 'converge' | 'remove'>;

/** observe, owns, foreign, converge and remove of a one-object resource; `timeoutsOf` reads recorded timeouts. */
export function singleObject<I extends { timeouts: Timeouts }, O extends object, T extends KubeObject>(
  spec: SingleObject<I, O, T>,
  timeoutsOf: (recorded: Partial<O>) => Timeouts,
): Parts<I, O, T> {
  const owns = (live: T, ref: ObjectRef) => isOwnedBy(live, spec.owner(ref));

  async function removeAndWait(ctx: ResourceContext, ref: ObjectRef, ms: number, option: string): Promise<void> {
    const api = spec.api(ctx.client);
    await api.delete(ref.name, { namespace: ref.namespace, owner: spec.owner(ref) });
    await waitForDeletion<T>({
      resource: api,
      namespace: ref.namespace,
      name: ref.name,
      timeoutMs: ms,
      timeoutOption: option,
      what: `${api.describe(ref.name, ref.namespace)} ${spec.removeWhat ?? 'to be deleted'}`,
      onProgress: ctx.progress,
      clock: ctx.clock,
    });
  }

  return {
    owner: spec.owner,
    observe: (ctx, ref) => spec.api(ctx.client).get(ref.name, ref.namespace),
    owns,
    foreign: (live, ref) => (owns(live, ref) ? [] : [live]),

    async converge(ctx, inputs, live, op: WriteOperation) {
      const api = spec.api(ctx.client);
      const desired = spec.desired(inputs);
      const ref = { namespace: desired.metadata.namespace, name: desired.metadata.name as string };
      const ms = timeoutMs(inputs.timeouts, op);
      if (live && spec.remake?.(inputs, live)) {
        await removeAndWait(ctx, ref, ms, `timeouts.${op}`);
        live = undefined;
      }
      if (!live) {
        await api.create(desired);
      } else {
        const patch = spec.patch(inputs, live);
        if (patch) await api.mergePatch(ref.name, patch, { namespace: ref.namespace, owner: spec.owner(ref) });
      }
      const [ready] = await waitFor<T>({
        resource: api,
        namespace: ref.namespace,
        name: ref.name,
        timeoutMs: ms,
        what: `${api.describe(ref.name, ref.namespace)} ${spec.readyWhat(inputs)}`,
        timeoutOption: `timeouts.${op}`,
        onProgress: ctx.progress,
        clock: ctx.clock,
        check: ([current]) => spec.ready(inputs, current),
      });
      return ready;
    },

    async remove(ctx, live, ref, recorded) {
      await spec.beforeRemove?.(ctx, live, recorded);
      await removeAndWait(ctx, ref, timeoutMs(timeoutsOf(recorded), 'delete'), 'timeouts.delete');
    },
  };
}
