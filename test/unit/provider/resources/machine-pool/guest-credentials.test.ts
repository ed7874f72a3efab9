/**
 * A machine pool wired to a GuestClusterCredentials: its cloudInit output (guestCredentials) is merged into the
 * rendered cloud-config's write_files, kept secret (only a digest in outputs), diffed by that digest, and read
 * back (refresh and import) from the cloud-init Secret as written.
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { renderCloudInit } from '../../../../../provider/resources/guest-cluster-credentials';
import { importCloudInit, readCloudInit } from '../../../../../provider/resources/machine-pool/cloud-init-secret';
import { renderUserData } from '../../../../../provider/resources/machine-pool/cloud-config';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import { diffInputs } from '../../../../../provider/resources/machine-pool/diff';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import { validateInputs } from '../../../../../provider/resources/machine-pool/validate';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { context, inputs } from './fixtures';

const KUBECONFIG = 'apiVersion: v1\nusers:\n- name: default\n  user:\n    token: s3cret-token\n';
const CREDENTIALS = renderCloudInit(KUBECONFIG);
const pool = { namespace: 'default', name: 'pool-a' };
const base = { name: 'pool-a', disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }], networks: [{ network: 'vm-net' }] };
const failuresOf = (raw: Record<string, unknown>) => validateInputs(raw).failures.map((f) => f.property);

describe('machine pool guestCredentials', () => {
  it('merges the credentials\' write_files into the cloud-config, replacing a user entry of the same path, keeping the rest', () => {
    const userData = '#cloud-config\nwrite_files:\n- path: /etc/kubernetes/cloud-config\n  content: old\n- path: /etc/motd\n  content: hi\n';
    const doc = parse(renderUserData({ userData, guestAgent: 'install', guestCredentials: CREDENTIALS }));
    const paths = doc.write_files.map((f: { path: string }) => f.path);
    assert.deepEqual(paths, ['/etc/motd', '/etc/kubernetes/cloud-config', '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config']);
    const written = doc.write_files[1];
    assert.equal(Buffer.from(written.content, 'base64').toString('utf8'), KUBECONFIG);
    assert.equal(written.permissions, '0600');
    assert.ok(doc.packages.includes('qemu-guest-agent'), 'the guest agent is merged as before');
  });

  it('check refuses credentials that are not a cloudInit output, or user data they cannot merge into, never quoting them', () => {
    assert.deepEqual(failuresOf({ ...base, guestCredentials: 'token: s3cret-token' }), ['guestCredentials']);
    assert.deepEqual(failuresOf({ ...base, guestCredentials: '#cloud-config\nruncmd: [ls]\n' }), ['guestCredentials']);
    assert.deepEqual(failuresOf({ ...base, guestAgent: 'none', userData: '#!/bin/sh\necho hi\n', guestCredentials: CREDENTIALS }), ['userData']);
    assert.deepEqual(failuresOf({ ...base, guestAgent: 'none', userData: '#!/bin/sh\necho hi\n', guestCredentials: UNKNOWN }), ['userData'], 'unknown at preview: still needs a cloud-config');
    assert.deepEqual(failuresOf({ ...base, guestCredentials: CREDENTIALS }), []);
    assert.ok(validateInputs({ ...base, guestCredentials: 'token: s3cret-token' }).failures.every((f) => !f.reason.includes('s3cret')));
  });

  it('keeps only a digest in outputs; a change of credentials is a change of the pool', () => {
    const i = inputs({ guestCredentials: CREDENTIALS });
    const outs = toOutputs(i, []);
    assert.equal(JSON.stringify(outs).includes('s3cret'), false);
    assert.match(outs.guestCredentialsHash ?? '', /^hmac-sha256:/);
    const reasons = (news: Record<string, unknown>) => diffInputs(outs, news).reasons.filter((r) => r.startsWith('guestCredentials'));
    assert.deepEqual(reasons({ ...i }), []);
    assert.deepEqual(reasons({ ...i, guestCredentials: renderCloudInit('other') }), ['guestCredentials changed (value not shown: it is secret)']);
    assert.equal(reasons({ ...i, guestCredentials: undefined }).length, 1);
  });

  it('reads the credentials back from the cloud-init Secret as written (refresh and import)', () => {
    const i = inputs({ count: 1, guestCredentials: CREDENTIALS });
    const desired = desiredVirtualMachines(i, context());
    const recorded = toOutputs(i, [], [], desired.cloudInitHash);
    const machines = desired.machines.map((m) => ({ name: m.name, vm: m.vm, secret: m.secret }));
    assert.equal(readCloudInit(pool, recorded, machines).inputs.guestCredentials, CREDENTIALS);
    assert.equal(importCloudInit(pool, machines[0].secret).guestCredentials, CREDENTIALS);
    const stale = toOutputs(inputs({ count: 1, guestCredentials: renderCloudInit('other') }), [], [], desired.cloudInitHash);
    const read = readCloudInit(pool, stale, machines);
    assert.equal(read.inputs.guestCredentials, undefined);
    assert.match(read.drift.join('\n'), /guest credentials differ/);
  });
});
