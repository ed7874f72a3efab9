import assert from 'node:assert/strict';
import { parse } from 'yaml';
import {
  CloudConfigError, classifyUserData, guestAgentIn, networkDataProblem, renderUserData, startsGuestAgent, userDataProblem,
} from '../../../../../provider/resources/machine-pool/cloud-config';

describe('machine-pool cloud-config', () => {
  it('writes a cloud-config installing and starting qemu-guest-agent when there is no user data', () => {
    const out = renderUserData({ guestAgent: 'install' });
    assert.match(out, /^#cloud-config\n/);
    const doc = parse(out);
    assert.deepEqual(doc.packages, ['qemu-guest-agent']);
    assert.deepEqual(doc.runcmd, [['systemctl', 'enable', '--now', 'qemu-guest-agent.service']]);
    assert.equal(guestAgentIn(out), 'yes');
  });

  it('merges into the parsed YAML, keeping the user\'s entries, order and comments', () => {
    const user = '#cloud-config\n# keep me\npackages:\n  - htop\nruncmd:\n  - echo first\nwrite_files:\n  - path: /etc/x\n    content: y\n';
    const out = renderUserData({ guestAgent: 'install', userData: user, sshPublicKeys: ['ssh-ed25519 AAAA k1'] });
    const doc = parse(out);
    assert.deepEqual(doc.packages, ['htop', 'qemu-guest-agent']);
    assert.deepEqual(doc.runcmd, ['echo first', ['systemctl', 'enable', '--now', 'qemu-guest-agent.service']]);
    assert.deepEqual(doc.write_files, [{ path: '/etc/x', content: 'y' }]);
    assert.deepEqual(doc.ssh_authorized_keys, ['ssh-ed25519 AAAA k1']);
    assert.match(out, /# keep me/);
  });

  it('adds nothing when the user data already installs and starts the agent (string or list form)', () => {
    for (const runcmd of ['  - systemctl enable --now qemu-guest-agent', '  - [sudo, systemctl, start, qemu-guest-agent.service]', '  - apt-get update && systemctl restart qemu-guest-agent']) {
      const user = `#cloud-config\npackages:\n  - [qemu-guest-agent, "1:8.2"]\nruncmd:\n${runcmd}\n`;
      const doc = parse(renderUserData({ guestAgent: 'install', userData: user }));
      assert.equal(doc.packages.length, 1, runcmd);
      assert.equal(doc.runcmd.length, 1, runcmd);
    }
  });

  it('adds its own start when the user data only enables the agent (no --now): enable alone does not start it on first boot', () => {
    const start = ['systemctl', 'enable', '--now', 'qemu-guest-agent.service'];
    for (const runcmd of [
      '  - systemctl enable qemu-guest-agent',
      '  - [systemctl, enable, qemu-guest-agent.service]',
      '  - sudo systemctl enable qemu-guest-agent && echo done',
      '  - systemctl enable qemu-guest-agent\n  - echo then nothing starts it',
    ]) {
      const user = `#cloud-config\npackages:\n  - qemu-guest-agent\nruncmd:\n${runcmd}\n`;
      assert.equal(guestAgentIn(user), 'no', runcmd);
      const doc = parse(renderUserData({ guestAgent: 'install', userData: user }));
      assert.deepEqual(doc.runcmd.at(-1), start, runcmd);
      assert.equal(doc.runcmd.length, runcmd.split('\n').length + 1, runcmd);
      assert.equal(guestAgentIn(renderUserData({ guestAgent: 'install', userData: user })), 'yes', runcmd);
    }
  });

  it('recognises exactly the commands that start the agent', () => {
    const yes = [
      ['systemctl', 'start', 'qemu-guest-agent'], ['systemctl', 'restart', 'qemu-guest-agent.service'],
      ['sudo', 'systemctl', 'enable', '--now', 'qemu-guest-agent'], ['/usr/bin/systemctl', 'enable', '--now', '"qemu-guest-agent"'],
    ];
    const no = [
      [], ['systemctl', 'enable', 'qemu-guest-agent'], ['systemctl', 'start', 'sshd'], ['systemctl', '--now', 'qemu-guest-agent'],
      ['echo', 'systemctl', 'start', 'qemu-guest-agent'], ['mysystemctl', 'start', 'qemu-guest-agent'], ['sudo'],
      ['systemctl', 'stop', 'qemu-guest-agent'], ['systemctl', 'enable', '--now', 'qemu-guest-agent-extra'],
    ];
    for (const words of yes) assert.equal(startsGuestAgent(words), true, words.join(' '));
    for (const words of no) assert.equal(startsGuestAgent(words), false, words.join(' '));
  });

  it('is idempotent: rendering its own output changes nothing', () => {
    const once = renderUserData({ guestAgent: 'install', userData: '#cloud-config\nhostname: x\n', sshPublicKeys: ['ssh-rsa AAAA k'] });
    assert.equal(renderUserData({ guestAgent: 'install', userData: once, sshPublicKeys: ['ssh-rsa AAAA k'] }), once);
  });

  it('keeps a jinja template header', () => {
    const out = renderUserData({ guestAgent: 'install', userData: '## template: jinja\n#cloud-config\nhostname: a\n' });
    assert.match(out, /^## template: jinja\n#cloud-config\n/);
  });

  it('refuses non-cloud-config user data with an explanation, never quoting it', () => {
    const secret = '#!/bin/bash\necho hunter2 > /root/pw\n';
    assert.throws(() => renderUserData({ guestAgent: 'install', userData: secret }), (e: unknown) => {
      assert.ok(e instanceof CloudConfigError);
      assert.equal(e.code, 'UserDataNotCloudConfig');
      assert.match(e.message, /shell script/);
      assert.match(e.message, /qemu-guest-agent/);
      assert.match(e.message, /guestAgent: "none"/);
      assert.ok(!e.message.includes('hunter2'));
      return true;
    });
  });

  it('passes non-cloud-config user data through untouched when nothing needs merging', () => {
    const script = '#!/bin/sh\necho hi\n';
    assert.equal(renderUserData({ guestAgent: 'none', userData: script }), script);
  });

  it('reports invalid YAML by position only', () => {
    assert.throws(() => renderUserData({ guestAgent: 'install', userData: '#cloud-config\npassword: [s3cret\n  x: y' }), (e: unknown) => {
      assert.ok(e instanceof CloudConfigError);
      assert.equal(e.code, 'UserDataInvalidYaml');
      assert.match(e.message, /line \d+/);
      assert.ok(!e.message.includes('s3cret'));
      return true;
    });
  });

  it('refuses a packages entry that is not a list', () => {
    assert.throws(() => renderUserData({ guestAgent: 'install', userData: '#cloud-config\npackages: htop\n' }), /"packages" must be a list/);
  });

  it('classifies user data by its first line', () => {
    assert.equal(classifyUserData(undefined), 'empty');
    assert.equal(classifyUserData('Content-Type: multipart/mixed; boundary=x\n'), 'mime-multipart');
    assert.equal(classifyUserData('#include\nhttp://x\n'), 'include');
    assert.equal(classifyUserData('hostname: x\n'), 'unknown');
  });

  it('checks network data is a versioned mapping', () => {
    assert.equal(networkDataProblem('version: 2\nethernets:\n  eth0:\n    dhcp4: true\n'), undefined);
    assert.equal(networkDataProblem('network:\n  version: 1\n  config: []\n'), undefined);
    assert.match(networkDataProblem('ethernets: {}\n')!, /version: 1" or "version: 2/);
    assert.match(networkDataProblem('- a\n')!, /mapping/);
  });

  it('says where YAML breaks and what to do, and refuses a document that is not a mapping', () => {
    // The error code is the yaml library's own; the position and the advice are ours.
    assert.match(userDataProblem('#cloud-config\nruncmd: [a\n', 'install', false)!, /^userData is not valid YAML \([A-Z_]+ at line 3, column 1\)\. Fix the document so it parses as YAML\.$/);
    const shape = 'userData must be a #cloud-config mapping of modules (e.g. "packages:", "runcmd:"), not a list or a scalar.';
    assert.equal(userDataProblem('#cloud-config\n- a\n', 'install', false), shape);
    assert.equal(userDataProblem('#cloud-config\njust text\n', 'install', false), shape);
    assert.equal(userDataProblem('#cloud-config\npackages: [htop]\n', 'install', true), undefined);
    assert.match(networkDataProblem('version: [2\n')!, /^networkData is not valid YAML \([A-Z_]+ at line 2, column 1\)\. Fix it so it parses as cloud-init network config \(version 1 or 2\)\.$/);
  });

  it('adds the agent package beside entries of other shapes (a mapping is not the agent)', () => {
    const doc = parse(renderUserData({ guestAgent: 'install', userData: '#cloud-config\npackages:\n  - {name: qemu-guest-agent}\n' }));
    assert.deepEqual(doc.packages, [{ name: 'qemu-guest-agent' }, 'qemu-guest-agent']);
  });

  it('tells whether user data installs and starts the agent: yes, no, or unknown when it cannot tell', () => {
    const start = 'runcmd:\n  - systemctl enable --now qemu-guest-agent.service\n';
    assert.equal(guestAgentIn(undefined), 'no');
    assert.equal(guestAgentIn(`#cloud-config\npackages: [qemu-guest-agent]\n${start}`), 'yes');
    assert.equal(guestAgentIn(`#cloud-config\npackages:\n  - [qemu-guest-agent, 1:8.2]\n${start}`), 'yes', 'a [package, version] pair');
    assert.equal(guestAgentIn('#cloud-config\npackages: [qemu-guest-agent]\n'), 'no', 'installed, never started');
    assert.equal(guestAgentIn(`#cloud-config\npackages: [htop]\n${start}`), 'no', 'started, never installed');
    assert.equal(guestAgentIn('#cloud-config\npackages: [qemu-guest-agent]\nruncmd:\n  - {cmd: x}\n'), 'no', 'a runcmd entry of another shape starts nothing');
    assert.equal(guestAgentIn('#!/bin/sh\napt install qemu-guest-agent\n'), 'unknown');
    assert.equal(guestAgentIn('#cloud-config\nruncmd: [a\n'), 'unknown', 'unparsable');
  });
});
