/**
 * The Status each kind of webhook denial carries (emulator/webhooks/admission.ts), field by field, as the apiserver
 * relays it: Harvester's werror.AdmitError (harvester/harvester pkg/webhook/error/error.go: NewConflict 409 Conflict
 * and NewInternalError 500 InternalError, both without causes) and wrangler's router answering an error with
 * apierrors.NewInternalError (500, `Internal error occurred: …`, the reason again as the one cause). Also the
 * KeyPair validator's DELETE guard: upstream registers that webhook for CREATE and UPDATE only.
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject } from '../../emulator/api/types';
import { denyConflict, denyHarvesterInternal, denyInternalError } from '../../emulator/webhooks/admission';
import { keyPairWebhooks } from '../../emulator/webhooks/key-pair';
import { HarvesterSim, startHarvesterSim } from './harvester-fixture';

const status = (code: number, reason: string, message: string, details?: Record<string, unknown>) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  code,
  reason,
  ...(details ? { details } : {}),
});

describe('webhook denials: the Status the apiserver relays', () => {
  it('a wrangler-router error: 500 InternalError, "Internal error occurred: <reason>", the reason as the one cause', () => {
    const err = denyInternalError('validator.harvester-system.harvester-load-balancer-webhook', 'pool is full');
    assert.equal(err.code, 500);
    assert.deepEqual(
      err.status,
      status(500, 'InternalError', 'admission webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: pool is full', {
        causes: [{ message: 'pool is full' }],
      }),
    );
  });

  it("a plain Go error from Harvester's webhook: 500 InternalError, the bare message, no details", () => {
    const err = denyHarvesterInternal('mutator.harvesterhci.io', 'missing default storage class');
    assert.equal(err.code, 500);
    assert.deepEqual(err.status, status(500, 'InternalError', 'admission webhook "mutator.harvesterhci.io" denied the request: missing default storage class'));
  });

  it("Harvester's werror.NewConflict: 409 Conflict, no details", () => {
    const err = denyConflict('validator.harvesterhci.io', 'A resource with the same name exists');
    assert.equal(err.code, 409);
    assert.deepEqual(err.status, status(409, 'Conflict', 'admission webhook "validator.harvesterhci.io" denied the request: A resource with the same name exists'));
  });
});

describe('KeyPair validator: registered for CREATE and UPDATE only', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim();
  });
  afterEach(() => sim.close());

  const bad: KubeObject = { apiVersion: 'harvesterhci.io/v1beta1', kind: 'KeyPair', metadata: { name: 'k', namespace: 'default' }, spec: { publicKey: 'not a key' } };
  const request = (operation: AdmissionRequest['operation']): AdmissionRequest => ({ operation, kind: sim.kinds.keyPair, object: bad, oldObject: bad, dryRun: false, store: sim.store });

  it('lets a DELETE go without looking at the key, whatever the request carries', () => {
    const [hook] = keyPairWebhooks();
    hook.validate!(request('DELETE'));
  });

  it('checks the same request as an UPDATE (the guard is the operation, not the object)', () => {
    const [hook] = keyPairWebhooks();
    assert.throws(() => hook.validate!(request('UPDATE')), { message: 'admission webhook "validator.harvesterhci.io" denied the request: key is not in valid OpenSSH public key format' });
  });
});
