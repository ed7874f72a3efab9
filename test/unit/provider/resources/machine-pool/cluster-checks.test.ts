import assert from 'node:assert/strict';
import type { HarvesterClient } from '../../../../../provider/client/harvester-client';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { formatFailure } from '../../../../../provider/core/input-errors';
import { checkAgainstCluster, isoEvidence } from '../../../../../provider/resources/machine-pool/cluster-checks';
import { plannedNameConflicts, previewNameConflicts } from '../../../../../provider/resources/machine-pool/name-conflicts';
import { previewPool } from '../../../../../provider/resources/machine-pool/preview-plan';
import { ownershipLabels } from '../../../../../provider/resources/machine-pool/labels';
import { spellLike } from '../../../../../provider/core/object-ref';

// checkAgainstCluster against an in-memory client: the emulator tests cover the happy paths, these the verdicts.
type Obj = { metadata: { name?: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };
const byRef = (items: Obj[]) => ({
  get: async (name: string, ns?: string) => items.find((o) => o.metadata.name === name && (o.metadata.namespace ?? 'default') === (ns ?? 'default')),
  list: async (opts?: { namespace?: string; labelSelector?: string }) => ({
    items: items.filter((o) => (!opts?.namespace || (o.metadata.namespace ?? 'default') === opts.namespace) && selects(opts?.labelSelector, o.metadata.labels)),
  }),
});
/** An equality-based label selector (`k=v,k2=v2`), as observe sends it. */
const selects = (selector: string | undefined, labels: Record<string, string> = {}) =>
  !selector || selector.split(',').every((term) => { const [k, v] = term.split('='); return labels[k] === v; });
function client(c: { images?: Obj[]; keyPairs?: Obj[]; networks?: Obj[]; nodes?: Obj[]; vms?: Obj[]; secrets?: Obj[] }): HarvesterClient {
  return {
    namespaces: { get: async (n: string) => (['default', 'team'].includes(n) ? { metadata: { name: n } } : undefined) },
    images: byRef(c.images ?? []), keyPairs: byRef(c.keyPairs ?? []), networks: byRef(c.networks ?? []), nodes: byRef(c.nodes ?? []),
    virtualMachines: byRef(c.vms ?? []), virtualMachineInstances: byRef([]), secrets: byRef(c.secrets ?? []), persistentVolumeClaims: byRef([]),
  } as unknown as HarvesterClient;
}
const image = (name: string, status: Record<string, unknown>, extra: Partial<Obj> = {}): Obj => ({ metadata: { name, namespace: 'default' }, spec: {}, status, ...extra });
/** Each failure as the user reads it, "property: reason" (formatFailure): a reason repeating its property would print it twice. */
const reasons = async (c: HarvesterClient, raw: Record<string, unknown>) => (await checkAgainstCluster(c, raw)).failures.map(formatFailure);

describe('machine-pool cluster checks', () => {
  it('tells why an image is not ready yet', async () => {
    const imported = { type: 'Imported', status: 'True' };
    const images = [
      image('failed', { conditions: [{ type: 'RetryLimitExceeded', status: 'True', message: 'HTTP 404' }] }),
      image('failed-quiet', { conditions: [{ type: 'RetryLimitExceeded', status: 'True' }] }),
      image('retrying', { progress: 12, conditions: [{ type: 'RetryLimitExceeded', status: 'False' }, { type: 'Other', status: 'True', message: 'x' }] }),
      image('no-class', { conditions: [imported] }),
      image('fresh', {}),
    ];
    const disks = images.map((i) => ({ image: i.metadata.name, size: '10Gi' }));
    const states = ['import failed: HTTP 404', 'import failed', 'import at 12%', 'imported, but it has no status.storageClassName yet', 'import at 0%'];
    assert.deepEqual(await reasons(client({ images }), { name: 'p', disks }), states.map((s, i) =>
      `disks[${i}].image: Image default/${disks[i].image} is not ready (${s}). Wait for the import to finish in Harvester (Images), or fix the image, then run again.`));
  });

  it('asks for a disk of at least the image\'s virtual size, rounded up to a whole GiB', async () => {
    const images = [image('img', { conditions: [{ type: 'Imported', status: 'True' }], storageClassName: 'sc', virtualSize: 2.5 * 2 ** 30 })];
    assert.deepEqual(await reasons(client({ images }), { name: 'p', disks: [{ image: 'img', size: '2Gi' }] }),
      ['disks[0].size: is 2Gi, smaller than image default/img (virtual size 3Gi). Set it to at least 3Gi.']);
  });

  it('sees an ISO by its label, URL, display name or name', () => {
    const evidence = (o: Partial<Obj> & { name?: string }) => isoEvidence({ metadata: { name: o.name ?? 'img' }, spec: o.spec ?? {} } as never);
    assert.equal(evidence({ spec: { url: 'http://x/a.iso?x=1' } }), 'its source URL ends in .iso');
    assert.equal(evidence({ spec: { displayName: 'Ubuntu.ISO' } }), 'its display name ends in .iso');
    assert.equal(evidence({ name: 'ubuntu.iso' }), 'its name ends in .iso');
    assert.equal(evidence({ spec: { url: 'http://x/a.img', displayName: 'iso-tools' } }), undefined);
    assert.equal(isoEvidence({ metadata: {} } as never), undefined);
  });

  it('refuses key pairs that are missing, not validated or without a key, and resolves the good one', async () => {
    const pair = (name: string, validated: string | undefined, publicKey?: string): Obj => ({
      metadata: { name, namespace: 'default' }, spec: { publicKey },
      status: { conditions: validated === undefined ? [] : [{ type: 'other', status: 'True' }, { type: 'validated', status: validated }] },
    });
    const keyPairs = [pair('good', 'True', 'ssh-ed25519 AAAA'), pair('false', 'False', 'ssh-ed25519 B'), pair('none', undefined, 'ssh-ed25519 C'), pair('nokey', 'True')];
    const c = client({ keyPairs });
    const check = await checkAgainstCluster(c, { name: 'p', sshKeys: ['good', 'default/false', 'none', 'nokey', 'gone', UNKNOWN] });
    const notValidated = (i: number, ref: string) => `sshKeys[${i}]: KeyPair ${ref} is not validated by Harvester (condition validated is not True), so its public key cannot be trusted. Fix its spec.publicKey (an OpenSSH public key).`;
    assert.deepEqual(check.failures.map(formatFailure), [notValidated(1, 'default/false'), notValidated(2, 'default/none'), notValidated(3, 'default/nokey'),
      'sshKeys[4]: KeyPair default/gone does not exist. Create it in Harvester (Advanced → SSH Keys), or fix the name.']);
    assert.deepEqual(check.context.keyPairPublicKeys, { 'default/good': 'ssh-ed25519 AAAA' });
  });

  it('skips unqualified references while the namespace is unknown, but checks qualified ones', async () => {
    const c = client({});
    assert.deepEqual(await reasons(c, { name: 'p', namespace: UNKNOWN, sshKeys: ['k', 'team/k'] }),
      ['sshKeys[1]: KeyPair team/k does not exist. Create it in Harvester (Advanced → SSH Keys), or fix the name.']);
  });

  it('a VM network places its VMs on its cluster network\'s hosts; an unlabelled one places nothing; host zones listed sorted', async () => {
    const nodes = [{ metadata: { name: 'h2', labels: { 'topology.kubernetes.io/zone': 'zb' } } }, { metadata: { name: 'h1', labels: { 'topology.kubernetes.io/zone': 'za' } } }];
    const networks = [
      { metadata: { name: 'net', namespace: 'default', labels: { 'network.harvesterhci.io/clusternetwork': 'data' } } },
      // Not labelled (yet) by Harvester's network controller: its VM mutator adds no node-affinity rule for it.
      { metadata: { name: 'bare', namespace: 'default' } },
    ];
    const c = client({ nodes, networks });
    const got = await reasons(c, { name: 'p', networks: [{ network: 'net' }, { network: 'bare' }], zones: ['zc'] });
    assert.equal(got.length, 2, got.join('\n'));
    assert.match(got[0], /^networks\[0\]\.network: VM network default\/net runs on cluster network "data", but no Harvester host carries the label network\.harvesterhci\.io\/data=true/);
    assert.match(got[1], /^zones\[0\]: no Harvester host is in zone "zc" \(zones on hosts: za, zb\)/);
    const check = await checkAgainstCluster(c, { name: 'p', networks: [{ network: 'bare' }] });
    assert.deepEqual([check.failures, check.clusterNetworks], [[], []], 'an unlabelled network constrains no host');
  });

  it('without a complete context, names foreign VMs and Secrets at the lowest indexes a scale-up would take, not those of its own VMs', async () => {
    const owned = ownershipLabels({ namespace: 'team', name: 'p' });
    const c = client({
      vms: [{ metadata: { name: 'p-0', namespace: 'team', labels: { ...owned, 'harvester-iac.io/pool-index': '0' } } }, { metadata: { name: 'p-2', namespace: 'team' } }, { metadata: { name: 'p-4', namespace: 'team' } }],
      secrets: [{ metadata: { name: 'p-1-cloudinit', namespace: 'team' } }],
    });
    const inputs = { name: 'p', namespace: 'team', count: 3 } as never;
    const got = (await previewNameConflicts(c, inputs, await previewPool(c, { namespace: 'team', name: 'p' }))).map(formatFailure);
    assert.equal(got.length, 2, got.join('\n'));
    assert.match(got[0], /^name: Secret team\/p-1-cloudinit already exists/);
    assert.match(got[1], /^name: VirtualMachine team\/p-2 already exists and is not managed by machine pool team\/p \(no labels; no annotations;/);
  });

  it('names a foreign Secret a planned create needs, and the pool by namespace/name', async () => {
    const c = client({ secrets: [{ metadata: { name: 'p-0-cloudinit', namespace: 'team' } }] });
    const desired = { identity: { namespace: 'team', name: 'p' } } as never;
    const steps = [{ action: 'create', machine: { name: 'p-0', secret: { metadata: { name: 'p-0-cloudinit' } }, claimNames: [] } }] as never;
    const [f, ...rest] = await plannedNameConflicts(c, desired, steps);
    assert.deepEqual(rest, []);
    assert.match(formatFailure(f), /^name: Secret team\/p-0-cloudinit already exists and is not managed by machine pool team\/p \(/);
  });

  it('spells a reference the way the user did: bare in the pool namespace only if they wrote it bare', () => {
    assert.equal(spellLike('ns/b', 'a', 'ns'), 'b');
    assert.equal(spellLike('ns/b', 'ns/a', 'ns'), 'ns/b');
    assert.equal(spellLike('ns/b', undefined, 'ns'), 'ns/b');
    assert.equal(spellLike('other/b', 'a', 'ns'), 'other/b');
  });
});

describe('machine-pool cluster checks: references to objects of the same program', () => {
  const validated = { metadata: { name: 'made-earlier', namespace: 'default' }, spec: { publicKey: 'ssh-ed25519 AAAA' }, status: { conditions: [{ type: 'validated', status: 'True' }] } };
  const raw = {
    name: 'p',
    disks: [{ image: 'ghost-image', size: '10Gi' }, { image: 'new-image', size: '10Gi' }],
    networks: [{ network: 'new-net' }, { network: 'ghost-net' }],
    sshKeys: ['new-key', 'ghost-key', 'made-earlier'],
  };

  it('defers exactly the marked missing references, refuses the unmarked ones, and says the context is incomplete', async () => {
    const check = await checkAgainstCluster(client({ keyPairs: [validated] }), raw, new Set(['disks[1].image', 'networks[0].network', 'sshKeys[0]']));
    assert.deepEqual(check.failures.map((f) => f.property), ['disks[0].image', 'networks[1].network', 'sshKeys[1]']);
    assert.deepEqual(check.deferred, ['disks[1].image', 'networks[0].network', 'sshKeys[0]']);
    assert.deepEqual(check.context.keyPairPublicKeys, { 'default/made-earlier': 'ssh-ed25519 AAAA' });
  });

  it('a marked list (one Output around it) defers every missing element of it', async () => {
    const check = await checkAgainstCluster(client({ keyPairs: [validated] }), { name: 'p', sshKeys: ['new-key', 'other-new-key', 'made-earlier'] }, new Set(['sshKeys']));
    assert.deepEqual(check.failures, []);
    assert.deepEqual(check.deferred, ['sshKeys[0]', 'sshKeys[1]']);
  });

  it('without marks nothing is deferred (the old behaviour)', async () => {
    const check = await checkAgainstCluster(client({}), { name: 'p', sshKeys: ['new-key'] });
    assert.deepEqual(check.failures.map((f) => f.property), ['sshKeys[0]']);
    assert.deepEqual(check.deferred, []);
  });
});
