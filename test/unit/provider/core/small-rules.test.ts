/**
 * The small rules of provider/core every resource leans on, at their edges: quantities compared and printed by
 * value, the object a progress line is about, unknowns along a path, the hidden inputs dropped, the zone-target
 * rule's ties, and references declared through a list of ten or more elements.
 */
import assert from 'node:assert/strict';
import { progressObject } from '../../../../provider/core/progress';
import { isDeclared } from '../../../../provider/core/program-refs';
import { formatBytes, parseQuantity, sameQuantity } from '../../../../provider/core/quantity';
import { UNKNOWN, unknownAlong } from '../../../../provider/core/unknowns';
import { userInputs } from '../../../../provider/core/user-inputs';
import { zoneTargets } from '../../../../provider/core/zone-targets';

describe('core: small rules at their edges', () => {
  it('a quantity without a suffix is a plain number', () => {
    assert.equal(parseQuantity('2'), 2);
    assert.equal(parseQuantity(' 1.5 '), 1.5);
    assert.equal(parseQuantity('500m'), 0.5);
  });

  it('an absent quantity equals only another absent one; a malformed one equals nothing', () => {
    assert.equal(sameQuantity(undefined, undefined), true);
    assert.equal(sameQuantity(undefined, '1Gi'), false);
    assert.equal(sameQuantity('1Gi', undefined), false);
    assert.equal(sameQuantity('1Gi', 2 ** 30), true);
    assert.equal(sameQuantity('lots', 'lots'), false);
  });

  it('prints bytes in the largest binary unit dividing them exactly, else as a plain count', () => {
    assert.deepEqual([2 ** 60, 3 * 2 ** 50, 2 ** 40, 5 * 2 ** 30, 2 ** 20, 1024, 1536, 1000, 0].map(formatBytes), ['1Ei', '3Pi', '1Ti', '5Gi', '1Mi', '1Ki', '1536', '1000', '0']);
    assert.equal(formatBytes(1024 * 2 ** 60), '1024Ei');
  });

  it('a progress line is about namespace/name, the cluster name of a resource named by its cluster, or "-"', () => {
    assert.equal(progressObject({ namespace: 'default', name: 'workers' }), 'default/workers');
    assert.equal(progressObject({ name: 'pool-a' }), 'pool-a', 'cluster-scoped');
    assert.equal(progressObject({ namespace: '', name: 'pool-a' }), 'pool-a');
    assert.equal(progressObject({ namespace: 'default', clusterName: 'prod-1' }), 'default/prod-1');
    assert.equal(progressObject({ namespace: 'default', name: '', clusterName: 'prod-1' }), 'default/prod-1');
    assert.equal(progressObject({ namespace: 'default', name: 7, clusterName: 'prod-1' }), 'default/prod-1', 'a name that is not text (a bad input) is not used');
    assert.equal(progressObject({ namespace: 7, name: 'a' }), 'a');
    assert.equal(progressObject({}), '-');
    assert.equal(progressObject({ namespace: 'default', clusterName: 7 }), 'default/-');
  });

  it('unknown along a path: an unknown root is unknown everywhere; a path through a plain value is known', () => {
    assert.equal(unknownAlong(UNKNOWN, []), true);
    assert.equal(unknownAlong(UNKNOWN, ['disks', 0]), true);
    assert.equal(unknownAlong({ name: 'a' }, ['name', 'length']), false);
    assert.equal(unknownAlong({ disks: null }, ['disks', 0, 'image']), false);
  });

  it('drops only keys starting with "__", the host\'s and the SDK\'s', () => {
    assert.deepEqual(userInputs({ __provider: 'p', __inProgram: ['ipPool'], name: 'a', 'note__': 'kept', a__b: 1 }), { name: 'a', 'note__': 'kept', a__b: 1 });
    assert.deepEqual(userInputs(undefined), {});
  });

  it('zone targets: the remainder goes to the fullest zones, ties in the order of zones', () => {
    assert.deepEqual([...zoneTargets(4, ['a', 'b', 'c'])], [['a', 2], ['b', 1], ['c', 1]]);
    assert.deepEqual([...zoneTargets(5, ['a', 'b', 'c'], new Map([['b', 2], ['c', 2]]))], [['a', 1], ['b', 2], ['c', 2]]);
    assert.deepEqual([...zoneTargets(4, ['a', 'b', 'c'], new Map([['c', 1]]))], [['a', 1], ['b', 1], ['c', 2]]);
  });

  it('a reference in a list of ten or more elements is declared by its list', () => {
    const marked = new Set(['sshKeys', 'disks[12]']);
    for (const path of ['sshKeys[12]', 'disks[12].image']) assert.equal(isDeclared(marked, path), true, path);
    assert.equal(isDeclared(marked, 'disks[1].image'), false);
  });
});
