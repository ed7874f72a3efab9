/**
 * Loaded (`node --require`) into the program's process by the runner (program.ts), before @pulumi/pulumi's
 * cmd/run. It changes two things in how Node reports, nothing in how the program runs:
 *
 * - `util.inspect(error, { colors: true })` inspects the error without colours. When a program throws, the SDK's
 *   uncaught-error handler (cmd/run/run.js, `defaultErrorMessage`) inspects the error with colours, and its stack,
 *   source-mapped by the SDK, holds frames such as `node_modules/@pulumi/cmd/run/run.ts`: a scope folder with no
 *   package after it. On that path the colouring of Node 20.19.6+ and 22.x (`markNodeModules`, nodejs/node#64011,
 *   fixed by nodejs/node#64022) loops until the string is too long — 15 to 30 s of CPU before the SDK falls back
 *   to plain text. The runner prints the program's messages as text (no terminal colours), so plain is also what
 *   it wants.
 * - `PromiseRejectionHandledWarning` is not printed: the SDK attaches handlers to a failed registration's
 *   promises after Node has reported them unhandled; the SDK reports the failure itself, and the resource's
 *   diagnostic says it once, so the warning only adds noise (`(node:123) PromiseRejectionHandledWarning: …`).
 */
// The module object itself (not an import's copy of it), so the SDK's `util.inspect` is the wrapper.
import util = require('node:util');

const inspect = util.inspect;

function plainForErrors(this: unknown, value: unknown, ...rest: unknown[]): string {
  const options = rest[0];
  if (value instanceof Error && options !== null && typeof options === 'object' && (options as util.InspectOptions).colors) {
    return inspect(value, { ...(options as util.InspectOptions), colors: false });
  }
  return (inspect as (...args: unknown[]) => string).apply(this, [value, ...rest]);
}
// inspect.custom, inspect.defaultOptions (an accessor), colors, styles: the same on the wrapper.
Object.defineProperties(plainForErrors, Object.getOwnPropertyDescriptors(inspect));
(util as { inspect: unknown }).inspect = plainForErrors;

const emitWarning = process.emitWarning;
process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
  const name = warning instanceof Error ? warning.name : typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
  if (name === 'PromiseRejectionHandledWarning') return;
  (emitWarning as (...args: unknown[]) => void).apply(this, [warning, ...rest]);
} as typeof process.emitWarning;
