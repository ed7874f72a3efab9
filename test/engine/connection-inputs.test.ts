/**
 * A check failure on a connection input is reported on property "" with the input named in the reason, through
 * Pulumi's real dynamic-provider host, for every resource: the CLI may print the value of the property a failure
 * names (pulumi/pulumi#19465), and the connection inputs are not part of the resource (host/host-safe.ts). The
 * `context` input is pinned here as `kubeconfig` is: a malformed one (empty, not a string) and one the kubeconfig
 * does not define.
 */
import assert from 'node:assert/strict';
import { FIXTURES } from '../conformance/fixtures';
import { startEngineHarness, type EngineHarness } from './engine-support';

type Raw = Record<string, unknown>;

/** One fixture per provider export, among those that need no guest cluster (their inputs are complete without setup). */
const RESOURCES = FIXTURES.filter((f, i) => !f.emulator && FIXTURES.findIndex((g) => g.exportName === f.exportName) === i);

describe('engine contract: a failing connection input is reported on property "" and named in the reason', function () {
  this.timeout(60_000);
  let h: EngineHarness;
  before(async () => {
    h = await startEngineHarness();
  });
  after(async () => h?.stop());

  it('covers every provider export', () => {
    assert.deepEqual(RESOURCES.map((f) => f.exportName).sort(), ['guestClusterCredentials', 'guestClusterIdentity', 'image', 'ipPool', 'keyPair', 'loadBalancer', 'machinePool', 'network', 'topologyLabels']);
  });

  for (const fixture of RESOURCES) {
    const cases: { what: string; extra: () => Raw; input: string; reason: RegExp }[] = [
      { what: 'an empty context', extra: () => ({ context: '' }), input: 'context', reason: /^context: / },
      { what: 'a context that is not a string', extra: () => ({ context: 42 }), input: 'context', reason: /^context: / },
      { what: 'a context the kubeconfig does not define', extra: () => ({ kubeconfig: h.t.emulator.kubeconfig, context: 'no-such-context' }), input: 'context', reason: /context "no-such-context"/ },
      { what: 'an empty kubeconfig', extra: () => ({ kubeconfig: '' }), input: 'kubeconfig', reason: /^kubeconfig: / },
    ];
    for (const c of cases) {
      it(`${fixture.className}: ${c.what} is refused on property "", naming ${c.input}`, async () => {
        const text = await h.providerText(fixture.exportName);
        const name = `conn-${fixture.exportName.toLowerCase()}`;
        const r = await h.host.check(h.urn(fixture.className, name), {}, { ...fixture.variants[0].inputs(name), ...c.extra(), __provider: text });
        assert.ok(r.failures.length > 0, `${c.what} must be refused`);
        assert.deepEqual(r.failures.filter((f) => f.property !== ''), [], 'no failure names a connection input as its property');
        assert.ok(r.failures.some((f) => c.reason.test(f.reason)), `a reason names ${c.input}: ${JSON.stringify(r.failures)}`);
      });
    }
  }
});
