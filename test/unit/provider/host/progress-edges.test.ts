/**
 * The edges of the host's progress printer (provider/host/progress.ts) that the main progress test does not reach:
 * what counts as news, blank lines, a repeat once the interval is over, a held line's delay measured from the last
 * print, the interval from HARVESTER_PROGRESS_INTERVAL, and the defaults (standard output, an unref'd timer that a
 * flush cancels).
 */
import assert from 'node:assert/strict';
import { PROGRESS_INTERVAL_ENV, ProgressPrinter } from '../../../../provider/host/progress';
import { manualPrinter as manual } from './manual-printer';

describe('provider/host: progress lines, edges', () => {
  const savedInterval = process.env[PROGRESS_INTERVAL_ENV];
  afterEach(() => {
    if (savedInterval === undefined) delete process.env[PROGRESS_INTERVAL_ENV];
    else process.env[PROGRESS_INTERVAL_ENV] = savedInterval;
  });

  it('blanks numbers, not digits away: "a1b" and "ab" are different news', () => {
    const { p, lines } = manual({ intervalMs: 10_000 });
    p.report('HarvesterImage', 'default/i', 'step a1b');
    p.report('HarvesterImage', 'default/i', 'step ab');
    p.report('HarvesterImage', 'default/i', 'step a22b');
    assert.deepEqual(lines, ['HarvesterImage default/i: step a1b', 'HarvesterImage default/i: step ab', 'HarvesterImage default/i: step a22b']);
  });

  it('prints nothing for a blank line, and trims what it prints', () => {
    const { p, lines } = manual({ intervalMs: 0 });
    p.report('HarvesterImage', 'default/i', '  \n  ');
    p.report('HarvesterImage', 'default/i', '');
    p.report('HarvesterImage', 'default/i', '  downloading\n');
    assert.deepEqual(lines, ['HarvesterImage default/i: downloading']);
    p.flush('HarvesterImage', 'default/never-reported');
    assert.equal(lines.length, 1, 'a flush of an object never reported prints nothing');
  });

  it('prints a repeat at once when a whole interval has passed since the last line', () => {
    const { p, lines, advance } = manual({ intervalMs: 10_000 });
    p.report('HarvesterImage', 'default/i', 'downloading 1%');
    advance(10_000);
    p.report('HarvesterImage', 'default/i', 'downloading 2%');
    assert.deepEqual(lines, ['HarvesterImage default/i: downloading 1%', 'HarvesterImage default/i: downloading 2%']);
  });

  it('holds a repeat back for what is left of the interval since the last line, not a whole one', () => {
    const { p, lines, advance, delays } = manual({ intervalMs: 10_000 });
    advance(50_000);
    p.report('HarvesterImage', 'default/i', 'downloading 1%');
    advance(4_000);
    p.report('HarvesterImage', 'default/i', 'downloading 2%');
    assert.deepEqual(delays, [6_000]);
    advance(5_999);
    assert.equal(lines.length, 1);
    advance(1);
    assert.deepEqual(lines, ['HarvesterImage default/i: downloading 1%', 'HarvesterImage default/i: downloading 2%']);
  });

  it('takes its interval from HARVESTER_PROGRESS_INTERVAL in seconds: 0 prints every line, garbage and negatives mean 10 s', () => {
    const repeatsPrinted = (value: string | undefined) => {
      if (value === undefined) delete process.env[PROGRESS_INTERVAL_ENV];
      else process.env[PROGRESS_INTERVAL_ENV] = value;
      const { p, lines, advance } = manual();
      p.report('X', 'o', 'tick 1');
      advance(1_500);
      p.report('X', 'o', 'tick 2');
      advance(8_000);
      p.report('X', 'o', 'tick 3');
      return lines.length;
    };
    assert.equal(repeatsPrinted('0'), 3, '0 s: no holding back');
    assert.equal(repeatsPrinted('1'), 3, '1 s: each repeat came after more than a second');
    assert.equal(repeatsPrinted('2'), 2, '2 s: the first repeat is held until 2 s, the second held again');
    assert.equal(repeatsPrinted('-1'), 1, 'negative: the default 10 s (both repeats held)');
    assert.equal(repeatsPrinted('soon'), 1, 'not a number: the default');
    assert.equal(repeatsPrinted(''), 1, 'empty: the default');
    assert.equal(repeatsPrinted(undefined), 1, 'unset: the default');
  });

  it('by default writes each line with its newline to standard output', () => {
    const written: string[] = [];
    const original = process.stdout.write;
    process.stdout.write = ((chunk: string) => (written.push(chunk), true)) as typeof process.stdout.write;
    try {
      new ProgressPrinter({ intervalMs: 0 }).report('HarvesterImage', 'default/i', 'ready');
    } finally {
      process.stdout.write = original;
    }
    assert.deepEqual(written, ['HarvesterImage default/i: ready\n']);
  });

  it('by default holds a line back on a timer that the call\'s end cancels', () => {
    const cleared: unknown[] = [];
    const original = globalThis.clearTimeout;
    globalThis.clearTimeout = ((timer: NodeJS.Timeout) => (cleared.push(timer), original(timer))) as typeof clearTimeout;
    const lines: string[] = [];
    try {
      const p = new ProgressPrinter({ intervalMs: 60_000, write: (l) => lines.push(l) });
      p.report('HarvesterImage', 'default/i', 'downloading 1%');
      p.report('HarvesterImage', 'default/i', 'downloading 2%');
      assert.equal(cleared.length, 0);
      p.flush('HarvesterImage', 'default/i');
    } finally {
      globalThis.clearTimeout = original;
    }
    assert.equal(cleared.length, 1, 'the held line\'s timer is cancelled');
    assert.deepEqual(lines, ['HarvesterImage default/i: downloading 1%', 'HarvesterImage default/i: downloading 2%']);
  });
});
