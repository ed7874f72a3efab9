/**
 * `stack output`: the outputs of the stack's last `up`, as the Pulumi CLI prints them. Whole values, never cut;
 * secrets as [secret] unless --show-secrets. Without a name: a table (strings as they are, anything else as JSON),
 * or with --json one JSON object. With a name: that value alone (a string as it is, anything else as JSON).
 */
type Raw = Record<string, unknown>;

export interface OutputOptions {
  name?: string;
  json?: boolean;
  showSecrets?: boolean;
}

const SECRET = '[secret]';

function shown(outputs: Raw, secretKeys: readonly string[], key: string, showSecrets: boolean): unknown {
  return secretKeys.includes(key) && !showSecrets ? SECRET : outputs[key];
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** formatOutputs: the text to print, or the error when the named output does not exist. */
export function formatOutputs(outputs: Raw, secretKeys: readonly string[], options: OutputOptions): { text: string; error?: string } {
  const showSecrets = Boolean(options.showSecrets);
  const keys = Object.keys(outputs).sort();
  if (options.name !== undefined) {
    if (!(options.name in outputs)) {
      return { text: '', error: `current stack does not have output property '${options.name}'${keys.length ? ` (it has ${keys.join(', ')})` : ' (it has none: run up first)'}` };
    }
    const value = shown(outputs, secretKeys, options.name, showSecrets);
    return { text: `${options.json ? JSON.stringify(value, null, 2) : asText(value)}\n` };
  }
  if (options.json) return { text: `${JSON.stringify(Object.fromEntries(keys.map((k) => [k, shown(outputs, secretKeys, k, showSecrets)])), null, 2)}\n` };
  if (!keys.length) return { text: 'Current stack outputs (0):\n    No output values currently in this stack\n' };
  const width = Math.max(6, ...keys.map((k) => k.length));
  const rows = keys.map((k) => `    ${k.padEnd(width)}  ${asText(shown(outputs, secretKeys, k, showSecrets))}`);
  return { text: `Current stack outputs (${keys.length}):\n    ${'OUTPUT'.padEnd(width)}  VALUE\n${rows.join('\n')}\n` };
}
