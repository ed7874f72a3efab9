import assert from 'node:assert/strict';
import { main } from '../../examples/machine-pool-basic';

describe('example: machine-pool-basic', function () {
  this.timeout(60_000);

  it('creates 3 VMs over 3 zones, refreshes without drift, scales to 5 in place, and destroys the pool', async () => {
    const lines: string[] = [];
    await main((line) => lines.push(line));
    const vmRows = (prefix: string) => lines.filter((l) => l.startsWith(`  ${prefix}`));
    assert.ok(lines.includes('refresh: drift []'), lines.join('\n'));
    assert.ok(lines.includes('scaling to 5: changes=true replaces=[]'));
    const running = vmRows('workers-').filter((l) => / us-east-1[abc] .* \d+\.\d+\.\d+\.\d+ +Running$/.test(l));
    assert.equal(running.length, 3 + 5, lines.join('\n'));
    assert.equal(lines.at(-1), 'done');
  });
});
