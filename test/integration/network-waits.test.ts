/**
 * HarvesterNetwork's wait when Harvester's network controller never answers (an emulator without its controllers):
 * create times out saying what it waited for — the labels, and for an auto route on a VLAN also the route learnt —
 * what it last saw and the option to raise, and records the network it wrote. The deadline runs on a manual clock
 * moved past the timeout once the provider reported its first look, so the outcome does not depend on speed.
 */
import assert from 'node:assert/strict';
import { ManualClock } from '../../emulator/clock';
import { ResourceInitError } from '../../provider/core/errors';
import { createNetworkProvider } from '../../provider/resources/network/handlers';
import { validateInputs } from '../../provider/resources/network/validate';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('HarvesterNetwork create times out naming what it waits for (no network controller)', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ controllers: false });
  });
  after(async () => t?.stop());

  /** Creates the network and lets its 5s create timeout pass once the wait has looked; the error. */
  async function timedOut(name: string, extra: Raw): Promise<ResourceInitError> {
    const clock = new ManualClock(Date.now());
    let looked: () => void = () => undefined;
    const firstLook = new Promise<void>((resolve) => (looked = resolve));
    const networks = createNetworkProvider({ connect: fastConnect(), clock, onProgress: () => looked() });
    const inputs = validateInputs({ kubeconfig: t.emulator.kubeconfig, name, timeouts: { create: '5s' }, ...extra }).inputs!;
    const creating = networks.create(inputs).then(
      () => undefined,
      (err: unknown) => err,
    );
    await Promise.race([firstLook, creating]);
    clock.advance(5_000);
    const err = await creating;
    assert.ok(err instanceof ResourceInitError, String(err));
    assert.equal(err.id, `default/${name}`);
    return err;
  }
  const waitedFor = (name: string, what: string) =>
    new RegExp(
      `Timed out after 5s waiting for NetworkAttachmentDefinition default/${name} ${what}\\. Last seen: VM network default/${name}: waiting for Harvester's network controller to label it\\. ` +
        'Still pending: label network\\.harvesterhci\\.io/ready\\. .*raise `timeouts\\.create` \\(now 5s\\)',
      's',
    );

  it('a VLAN network with an auto route: "to be labelled by Harvester and its route learnt"', async () => {
    const err = await timedOut('auto', { vlan: 20 });
    assert.match(err.message, waitedFor('auto', 'to be labelled by Harvester and its route learnt'));
  });

  it('a VLAN network with a manual route: "to be labelled by Harvester"', async () => {
    const err = await timedOut('manual', { vlan: 21, route: { mode: 'manual', cidr: '10.21.0.0/24', gateway: '10.21.0.1' } });
    assert.match(err.message, waitedFor('manual', 'to be labelled by Harvester'));
  });

  it('an untagged network: "to be labelled by Harvester"', async () => {
    const err = await timedOut('untagged', {});
    assert.match(err.message, waitedFor('untagged', 'to be labelled by Harvester'));
  });
});
