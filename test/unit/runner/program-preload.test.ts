/**
 * runner/program-preload.ts, loaded here into the test process (the runner loads it into the program's process,
 * where no test can reach it in process): an Error inspected with colours comes out without them, every other value
 * and option is inspected as before, and only PromiseRejectionHandledWarning is kept from being printed. Node's own
 * util.inspect and process.emitWarning are put back after each test.
 */
import assert from 'node:assert/strict';
import util = require('node:util');

const PRELOAD = require.resolve('../../../runner/program-preload');
const ESC = '\u001b[';

describe('runner program preload', () => {
  const inspect = util.inspect;
  const emitWarning = process.emitWarning;
  beforeEach(() => {
    delete require.cache[PRELOAD];
    require(PRELOAD);
  });
  afterEach(() => {
    (util as { inspect: unknown }).inspect = inspect;
    process.emitWarning = emitWarning;
  });

  it('inspects an Error without colours even when colours are asked, keeping the other options', () => {
    assert.notEqual(util.inspect, inspect, 'the preload replaced util.inspect');
    const err = Object.assign(new Error('boom'), { detail: { deep: { deeper: { deepest: 1 } } } });
    const text = util.inspect(err, { colors: true, depth: 0 });
    assert.ok(!text.includes(ESC), JSON.stringify(text));
    assert.match(text, /^Error: boom\n/);
    assert.match(text, /detail: \[Object\]/, 'depth 0 still applies');
  });

  it('inspects anything else exactly as Node does, colours included, and keeps inspect.custom and defaultOptions', () => {
    for (const [value, options] of [[{ a: 1, b: 'x' }, { colors: true }], [42, { colors: true }], [new Error('plain'), undefined], [new Error('no colours'), { colors: false }], ['s', null], [new Error('null options'), null]] as const) {
      assert.equal(util.inspect(value, options as never), inspect(value, options as never), String(value));
    }
    assert.ok(util.inspect({ a: 1 }, { colors: true }).includes(ESC), 'a non-error keeps its colours');
    assert.equal(util.inspect.custom, inspect.custom);
    assert.equal(util.inspect.defaultOptions, inspect.defaultOptions);
    assert.equal(util.inspect('x', false, 2, false), inspect('x', false, 2, false), 'the legacy positional form passes through');
  });

  it('drops PromiseRejectionHandledWarning in each form the SDK and Node emit it, and passes every other warning on', () => {
    const seen: unknown[][] = [];
    const recorder = (...args: unknown[]) => void seen.push(args);
    process.emitWarning = recorder as typeof process.emitWarning;
    delete require.cache[PRELOAD];
    require(PRELOAD);
    const handled = Object.assign(new Error('Promise rejection was handled asynchronously (rejection id: 1)'), { name: 'PromiseRejectionHandledWarning' });
    process.emitWarning(handled);
    process.emitWarning('handled late', 'PromiseRejectionHandledWarning');
    process.emitWarning('handled late', { type: 'PromiseRejectionHandledWarning' });
    assert.deepEqual(seen, []);
    process.emitWarning('something else', 'DeprecationWarning', 'DEP0001');
    process.emitWarning('typed', { type: 'ExperimentalWarning', code: 'X' });
    const other = new Error('other');
    process.emitWarning(other);
    process.emitWarning('untyped');
    assert.deepEqual(seen, [['something else', 'DeprecationWarning', 'DEP0001'], ['typed', { type: 'ExperimentalWarning', code: 'X' }], [other], ['untyped']]);
  });
});
