import assert from 'node:assert/strict';
import { parse } from 'yaml';
import {
  classifyUserData, guestAgentIn, networkDataProblem, renderUserData, startsGuestAgent, userDataProblem,
} from '../../../../../provider/resources/machine-pool/cloud-config';

// Edge cases of the cloud-config handling: first-line rules, the refusal texts, and the shapes the merge meets.
const START = 'runcmd:\n  - systemctl enable --now qemu-guest-agent.service\n';
const SCRIPT = '#!/bin/sh\necho hi\n';
const REWRITE = 'Rewrite it as #cloud-config (put script lines under runcmd or write_files), or';

describe('machine-pool cloud-config edges', () => {
  it('classifies by cloud-init\'s first-line rules, anchored at the start of the line', () => {
    const table: [string, string][] = [
      ['## template: jinja', 'unknown'],
      ['## template: jinja\nhostname: a\n', 'unknown'],
      ['## Template:  JINJA \n#cloud-config\n', 'jinja-cloud-config'],
      ['MIME-Version: 1.0\n', 'mime-multipart'],
      ['x-content-type: text/plain\n', 'unknown'],
      ['x-mime-version: 1.0\n', 'unknown'],
      ['#include-once\nhttp://x\n', 'include'],
      ['# not #include\n', 'unknown'],
      ['#cloud-boothook\necho hi\n', 'boothook'],
      ['# really #cloud-boothook\n', 'unknown'],
      ['   \n', 'empty'],
    ];
    for (const [text, kind] of table) assert.equal(classifyUserData(text), kind, JSON.stringify(text));
  });

  it('explains a refusal by what needs the merge: the agent, or the key pairs', () => {
    const agent = 'userData is a shell script (it starts with "#!"). With guestAgent "install" (the default) the pool merges qemu-guest-agent into the parsed ' +
      'cloud-config, because Harvester learns a bridged VM\'s IP only from the agent; that merge needs a #cloud-config document. ' +
      `${REWRITE} set guestAgent: "none" if the image or your script already installs and starts qemu-guest-agent.`;
    const keys = 'userData is a #cloud-boothook. The key pairs in sshKeys are added to ssh_authorized_keys, which needs a #cloud-config document. ' +
      `${REWRITE} remove sshKeys and add the keys in your script.`;
    assert.equal(userDataProblem(SCRIPT, 'install', false), agent);
    assert.equal(userDataProblem(SCRIPT, 'install', true), agent);
    assert.equal(userDataProblem('#cloud-boothook\necho hi\n', 'none', true), keys);
    assert.throws(() => renderUserData({ guestAgent: 'none', userData: SCRIPT, sshPublicKeys: ['ssh-ed25519 AAAA k'] }), { code: 'UserDataNotCloudConfig' });
    assert.equal(userDataProblem(SCRIPT, 'none', false), undefined);
  });

  it('treats an empty (null) list key as absent, and adds a key pair only once, ignoring surrounding blanks', () => {
    const doc = parse(renderUserData({ guestAgent: 'install', userData: '#cloud-config\npackages:\nruncmd: ~\nssh_authorized_keys:\n' }));
    assert.deepEqual(doc.packages, ['qemu-guest-agent']);
    assert.equal(doc.runcmd.length, 1);
    const user = '#cloud-config\nssh_authorized_keys:\n  - "ssh-rsa AAAA k "\n';
    for (const key of ['ssh-rsa AAAA k', 'ssh-rsa AAAA k\n']) {
      assert.deepEqual(parse(renderUserData({ guestAgent: 'none', userData: user, sshPublicKeys: [key] })).ssh_authorized_keys, ['ssh-rsa AAAA k '], JSON.stringify(key));
    }
  });

  it('finds the agent package however it is written, and survives odd entries', () => {
    const table: [string, unknown[]][] = [
      ['  - "qemu-guest-agent "', ['qemu-guest-agent ']],
      ['  - &p htop\n  - *p', ['htop', 'htop', 'qemu-guest-agent']],
      ['  - []', [[], 'qemu-guest-agent']],
      ['  - [[qemu-guest-agent]]', [[['qemu-guest-agent']], 'qemu-guest-agent']],
    ];
    for (const [entries, packages] of table) {
      const doc = parse(renderUserData({ guestAgent: 'install', userData: `#cloud-config\npackages:\n${entries}\n` }));
      assert.deepEqual(doc.packages, packages, entries);
    }
  });

  it('recognises only a program named systemctl, with quotes stripped only around a word', () => {
    assert.equal(startsGuestAgent(['systemctl.sh', 'start', 'qemu-guest-agent']), false);
    assert.equal(startsGuestAgent(['systemctl', 'start', 'qemu-guest-agent\'.service']), false);
    assert.equal(startsGuestAgent(['systemctl', 'start', '\'qemu-guest-agent.service\'']), true);
  });

  it('says yes only when some package is the agent and some command starts it', () => {
    const table: [string, 'yes' | 'no'][] = [
      [`#cloud-config\npackages: [htop, qemu-guest-agent]\n${START}`, 'yes'],
      ['#cloud-config\npackages: [qemu-guest-agent]\nruncmd:\n  - apt-get update && systemctl restart qemu-guest-agent\n', 'yes'],
      [`#cloud-config\n${START}`, 'no'],
      [`#cloud-config\npackages: qemu-guest-agent\n${START}`, 'no'],
      ['#cloud-config\npackages: [qemu-guest-agent]\nruncmd: systemctl start qemu-guest-agent\n', 'no'],
      [`## template: jinja\n#cloud-config\npackages: [qemu-guest-agent]\n${START}`, 'yes'],
      ['  ', 'no'],
    ];
    for (const [text, verdict] of table) assert.equal(guestAgentIn(text), verdict, text);
    assert.equal(guestAgentIn('#include\nhttp://x\n'), 'unknown');
    // A boothook body that happens to parse as a mapping is still not read as cloud-config.
    assert.equal(guestAgentIn(`#cloud-boothook\npackages: [qemu-guest-agent]\n${START}`), 'unknown');
  });

  it('checks network data: blank is none, a scalar or null is not a mapping, the version must be 1 or 2', () => {
    const mapping = 'networkData must be a cloud-init network config mapping ("version: 2" with "ethernets:", or "version: 1" with "config:").';
    const table: [string, string | undefined][] = [
      ['', undefined], ['  \n', undefined],
      ['~\n', mapping], ['hello\n', mapping], ['- a\n', mapping],
      ['ethernets: {}\n', 'networkData must declare "version: 1" or "version: 2" (got no version).'],
      ['version: 3\n', 'networkData must declare "version: 1" or "version: 2" (got another version).'],
      ['network:\n  version: "2"\n', 'networkData must declare "version: 1" or "version: 2" (got another version).'],
    ];
    for (const [text, problem] of table) assert.equal(networkDataProblem(text), problem, JSON.stringify(text));
    assert.equal(networkDataProblem(undefined), undefined);
  });

  it('a byte-order mark, trailing blanks on the first lines and a jinja variant are read as cloud-init reads them', () => {
    const table: [string, string][] = [
      ['\uFEFF#cloud-config\nhostname: a\n', 'cloud-config'],
      ['#cloud-config   \nhostname: a\n', 'cloud-config'],
      ['## template: jinja\n#cloud-config  \n', 'jinja-cloud-config'],
      ['## template: jinja2\n#cloud-config\n', 'unknown'],
    ];
    for (const [text, kind] of table) assert.equal(classifyUserData(text), kind, JSON.stringify(text));
  });

  it('the agent is found installed when packages pins it as [name, version]', () => {
    assert.equal(guestAgentIn(`#cloud-config\npackages:\n  - [qemu-guest-agent, "1:7.2"]\n${START}`), 'yes');
    assert.equal(guestAgentIn(`#cloud-config\npackages:\n  - [other, "1"]\n${START}`), 'no');
  });

  it('rendered user data always starts with its #cloud-config header', () => {
    for (const userData of [undefined, '', '#cloud-config\nhostname: a\n']) {
      const out = renderUserData({ userData, guestAgent: 'install', sshPublicKeys: [] });
      assert.equal(out.split('\n')[0], '#cloud-config', JSON.stringify(userData));
    }
  });
});
