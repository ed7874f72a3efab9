/**
 * The bin's life in its process (runner/cli.ts runAsProcess) with a stand-in process and command: the exit code is
 * the command's; the first SIGINT or SIGTERM aborts the command and the exit code becomes 130 or 143; a second one
 * leaves at once, before the command has stopped.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { runAsProcess, type ProcessBinding } from '../../../runner/cli';
import type { CliIO } from '../../../runner/commands';

/** A process that records its exits, and a command that ends when told to (or, given an abort, when aborted). */
function standIns() {
  const signals = new EventEmitter();
  const exits: number[] = [];
  const proc: ProcessBinding = { on: (signal, listener) => signals.on(signal, listener), exit: (code) => void exits.push(code) };
  const given: { argv?: string[]; io?: CliIO } = {};
  let finish: (code: number) => void = () => undefined;
  const run = (argv: string[], io?: CliIO) => {
    Object.assign(given, { argv, io });
    return new Promise<number>((resolve) => {
      finish = resolve;
      io?.signal?.addEventListener('abort', () => setImmediate(() => resolve(1)));
    });
  };
  const io: CliIO = { out: () => undefined, err: () => undefined, readStdin: async () => undefined };
  return { signals, exits, proc, given, run, io, finish: (code: number) => finish(code) };
}

describe('runner bin: runAsProcess', () => {
  it('exits with the command\'s own code, after the command ends; the command gets the arguments and an unaborted signal', async () => {
    for (const code of [0, 1, 2]) {
      const s = standIns();
      const life = runAsProcess(['preview', '--stack', 'prod'], s.proc, s.io, s.run);
      await new Promise(setImmediate);
      assert.deepEqual(s.exits, [], 'nothing exits while the command runs');
      assert.deepEqual(s.given.argv, ['preview', '--stack', 'prod']);
      assert.equal(s.given.io?.signal?.aborted, false);
      assert.equal(s.given.io?.out, s.io.out, 'the process\'s output is the command\'s');
      s.finish(code);
      await life;
      assert.deepEqual(s.exits, [code]);
    }
  });

  it('the first SIGINT or SIGTERM aborts the command, then exits 130 or 143 once it has stopped', async () => {
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const s = standIns();
      const life = runAsProcess(['up'], s.proc, s.io, s.run);
      s.signals.emit(signal);
      assert.equal(s.given.io?.signal?.aborted, true, signal);
      assert.deepEqual(s.exits, [], `${signal}: the command is let stop first`);
      await life;
      assert.deepEqual(s.exits, [code], signal);
    }
  });

  it('a second signal leaves at once, with its own code, before the command has stopped', async () => {
    const s = standIns();
    const stubborn = (argv: string[], io?: CliIO) => {
      Object.assign(s.given, { argv, io });
      return new Promise<number>(() => undefined);
    };
    void runAsProcess(['destroy'], s.proc, s.io, stubborn);
    s.signals.emit('SIGTERM');
    assert.deepEqual(s.exits, []);
    s.signals.emit('SIGINT');
    assert.deepEqual(s.exits, [130]);
  });
});
