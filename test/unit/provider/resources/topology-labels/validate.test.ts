import assert from 'node:assert/strict';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { diffInputs } from '../../../../../provider/resources/topology-labels/diff';
import { OUTPUT_ONLY, REPLACE_INPUTS, SECRET_INPUTS } from '../../../../../provider/resources/topology-labels/model';
import { validateInputs } from '../../../../../provider/resources/topology-labels/validate';
import { formatFailure } from '../../../../../provider/core/input-errors';

const base = { name: 'site', hosts: { 'harvester-node-0': { zone: 'us-east-1a' } } };

describe('TopologyLabels input validation', () => {
  it('reads the secret and replace flags from the model', () => {
    assert.deepEqual(SECRET_INPUTS, ['kubeconfig', 'guestKubeconfig']);
    assert.deepEqual(REPLACE_INPUTS, ['name']);
    assert.deepEqual(OUTPUT_ONLY, ['applied', 'previous', 'zones', 'warnings', 'drift', 'guestNodes', 'guestVersions']);
  });

  it('fills defaults', () => {
    const v = validateInputs(base);
    assert.deepEqual(v.failures, []);
    assert.equal(v.inputs!.guestNamespace, 'default');
    assert.equal(v.inputs!.waitForGuestSync, false);
  });

  it('refuses any key but region and zone, with the reason', () => {
    const v = validateInputs({ ...base, hosts: { h0: { zone: 'a', rack: 'r1', 'topology.kubernetes.io/region': 'r' } } });
    assert.deepEqual(v.failures.map((f) => f.property), ['hosts.h0.rack', 'hosts.h0["topology.kubernetes.io/region"]']);
    assert.match(v.failures[0].reason, /only "region" and "zone" can be set: .*harvester\/harvester#1418/);
    assert.match(v.failures[1].reason, /write the key as "region"/);
  });

  it('refuses values that are not label values, and empty hosts', () => {
    const v = validateInputs({ ...base, hosts: { h0: { zone: 'us east' }, h1: { region: '' }, h2: {} } });
    const byProperty = Object.fromEntries(v.failures.map((f) => [f.property, f.reason]));
    assert.match(byProperty['hosts.h0.zone'], /valid label value/);
    assert.match(byProperty['hosts.h1.region'], /must not be empty/);
    assert.match(byProperty['hosts.h2'], /sets neither region nor zone/);
  });

  it('does not judge unknown values (preview)', () => {
    const v = validateInputs({ ...base, hosts: { h0: { zone: UNKNOWN } } });
    assert.deepEqual(v.failures, []);
    assert.equal(v.inputs, undefined);
  });

  it('needs the guest kubeconfig to wait for the guest', () => {
    assert.deepEqual(validateInputs({ ...base, waitForGuestSync: true }).failures.map(formatFailure), [
      'waitForGuestSync: is true but guestKubeconfig is not set: waiting needs the guest cluster. Set guestKubeconfig, or set waitForGuestSync to false.',
    ]);
  });

  it('words an empty hosts map, a misspelt input and a bad secret value in full, never quoting the secret', () => {
    assert.deepEqual(validateInputs({ ...base, hosts: {} }).failures.map(formatFailure), ['hosts: is empty: name at least one Harvester host with its region and/or zone.']);
    assert.match(formatFailure(validateInputs({ ...base, waitForGuestsync: true }).failures[0]), /^waitForGuestsync: unknown property; did you mean "waitForGuestSync"\?/);
    const secret = validateInputs({ ...base, guestKubeconfig: 12345 }).failures;
    assert.deepEqual(secret.map(formatFailure), ['guestKubeconfig: is invalid (value not shown: it is secret)']);
  });

  it('a host entry with an unknown key is refused for that key alone, not also as setting neither region nor zone', () => {
    assert.deepEqual(validateInputs({ ...base, hosts: { h0: { rack: 'r1' } } }).failures.map((f) => f.property), ['hosts.h0.rack']);
    const [neither] = validateInputs({ ...base, hosts: { h0: { zone: undefined } } }).failures;
    assert.equal(neither.property, 'hosts.h0');
    assert.match(neither.reason, /^sets neither region nor zone/);
  });
});

describe('TopologyLabels diff', () => {
  const olds = { ...base, guestNamespace: 'default', waitForGuestSync: false, guestSyncTimeout: '10m', applied: {}, previous: {}, drift: [], guestNodes: [] };

  it('sees no change for the same inputs (defaults left out)', () => {
    assert.deepEqual(diffInputs(olds, base), { changes: false, replaces: [], reasons: [] });
  });

  it('updates hosts in place and replaces on a name change', () => {
    const d = diffInputs(olds, { ...base, name: 'other', hosts: { 'harvester-node-0': { zone: 'b' } } });
    assert.deepEqual(d.replaces, ['name']);
    assert.equal(d.reasons.length, 2);
  });

  it('treats drift found by read as a change, and never quotes a kubeconfig', () => {
    assert.deepEqual(diffInputs({ ...olds, drift: ['host h0: zone'] }, base).reasons, ['drift: host h0: zone']);
    assert.deepEqual(diffInputs({ ...olds, guestKubeconfig: 'a' }, { ...base, guestKubeconfig: 'b' }).reasons, ['guestKubeconfig changed (value not shown: it is secret)']);
  });

  it('says which input is not known yet during preview, and state recorded without a name or drift adds neither a replace nor a drift line', () => {
    assert.deepEqual(diffInputs(olds, { ...base, hosts: UNKNOWN }).reasons, ['hosts is not known until apply']);
    const { name: _name, drift: _drift, ...unnamed } = olds;
    assert.deepEqual(diffInputs(unnamed, { ...base, name: 'other' }), { changes: true, replaces: [], reasons: ['name: nothing → "other"'] });
  });
});
