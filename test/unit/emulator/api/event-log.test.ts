import assert from 'node:assert/strict';
import { EventLog, LoggedEvent } from '../../../../emulator/api/event-log';
import { KubeObject } from '../../../../emulator/api/types';

function ev(rv: number, kindKey = 'g/things'): LoggedEvent {
  return { rv, kindKey, type: 'ADDED', object: { apiVersion: 'v1', kind: 'X', metadata: { name: `o${rv}` } } as KubeObject };
}

describe('event log', () => {
  it('returns events after a resourceVersion, oldest first, optionally per kind', () => {
    const log = new EventLog(10, 1);
    for (let rv = 2; rv <= 6; rv++) log.append(ev(rv, rv % 2 ? 'a' : 'b'));
    assert.deepEqual(log.since(3)!.map((e) => e.rv), [4, 5, 6]);
    assert.deepEqual(log.since(1, 'a')!.map((e) => e.rv), [3, 5]);
    assert.deepEqual(log.since(6), []);
    assert.deepEqual(log.since(100), []);
  });

  it('drops the oldest beyond capacity and reports resumes before the window as too old', () => {
    const log = new EventLog(3, 1);
    for (let rv = 2; rv <= 7; rv++) log.append(ev(rv));
    assert.equal(log.size, 3);
    assert.equal(log.compactedThrough, 4);
    assert.equal(log.since(3), undefined);
    assert.deepEqual(log.since(4)!.map((e) => e.rv), [5, 6, 7]);
  });

  it('compact() forgets everything before the current resourceVersion', () => {
    const log = new EventLog(5, 1);
    log.append(ev(2));
    log.append(ev(3));
    log.compact(3);
    assert.equal(log.size, 0);
    assert.equal(log.since(2), undefined);
    assert.deepEqual(log.since(3), []);
    log.append(ev(4));
    assert.deepEqual(log.since(3)!.map((e) => e.rv), [4]);
  });

  it('refuses a non-positive capacity', () => {
    assert.throws(() => new EventLog(0), RangeError);
  });
});
