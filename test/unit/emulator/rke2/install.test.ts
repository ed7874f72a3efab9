/** Which runcmd lines install and start RKE2 (emulator/guest/rke2/install.ts, shell.ts). */
import { strict as assert } from 'node:assert';
import { installSteps } from '../../../../emulator/guest/rke2/install';
import { parsePipelines, runcmdPipelines } from '../../../../emulator/guest/rke2/shell';

const steps = (runcmd: unknown[]) => installSteps(runcmdPipelines(runcmd));

describe('rke2 runcmd: install and start commands', () => {
  it("reads CAPRKE2's server and agent lines", () => {
    assert.deepEqual(
      steps([
        'curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION=v1.31.4+rke2r1 sh -s - server',
        'systemctl mask rke2-agent.service || true',
        'systemctl enable rke2-server.service',
        'systemctl start rke2-server.service',
      ]),
      [
        { type: 'install', version: 'v1.31.4+rke2r1', channel: 'stable', installType: undefined, artifactPath: undefined },
        { type: 'enable', role: 'server' },
        { type: 'start', role: 'server' },
      ],
    );
    assert.deepEqual(steps(['curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION=v1.31.4+rke2r1 INSTALL_RKE2_TYPE="agent" sh -s - agent', 'systemctl enable --now rke2-agent']).map((s) => s.type === 'install' ? s.installType : s.role), ['agent', 'agent']);
  });

  it('takes variables from sudo, env and earlier exports, never from a prefix on curl', () => {
    assert.equal((steps(['curl -sfL https://get.rke2.io | sudo INSTALL_RKE2_VERSION="v1.30.1+rke2r1" sh -'])[0] as any).version, 'v1.30.1+rke2r1');
    assert.equal((steps(['export INSTALL_RKE2_CHANNEL=latest', 'curl -sfL https://get.rke2.io | sh -'])[0] as any).channel, 'latest');
    assert.equal((steps(['INSTALL_RKE2_VERSION=v1.30.1+rke2r1 curl -sfL https://get.rke2.io | sh -'])[0] as any).version, undefined);
    assert.equal((steps(['wget -qO- https://get.rke2.io | env INSTALL_RKE2_VERSION=v1.29.0+rke2r1 bash'])[0] as any).version, 'v1.29.0+rke2r1');
  });

  it('reads the air-gapped install and the list form of runcmd', () => {
    assert.deepEqual(steps(['INSTALL_RKE2_ARTIFACT_PATH=/opt/rke2-artifacts sh /opt/install.sh', ['systemctl', 'enable', '--now', 'rke2-server.service']]), [
      { type: 'install', version: undefined, channel: 'stable', installType: undefined, artifactPath: '/opt/rke2-artifacts' },
      { type: 'start', role: 'server' },
    ]);
  });

  it('ignores other scripts, other units and a plain enable as a start', () => {
    assert.deepEqual(steps(['curl -sfL https://get.k3s.io | sh -', 'systemctl restart qemu-guest-agent', 'sh /tmp/setup.sh']), []);
    assert.deepEqual(steps(['systemctl enable rke2-agent']), [{ type: 'enable', role: 'agent' }]);
  });

  it('splits on separators and honours quotes and comments', () => {
    assert.deepEqual(
      parsePipelines(`a 'b c' "d \\"e\\"" # comment\nf && g | h; i`).map((p) => p.map((c) => c.argv)),
      [[['a', 'b c', 'd "e"']], [['f']], [['g'], ['h']], [['i']]],
    );
  });
});
