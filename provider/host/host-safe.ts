/**
 * hostSafe wraps a resource's handlers so the contract of Pulumi's real dynamic-provider host holds for every call,
 * whatever a handler does (the traps of docs/design/dynamic-host-contract.md, each reproduced against the host):
 * - results are plain JSON (trap 1); inputs' `null` means absent (trap 11);
 * - only Errors leave, each with a complete, non-empty message: the host forwards the message alone (name
 *   and code are dropped) and hangs on a thrown non-Error (trap 3); messages are capped (trap 12);
 * - a partial failure's properties carry `__provider`, or the next refresh/destroy of that resource fails (trap 2);
 * - check failures on a secret or connection input are reported on property "" with the input named in the
 *   reason: the CLI may print the value of the property it is given (trap 8, pulumi/pulumi#19465);
 * - connection inputs never reach diff (trap 9: rotating credentials is not a change of the resource);
 * - a recorded state reaches the handlers without the host's own keys (`__provider` is in every state the host
 *   sends to read, diff, update and delete; the host puts it back into what read returns), so a handler may
 *   parse a state with its strict model;
 * - a read with no recorded state is an import (the engine sends the id alone): the handlers are told so, rather
 *   than guessing it from a missing field;
 * - every progress line of a call is stamped with the call's own object (its id, else the object its inputs
 *   name), so the runner and the CLI show it under the resource whatever object a wait names;
 * - when a call that works on the cluster ends, the last progress line held back about its object is printed.
 */
import { redact } from '../client/redact';
import { ResourceInitError } from '../core/errors';
import { CONNECTION_INPUTS, STACK_CONFIG_KEYS, configureConnection } from '../core/connection';
import { formatFailure } from '../core/input-errors';
import { progressObject, withCallObject } from '../core/progress';
import { isImport } from '../core/reconciler/reconciler';
import type { CheckFailure, ResourceProvider } from '../core/types';
import { plainJson, withoutNulls } from './plain-json';

type Raw = Record<string, unknown>;

/** Longest message sent to the host; a 64 KB message hung a Node gRPC client (trap 12). */
export const MESSAGE_LIMIT = 8 * 1024;
/** Most reasons kept in a partial failure. */
const REASON_LIMIT = 20;

/** A provider as exported from harvester-iac/provider: the handlers plus `configure` (stack config). */
export interface HostProvider extends ResourceProvider {
  configure(request: { config: { get(key: string): string | undefined } }): Promise<void>;
}

/** What hostSafe needs to know about a resource. */
export interface HostSafeOptions {
  /** The resource's type name for messages, e.g. "HarvesterMachinePool". */
  resource: string;
  /** Inputs that are secret (their failures move to property ""). */
  secretInputs: readonly string[];
  /** The object a call's inputs name, as the resource's id spells it. @default `namespace/name` of the inputs */
  objectOf?: (inputs: Raw) => string;
  /** The progress sink the resource's handlers report to (provider/host/progress.ts). */
  progress?: { flush(resource: string, object: string): void };
}

/** cap shortens a text to MESSAGE_LIMIT, saying how much was left out. */
export function cap(text: string, limit = MESSAGE_LIMIT): string {
  if (text.length <= limit) return text;
  const tail = `\n… (${text.length - limit} more characters left out)`;
  return text.slice(0, limit - tail.length) + tail;
}

/** asError turns anything thrown into an Error whose message says everything (redacted, capped). */
export function asError(err: unknown, operation: string, resource: string): Error {
  if (err instanceof ResourceInitError) return err;
  const raw = err instanceof Error ? err.message : typeof err === 'string' ? err : safeStringify(err);
  const code = err instanceof Error && typeof (err as { code?: unknown }).code === 'string' ? (err as unknown as { code: string }).code : undefined;
  let message = raw.trim() || `${resource} ${operation} failed without a message (${err instanceof Error ? err.name : typeof err})`;
  if (code && !message.includes(code)) message = `${code}: ${message}`;
  const out = new Error(cap(redact(message)));
  out.name = err instanceof Error ? err.name : 'Error';
  return out;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** movePrivateFailures reports failures on secret or connection inputs on property "", naming the input (trap 8). */
function movePrivateFailures(failures: CheckFailure[], hidden: Set<string>): CheckFailure[] {
  return failures.map((f) => (hidden.has(f.property.split(/[.[]/, 1)[0]) ? { property: '', reason: formatFailure(f) } : f));
}

function withoutKeys(raw: Raw | undefined, keys: readonly string[]): Raw {
  return Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !keys.includes(k)));
}

/** A recorded state without the host's keys (`__provider`, …). */
function recordedState(raw: Raw | undefined): Raw {
  return Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !k.startsWith('__')));
}

/** hostSafe returns the handlers wrapped; see the file header. */
export function hostSafe(provider: ResourceProvider, options: HostSafeOptions): HostProvider {
  const hidden = new Set([...options.secretInputs, ...CONNECTION_INPUTS]);
  const objectOf = (inputs: Raw | undefined) => (options.objectOf ? options.objectOf(inputs ?? {}) : progressObject(inputs ?? {}));
  const guard = async <T>(operation: string, run: () => Promise<T>, object: string, providerText?: unknown): Promise<T> => {
    try {
      return plainJson(await withCallObject(object, run));
    } catch (err) {
      if (err instanceof ResourceInitError) {
        const properties = plainJson({ ...err.properties, ...(typeof providerText === 'string' ? { __provider: providerText } : {}) });
        const reasons = err.reasons.slice(0, REASON_LIMIT).map((r) => cap(redact(r), MESSAGE_LIMIT / 4));
        if (err.reasons.length > REASON_LIMIT) reasons.push(`… and ${err.reasons.length - REASON_LIMIT} more`);
        throw new ResourceInitError(err.id, properties, reasons, err.cause);
      }
      throw asError(err, operation, options.resource);
    } finally {
      options.progress?.flush(options.resource, object);
    }
  };
  return {
    // The host calls configure once per provider text with the whole stack config (docs/design/dynamic-host-contract.md
    // §"Each call").
    configure: async (request) => {
      const config = request?.config;
      configureConnection({ kubeconfig: config?.get(STACK_CONFIG_KEYS.kubeconfig), context: config?.get(STACK_CONFIG_KEYS.context) });
    },
    check: (olds, news) =>
      guard(
        'check',
        async () => {
          const result = await provider.check(olds, withoutNulls(news));
          return result.failures?.length ? { ...result, failures: movePrivateFailures(result.failures, hidden) } : result;
        },
        objectOf(news),
      ),
    // Connection settings are not part of the resource: changing or rotating them is no change (trap 9).
    diff: (id, olds, news) => guard('diff', () => provider.diff(id, withoutKeys(recordedState(olds), CONNECTION_INPUTS), withoutKeys(withoutNulls(news), CONNECTION_INPUTS)), id),
    create: (inputs) => guard('create', () => provider.create(withoutNulls(inputs)), objectOf(inputs), inputs?.__provider),
    // The engine reads by id alone for an import: no recorded state beyond the host's own keys.
    read: (id, props) => {
      const importing = isImport(props);
      return guard('read', () => provider.read(id, props && recordedState(props), { importing }), id);
    },
    update: (id, olds, news) => guard('update', () => provider.update(id, recordedState(olds), withoutNulls(news)), id, news?.__provider ?? olds?.__provider),
    delete: (id, props) => guard('delete', () => provider.delete(id, recordedState(props)), id),
  };
}

