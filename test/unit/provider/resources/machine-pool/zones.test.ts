import assert from 'node:assert/strict';
import fc from 'fast-check';
import { zoneTargets } from '../../../../../provider/core/zone-targets';
import { assignZones, selectRemovals, type ZoneMember } from '../../../../../provider/resources/machine-pool/zones';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

function finalCounts(kept: ZoneMember[], count: number, zones: string[]): Map<string, number> {
  const a = assignZones(kept, count, zones);
  const counts = new Map(zones.map((z) => [z, 0]));
  for (const z of [...a.zoneOf.values(), ...a.newZones]) counts.set(z as string, (counts.get(z as string) ?? 0) + 1);
  return counts;
}

const membersArb = fc.uniqueArray(
  fc.record({ index: fc.nat(40), zone: fc.option(fc.constantFrom(...ZONES, 'us-west-2a'), { nil: undefined }) }),
  { selector: (m) => m.index, maxLength: 12 },
);

describe('machine-pool zones', () => {
  it('spreads a new pool round-robin over the zones', () => {
    assert.deepEqual(assignZones([], 5, ZONES).newZones, ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1a', 'us-east-1b']);
    assert.deepEqual(assignZones([], 2, []).newZones, [undefined, undefined]);
  });

  it('gives the remainder to the zones already holding the most VMs', () => {
    const t = zoneTargets(4, ZONES, new Map([['us-east-1c', 2]]));
    assert.deepEqual([...t.entries()], [['us-east-1a', 1], ['us-east-1b', 1], ['us-east-1c', 2]]);
  });

  it('property: any pool ends up evenly spread, with every zone count within one of the others', () => {
    fc.assert(fc.property(membersArb, fc.nat(15), fc.integer({ min: 1, max: 3 }), (members, extra, nz) => {
      const zones = ZONES.slice(0, nz);
      const count = members.length + extra;
      const counts = [...finalCounts(members, count, zones).values()];
      assert.equal(counts.reduce((a, b) => a + b, 0), count);
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `counts ${counts}`);
    }));
  });

  it('property: a VM whose zone holds no more than its fair share never moves', () => {
    fc.assert(fc.property(membersArb, fc.nat(6), (members, extra) => {
      const count = members.length + extra;
      const base = Math.floor(count / ZONES.length);
      const a = assignZones(members, count, ZONES);
      for (const z of ZONES) {
        const inZone = members.filter((m) => m.zone === z);
        if (inZone.length <= base) for (const m of inZone) assert.equal(a.zoneOf.get(m.index), z);
      }
    }));
  });

  it('removes the highest indexes first without zones', () => {
    const members = [0, 1, 2, 3, 4].map((index) => ({ index }));
    assert.deepEqual(selectRemovals(members, 3, []), [4, 3, 2]);
  });

  it('removes from the most populated zone, highest index first, and VMs outside the zones before all', () => {
    const members: ZoneMember[] = [
      { index: 0, zone: 'us-east-1a' }, { index: 1, zone: 'us-east-1b' }, { index: 2, zone: 'us-east-1c' },
      { index: 3, zone: 'us-east-1a' }, { index: 4, zone: 'us-east-1b' },
    ];
    assert.deepEqual(selectRemovals(members, 3, ZONES), [4, 3, 2]);
    assert.deepEqual(selectRemovals([...members, { index: 9, zone: 'us-west-2a' }], 1, ZONES), [9]);
  });

  it('property: scale-down of an evenly spread pool stays evenly spread', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 12 }), fc.nat(12), (size, down) => {
      const members = assignZones([], size, ZONES).newZones.map((zone, index) => ({ index, zone }));
      const removed = new Set(selectRemovals(members, Math.min(down, size), ZONES));
      const left = members.filter((m) => !removed.has(m.index));
      const counts = ZONES.map((z) => left.filter((m) => m.zone === z).length);
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `counts ${counts}`);
    }));
  });
});
