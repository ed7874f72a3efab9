/**
 * The one registry (provider/registry.ts) is what the package derives its surfaces from: each entry's resource on
 * the reconciler has the entry's models (one source), and every resource has its CDK for Terraform construct and
 * its conformance fixture, so adding an entry without them fails here rather than in a user's hands.
 */
import assert from 'node:assert/strict';
import * as cdktf from '../../../cdktf';
import { FIXTURES } from '../../conformance/fixtures';
import { RESOURCES } from '../../../provider/registry';

describe('provider/registry: every surface derives from one list', () => {
  it('each entry\'s resource on the reconciler has the entry\'s own models and type', () => {
    for (const entry of RESOURCES) {
      const resource = entry.load();
      assert.equal(resource.type, entry.className);
      assert.equal(resource.model.inputs, entry.inputs, `${entry.className}: inputs`);
      assert.equal(resource.model.outputs, entry.outputs, `${entry.className}: outputs`);
    }
  });

  it('each resource has a CDK for Terraform construct of its class name', () => {
    for (const entry of RESOURCES) assert.equal(typeof (cdktf as Record<string, unknown>)[entry.className], 'function', entry.className);
  });

  it('each resource is registered in the conformance suite (a resource is done only when it passes it)', () => {
    const registered = new Set(FIXTURES.map((f) => f.className));
    for (const entry of RESOURCES) assert.ok(registered.has(entry.className), `${entry.className} has no fixture in test/conformance/fixtures/index.ts`);
  });
});
