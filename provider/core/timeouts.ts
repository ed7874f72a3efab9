/**
 * The `timeouts` input every resource has: how long create, update and delete may wait. Its defaults live in
 * the model alone (timeoutsInput), and the text becomes milliseconds here alone (timeoutMs), so no handler
 * spells a default twice. The input stays the user's text ("90s", "10m") in inputs and state: outputs record
 * the inputs as written, and a refresh must read back the same spelling (docs/design/resource-reconciler.md).
 */
import { z } from 'zod';
import { DURATION_PATTERN, parseDuration } from '../await/duration';

/** The operations a timeout bounds. */
export type Operation = 'create' | 'update' | 'delete';

/** A timeout per operation, as the model parsed it. */
export type Timeouts = Record<Operation, string>;

/** Each operation's default and what it waits for (its description in the SDK, schema.json and docs). */
export type TimeoutSpec = Record<Operation, readonly [defaultText: string, waitsFor: string]>;

/** The zod field of `timeouts`: each operation a duration with its default, the whole defaulted too. */
export function timeoutsInput(spec: TimeoutSpec, description: string) {
  const field = ([fallback, waitsFor]: readonly [string, string]) =>
    z.string().regex(DURATION_PATTERN, { error: 'must be a duration such as "90s", "10m" or "1h30m"' }).default(fallback).describe(`${waitsFor} Default "${fallback}".`);
  return z
    .strictObject({ create: field(spec.create), update: field(spec.update), delete: field(spec.delete) })
    .default({ create: spec.create[0], update: spec.update[0], delete: spec.delete[0] })
    .describe(description);
}

/** The bound of `op` in milliseconds; `timeouts` comes from the model, so its text is a valid duration. */
export function timeoutMs(timeouts: Timeouts, op: Operation): number {
  const ms = parseDuration(timeouts[op]);
  if (ms === undefined) throw new Error(`timeouts.${op}: ${JSON.stringify(timeouts[op])} is not a duration (the model admits only durations)`);
  return ms;
}
