/**
 * The host's progress sink (provider/host/progress.ts) on a manual clock: prefix, redaction, one line per
 * object per interval unless the news changed, the held-back line printed when the interval is over or the
 * call ends, and the line format the runner parses back.
 */
import assert from 'node:assert/strict';
import { clearRegisteredSecrets, registerSecret } from '../../../../provider/client/redact';
import { progressFor, progressObject } from '../../../../provider/core/progress';
import { formatProgressLine, parseProgressLine } from '../../../../provider/host/progress';
import { manualPrinter } from './manual-printer';

const printer = () => manualPrinter({ intervalMs: 10_000 });

describe('provider host: progress lines', () => {
  afterEach(() => clearRegisteredSecrets());

  it('prefixes each line with the resource and its object, on one line', () => {
    const { p, lines } = printer();
    const onProgress = progressFor(p.sinkFor('HarvesterMachinePool'), { namespace: 'default', name: 'workers' })!;
    onProgress('0/3 VMs ready;\n  workers-0: waiting to be scheduled on a host');
    p.sinkFor('HarvesterIPPool')('pool is Ready', progressObject({ name: 'lab' }));
    assert.deepEqual(lines, ['HarvesterMachinePool default/workers: 0/3 VMs ready; workers-0: waiting to be scheduled on a host', 'HarvesterIPPool lab: pool is Ready']);
    assert.deepEqual(parseProgressLine(lines[0]), { resource: 'HarvesterMachinePool', object: 'default/workers', text: '0/3 VMs ready; workers-0: waiting to be scheduled on a host' });
    assert.equal(parseProgressLine('some other output of the host'), undefined);
    assert.equal(formatProgressLine(parseProgressLine(lines[1])!), lines[1]);
  });

  it('never prints a secret', () => {
    const { p, lines } = printer();
    registerSecret('#cloud-config\npassword: hunter2-and-more\n');
    p.sinkFor('HarvesterMachinePool')('retrying with password: hunter2-and-more and token: abc.def.ghi', 'default/w');
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0], /hunter2|abc\.def\.ghi/);
  });

  it('prints news at once, holds back repeats of the same news until the interval is over, and always shows the last line', () => {
    const { p, lines, advance } = printer();
    const sink = p.sinkFor('HarvesterMachinePool');
    sink('0/3 VMs ready; w-0: waiting to be scheduled', 'default/w');
    sink('0/3 VMs ready; w-1: waiting to be scheduled', 'default/w'); // same news: held
    sink('1/3 VMs ready; w-2: waiting to be scheduled', 'default/w'); // same news: replaces the held line
    sink('pool ready', 'default/other'); // another object: its own budget
    assert.deepEqual(lines, ['HarvesterMachinePool default/w: 0/3 VMs ready; w-0: waiting to be scheduled', 'HarvesterMachinePool default/other: pool ready']);
    sink('1/3 VMs ready; w-1: Running, waiting for an IPv4 address', 'default/w'); // news: at once, the held line dropped
    assert.equal(lines.length, 3);
    sink('2/3 VMs ready; w-2: Running, waiting for an IPv4 address', 'default/w');
    advance(9_999);
    assert.equal(lines.length, 3, 'nothing before the interval is over');
    advance(1);
    assert.equal(lines.at(-1), 'HarvesterMachinePool default/w: 2/3 VMs ready; w-2: Running, waiting for an IPv4 address');
    sink('2/3 VMs ready; w-0: Running, waiting for an IPv4 address', 'default/w');
    p.flush('HarvesterMachinePool', 'default/w');
    assert.equal(lines.at(-1), 'HarvesterMachinePool default/w: 2/3 VMs ready; w-0: Running, waiting for an IPv4 address', 'the call ended: the last line is shown');
    assert.equal(lines.length, 5);
    advance(60_000);
    p.flush('HarvesterMachinePool', 'default/w');
    assert.equal(lines.length, 5, 'nothing printed twice');
  });

  it('bounds the lines of a long wait by its news and its duration, not by how often it reports', () => {
    const { p, lines, advance } = printer();
    const sink = p.sinkFor('HarvesterLoadBalancer');
    for (let second = 0; second < 60; second++) {
      sink(`import at ${second}%`, 'default/lb');
      advance(1_000);
    }
    p.flush('HarvesterLoadBalancer', 'default/lb');
    // 60 reports: the first, then one line per 10 s (the latest held back), then the last one at the end.
    assert.equal(lines.length, 7, lines.join('\n'));
    assert.equal(lines.at(-1), 'HarvesterLoadBalancer default/lb: import at 59%');
  });
});
