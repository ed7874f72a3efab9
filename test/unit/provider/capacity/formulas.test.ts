/** The per-VM footprint formulas (docs/design/capacity.md), as tables checked against hand computations. */
import { strict as assert } from 'node:assert';
import { amountOf, cores, cpuQuantity, footprint, freeVcpus, gib, kubevirtMinorOf, overcommitDefault, parseOvercommit } from '../../../../provider/capacity';
import { GIB, V16, V18 } from './fixtures';

describe('capacity formulas', () => {
  it('amountOf parses quantities exactly, rounding up to the millicore or byte', () => {
    const table: [string, unknown, number | undefined][] = [
      ['cpu', '0.1', 100],
      ['cpu', '4', 4000],
      ['limits.cpu', '4015m', 4015],
      ['cpu', '100u', 1],
      ['cpu', 2, 2000],
      ['memory', '1.5Gi', 1610612736],
      ['memory', '35M', 35_000_000],
      ['memory', '131811616Ki', 134975094784],
      ['memory', '1e3', 1000],
      ['memory', 'lots', undefined],
      ['memory', undefined, undefined],
    ];
    for (const [r, q, want] of table) assert.equal(amountOf(r, q), want, `${r} ${String(q)}`);
  });

  it('formats GiB, cores and CPU quantities for messages', () => {
    assert.equal(gib(6237325856), '5.8 GiB');
    assert.equal(gib(96 * GIB), '96 GiB');
    assert.equal(gib(512 * 2 ** 20), '512 MiB');
    assert.equal(cores(2200), '2.2 cores');
    assert.equal(cores(1000), '1 core');
    assert.equal(cores(1234), '1.234 cores');
    assert.equal(cpuQuantity(405), '405m');
    assert.equal(cpuQuantity(4000), '4');
    assert.equal(freeVcpus(2200, { cpu: 1000, memory: 150, storage: 100 }), 22);
    assert.equal(freeVcpus(-5, { cpu: 1000, memory: 150, storage: 100 }), 0);
  });

  it('knows the overcommit default and KubeVirt release of each Harvester version', () => {
    const table: [string | undefined, number, number][] = [
      ['v1.6.1', 1600, 5],
      ['v1.7.0', 1600, 6],
      ['v1.8.0', 1000, 7],
      ['v1.9.0-rc6', 1000, 8],
      [undefined, 1000, 7],
    ];
    for (const [version, cpu, minor] of table) {
      assert.equal(overcommitDefault(version).cpu, cpu, String(version));
      assert.equal(kubevirtMinorOf(version), minor, String(version));
    }
    assert.deepEqual(parseOvercommit('{"cpu":1600,"memory":150}'), { cpu: 1600, memory: 150, storage: 0 });
    assert.equal(parseOvercommit('{"cpu":1.5}'), undefined);
    assert.equal(parseOvercommit('[1]'), undefined);
    assert.equal(parseOvercommit('{'), undefined);
  });

  // Each row: shape, settings → launcher pod requests and limits (the emulator renders the same pods:
  // test/emulator/harvester-capacity.test.ts, and test/integration/capacity.test.ts compares them live).
  const table: [string, Parameters<typeof footprint>[0], Parameters<typeof footprint>[1], { cpu: number; memory: number }, { cpu: number; memory: number }][] = [
    ['4 vCPU / 8Gi at v1.6 (1600/150, KubeVirt 1.5: 16Mi video)', { cpu: 4, memoryBytes: 8 * GIB }, V16, { cpu: 255, memory: 5726273536 + 450887104 + 35_000_000 }, { cpu: 4015, memory: 8 * GIB + 450887104 + 60_000_000 }],
    ['4 vCPU / 8Gi at v1.8 (1000/150, KubeVirt 1.7: 32Mi video)', { cpu: 4, memoryBytes: 8 * GIB }, V18, { cpu: 405, memory: 5726273536 + 476052320 + 35_000_000 }, { cpu: 4015, memory: 8 * GIB + 476052320 + 60_000_000 }],
    ['dedicated CPUs at v1.6: no overcommit, +100Mi after the ratio, console requests = limits', { cpu: 4, memoryBytes: 8 * GIB, dedicatedCpu: true }, V16, { cpu: 4015, memory: 8 * GIB + 459276192 + 104857600 + 60_000_000 }, { cpu: 4015, memory: 8 * GIB + 459276192 + 104857600 + 60_000_000 }],
    ['no ratio, no console log, no graphics', { cpu: 2, memoryBytes: 4 * GIB, consoleLog: false, graphics: false }, { ...V16, overheadRatio: undefined }, { cpu: 125, memory: 2862612480 + 5591041 + 230686720 + 16 * 2 ** 20 + 8 * 2 ** 20 }, { cpu: 2000, memory: 4 * GIB + 5591041 + 230686720 + 16 * 2 ** 20 + 8 * 2 ** 20 }],
  ];
  for (const [name, shape, settings, requests, limits] of table) {
    it(name, () => {
      const f = footprint(shape, settings);
      assert.deepEqual(f.requests, { ...requests, pods: 1 });
      assert.deepEqual(f.limits, limits);
    });
  }
});
