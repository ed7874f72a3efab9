/**
 * HarvesterNetwork's input rules (validate.ts) in the user's words: each refusal's property and exact reason,
 * the label key and value limits the apiserver applies at their edges (prefix 253, name and value 63), the route
 * fields each mode takes, an unknown mode (preview) refusing nothing it might accept, and a null where an object
 * belongs refused by the model, not crashing the cross-field rules.
 */
import assert from 'node:assert/strict';
import { formatPath } from '../../../../provider/core/input-errors';
import { UNKNOWN } from '../../../../provider/core/unknowns';
import { validateInputs } from '../../../../provider/resources/network/validate';

const failures = (raw: Record<string, unknown>) => validateInputs({ name: 'n', ...raw }).failures.map((f) => [f.property, f.reason]);
const BAD_KEY = 'is not a valid label key (an optional DNS-subdomain prefix and "/", then at most 63 of a-z, A-Z, 0-9, "-", "_", "." starting and ending alphanumeric)';
const badValue = (v: string) => `${JSON.stringify(v)} is not a valid label value (at most 63 of a-z, A-Z, 0-9, "-", "_", "." starting and ending alphanumeric)`;
/** A DNS subdomain of `length` characters (labels of at most 63). */
const subdomain = (length: number) => ['b'.repeat(63), 'c'.repeat(63), 'd'.repeat(63)].reduce((s, l) => `${s}.${l}`, 'a'.repeat(length - 192));

describe('HarvesterNetwork labels: keys and values as the apiserver takes them', () => {
  it('a reserved key is refused naming its prefix', () => {
    assert.deepEqual(failures({ labels: { 'network.harvesterhci.io/type': 'x' } }), [
      ['labels["network.harvesterhci.io/type"]', 'keys starting with "network.harvesterhci.io/" belong to Harvester\'s network controller or to this provider: use another key'],
    ]);
  });

  it('accepts a key without a prefix (upper case and one character included) and a DNS-subdomain prefix up to 253', () => {
    assert.equal(subdomain(253).length, 253);
    for (const key of ['Tier', 'a', 'app.kubernetes.io/part-of', `${subdomain(253)}/x`, 'x'.repeat(63)]) assert.deepEqual(failures({ labels: { [key]: 'v' } }), [], key);
  });

  it('refuses a prefix over 253 or not a DNS subdomain, an empty prefix, a name over 63, each with the rule', () => {
    for (const key of [`${subdomain(254)}/x`, 'Example.com/x', '/x', 'example.com/', 'x'.repeat(64), 'example.com/' + 'x'.repeat(64)]) {
      assert.deepEqual(failures({ labels: { [key]: 'v' } }), [[formatPath(['labels', key]), BAD_KEY]], key);
    }
  });

  it('values: up to 63 accepted, 64 refused with the value quoted', () => {
    assert.deepEqual(failures({ labels: { tier: 'v'.repeat(63) } }), []);
    assert.deepEqual(failures({ labels: { tier: 'v'.repeat(64) } }), [['labels.tier', badValue('v'.repeat(64))]]);
  });

  it('labels or route null: the model refuses it on its property, the cross-field rules do not crash', () => {
    assert.deepEqual(validateInputs({ name: 'n', labels: null }).failures.map((f) => f.property), ['labels']);
    assert.deepEqual(validateInputs({ name: 'n', vlan: 20, route: null }).failures.map((f) => f.property), ['route']);
  });
});

describe('HarvesterNetwork route fields per mode', () => {
  it('an untagged network: mode "manual" alone is refused on route.mode; an explicit auto route is accepted', () => {
    assert.deepEqual(failures({ route: { mode: 'manual' } }), [['route.mode', 'a route applies to VLAN networks only (Harvester drops the route of an untagged network): set vlan, or leave route out']]);
    assert.deepEqual(failures({ route: { mode: 'auto' } }), []);
    assert.deepEqual(failures({ route: {} }), []);
  });

  it('manual: cidr and gateway required, dhcpServer refused', () => {
    assert.deepEqual(failures({ vlan: 20, route: { mode: 'manual', dhcpServer: '10.20.0.2' } }), [
      ['route.cidr', 'is required for mode "manual": the VLAN\'s subnet, e.g. "192.168.20.0/24"'],
      ['route.gateway', 'is required for mode "manual": the VLAN\'s gateway, e.g. "192.168.20.1"'],
      ['route.dhcpServer', 'applies to mode "auto" only: leave it out, or set mode "auto"'],
    ]);
  });

  it('auto (the default): cidr and gateway refused, a DHCP server that is not an address refused', () => {
    const manualOnly = 'applies to mode "manual" only (in mode "auto" Harvester learns it by DHCP): leave it out, or set mode "manual"';
    assert.deepEqual(failures({ vlan: 20, route: { cidr: '10.20.0.0/24', gateway: '10.20.0.1', dhcpServer: '10.20.0' } }), [
      ['route.cidr', manualOnly],
      ['route.gateway', manualOnly],
      ['route.dhcpServer', '"10.20.0" is not an IPv4 address, e.g. "192.168.20.2"'],
    ]);
    assert.deepEqual(failures({ vlan: 20, route: { dhcpServer: '10.20.0.2' } }), []);
  });

  it('a mode unknown at preview refuses no field it might take', () => {
    const v = validateInputs({ name: 'n', vlan: 20, route: { mode: UNKNOWN, cidr: '10.20.0.0/24', gateway: '10.20.0.1' } });
    assert.deepEqual(v.failures, []);
  });
});
