/**
 * `stack output` formatting (runner/stack-output.ts), as the Pulumi CLI prints it: a table of whole values (strings
 * as they are, anything else as JSON), one JSON object with --json, one value by name; secrets as [secret] unless
 * --show-secrets; a missing name refused naming what the stack has.
 */
import assert from 'node:assert/strict';
import { formatOutputs } from '../../../runner/stack-output';

const outputs = { vmName: 'web-0', ports: [80, 443], kubeconfig: 'token: abc', longerOutputName: { a: 1 } };
const secret = ['kubeconfig'];

describe('runner stack output', () => {
  it('a table sorted by name, the column at least as wide as OUTPUT, strings bare and the rest JSON, secrets hidden', () => {
    assert.deepEqual(formatOutputs(outputs, secret, {}), {
      text:
        'Current stack outputs (4):\n' +
        '    OUTPUT            VALUE\n' +
        '    kubeconfig        [secret]\n' +
        '    longerOutputName  {"a":1}\n' +
        '    ports             [80,443]\n' +
        '    vmName            web-0\n',
    });
    assert.equal(formatOutputs({ ip: '10.0.0.1' }, [], {}).text, 'Current stack outputs (1):\n    OUTPUT  VALUE\n    ip      10.0.0.1\n');
  });

  it('--show-secrets prints secrets in plain text, in the table, in JSON and by name', () => {
    assert.ok(formatOutputs(outputs, secret, { showSecrets: true }).text.includes('    kubeconfig        token: abc\n'));
    assert.equal(JSON.parse(formatOutputs(outputs, secret, { json: true, showSecrets: true }).text).kubeconfig, 'token: abc');
    assert.equal(formatOutputs(outputs, secret, { name: 'kubeconfig', showSecrets: true }).text, 'token: abc\n');
  });

  it('--json: one object, keys sorted, two-space indent, secrets as "[secret]"', () => {
    const text = formatOutputs(outputs, secret, { json: true }).text;
    assert.equal(text, `${JSON.stringify({ kubeconfig: '[secret]', longerOutputName: { a: 1 }, ports: [80, 443], vmName: 'web-0' }, null, 2)}\n`);
    assert.equal(formatOutputs({}, [], { json: true }).text, '{}\n');
  });

  it('one output by name: a string bare, anything else JSON; --json quotes a string and indents', () => {
    assert.deepEqual(formatOutputs(outputs, secret, { name: 'vmName' }), { text: 'web-0\n' });
    assert.equal(formatOutputs(outputs, secret, { name: 'ports' }).text, '[80,443]\n');
    assert.equal(formatOutputs(outputs, secret, { name: 'kubeconfig' }).text, '[secret]\n');
    assert.equal(formatOutputs(outputs, secret, { name: 'vmName', json: true }).text, '"web-0"\n');
    assert.equal(formatOutputs(outputs, secret, { name: 'ports', json: true }).text, '[\n  80,\n  443\n]\n');
    assert.equal(formatOutputs({ zero: 0, empty: '' }, [], { name: 'empty' }).text, '\n');
  });

  it('a name the stack lacks: an error naming what it has, or saying to run up when it has nothing', () => {
    assert.deepEqual(formatOutputs(outputs, secret, { name: 'ip' }), {
      text: '',
      error: "current stack does not have output property 'ip' (it has kubeconfig, longerOutputName, ports, vmName)",
    });
    assert.deepEqual(formatOutputs({}, [], { name: 'ip' }), { text: '', error: "current stack does not have output property 'ip' (it has none: run up first)" });
  });

  it('no outputs: the CLI\'s empty table', () => {
    assert.deepEqual(formatOutputs({}, [], {}), { text: 'Current stack outputs (0):\n    No output values currently in this stack\n' });
  });
});
