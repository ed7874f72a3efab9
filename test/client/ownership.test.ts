/**
 * Ownership labels: stamping, checking, selecting, and the NotOwned message (who owns it, how to adopt).
 */
import assert from 'node:assert/strict';
import { KubeObject } from '../../provider/client/objects';
import {
  MANAGED_BY,
  OWNERSHIP_LABELS,
  RESOURCE_NAME_ANNOTATION,
  assertOwned,
  isOwnedBy,
  labelSafe,
  ownerLabels,
  ownerOf,
  ownerSelector,
  stampOwnership,
} from '../../provider/client/ownership';

const owner = { resourceType: 'machine-pool', resourceName: 'pool-a' };
const obj = (labels?: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachine',
  metadata: { name: 'pool-a-0', namespace: 'default', labels, annotations },
});

describe('ownership', () => {
  it('stamps the three labels and keeps existing ones', () => {
    const stamped = stampOwnership(obj({ app: 'x' }), owner);
    assert.deepEqual(stamped.metadata.labels, {
      app: 'x',
      'app.kubernetes.io/managed-by': 'harvester-iac',
      'harvester-iac.io/resource-type': 'machine-pool',
      'harvester-iac.io/resource-name': 'pool-a',
    });
    assert.equal(stamped.metadata.annotations, undefined, 'no annotation when the name fits a label');
    assert.equal(isOwnedBy(stamped, owner), true);
    assert.deepEqual(ownerOf(stamped), { resourceType: 'machine-pool', resourceName: 'pool-a' });
  });

  it('is not owned when any label differs or is missing', () => {
    assert.equal(isOwnedBy(obj(), owner), false);
    assert.equal(isOwnedBy(obj({ ...ownerLabels(owner), [OWNERSHIP_LABELS.resourceName]: 'pool-b' }), owner), false);
    assert.equal(isOwnedBy(obj({ ...ownerLabels(owner), [OWNERSHIP_LABELS.managedBy]: 'rancher' }), owner), false);
    assert.equal(ownerOf(obj({ [OWNERSHIP_LABELS.managedBy]: 'rancher' })), undefined);
  });

  it('names that are not valid label values get a stable, valid, hashed label and the exact annotation', () => {
    const long = { resourceType: 'load-balancer', resourceName: `urn:pulumi:dev::proj::harvester:LoadBalancer::${'x'.repeat(80)}` };
    const v = labelSafe(long.resourceName);
    assert.ok(v.length <= 63, v);
    assert.match(v, /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/);
    assert.equal(labelSafe(long.resourceName), v, 'stable');
    assert.notEqual(labelSafe(`${long.resourceName}y`), v, 'distinct names stay distinct');
    const stamped = stampOwnership(obj(), long);
    assert.equal(stamped.metadata.annotations?.[RESOURCE_NAME_ANNOTATION], long.resourceName);
    assert.equal(isOwnedBy(stamped, long), true);
    // Same shortened label, different exact name: the annotation tells them apart.
    assert.equal(isOwnedBy({ ...stamped, metadata: { ...stamped.metadata, annotations: { [RESOURCE_NAME_ANNOTATION]: 'other' } } }, long), false);
  });

  it('selects everything a resource owns with one label selector', () => {
    assert.equal(ownerSelector(owner), `app.kubernetes.io/managed-by=${MANAGED_BY},harvester-iac.io/resource-type=machine-pool,harvester-iac.io/resource-name=pool-a`);
  });

  it('NotOwned names the object, the actual owner, and the adopt command', () => {
    const other = stampOwnership(obj(), { resourceType: 'machine-pool', resourceName: 'pool-b' });
    assert.throws(
      () => assertOwned(other, owner, 'delete'),
      (err: Error & { code: string; object: string; fix: string }) => {
        assert.equal(err.code, 'NotOwned');
        assert.equal(err.object, 'VirtualMachine default/pool-a-0');
        assert.match(err.message, /Refusing to delete VirtualMachine default\/pool-a-0: it belongs to another harvester-iac resource \(machine-pool "pool-b"\)/);
        assert.match(err.fix, /kubectl label -n default virtualmachine pool-a-0 --overwrite .*harvester-iac\.io\/resource-name=pool-a/);
        return true;
      },
    );
    assert.doesNotThrow(() => assertOwned(stampOwnership(obj(), owner), owner, 'delete'));
  });
});
