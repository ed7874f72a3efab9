/**
 * Conformance: what kubectl shows of the emulated capacity (docs/emulator.md): launcher pods in `get pods -A`,
 * a host's allocated resources in `describe node`, FailedScheduling in `get events`, `create quota` and
 * `get quota`, and the pod field selectors `describe node` relies on.
 */
import assert from 'node:assert/strict';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { sizedVm } from './harvester-fixture';

describe('kubectl and the emulated capacity (conformance)', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({
      hosts: { count: 2, cpu: '8', memory: '32Gi', systemRequests: { cpu: '1', memory: '4Gi' } },
      harvester: { delays: { vmiSchedule: 20, vmiBoot: 20, guestAgent: 20 } },
    });
  });
  after(() => t?.stop());

  const create = (name: string, cores: number, memory: string, namespace = 'default') => t.emulator.store.create(t.emulator.harvester!.kinds.vm, sizedVm(name, cores, memory, {}, { namespace }));

  it('get pods -A lists the launcher pods next to the hosts\' system pods, with kubectl\'s columns', async () => {
    create('web', 2, '4Gi');
    await t.kubectlOk(['wait', '--for=jsonpath={.status.phase}=Running', 'vmi/web', '--timeout=20s']);
    const out = await t.kubectlOk(['get', 'pods', '-A', '-o', 'wide']);
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    assert.ok(lines.some((l) => /^default\s+virt-launcher-web-[a-z0-9]{5}\s+2\/2\s+Running\s+0\s+\S+\s+10\.52\.\d+\.\d+\s+harvester-node-\d\s+<none>\s+<none>$/.test(l)), out);
    assert.equal(lines.filter((l) => /^kube-system\s+harvester-system-harvester-node-\d\s+1\/1\s+Running/.test(l)).length, 2, out);
  });

  it('describe node counts the pods on the host (field selectors spec.nodeName and status.phase) in Allocated resources', async () => {
    const host = (await t.kubectlOk(['get', 'vmi', 'web', '-o', 'jsonpath={.status.nodeName}'])).trim();
    const out = await t.kubectlOk(['describe', 'node', host]);
    // 8 cores less the installer's reservation: (6% + 1% + 2 × 0.5% + 4 × 0.25% + 400m) × 2 = 980m
    assert.match(out, /Allocatable:\n\s+cpu:\s+7020m\n/);
    assert.match(out, /Non-terminated Pods:\s+\(2 in total\)/);
    // 1 core system + 125m + 5m for the VM; 4Gi + the launcher pod's memory request
    assert.match(out, /\n\s+cpu\s+1130m \(16%\)\s+2015m \(28%\)\n/);
    const pods = await t.kubectlOk(['get', 'pods', '-A', '--field-selector', `spec.nodeName=${host},status.phase!=Succeeded`, '-o', 'name']);
    assert.equal(pods.trim().split('\n').length, 2);
  });

  it('get events shows the scheduler\'s FailedScheduling for a VM that fits nowhere; get vm says ErrorUnschedulable', async () => {
    create('whale', 4, '48Gi');
    await t.kubectlOk(['wait', '--for=jsonpath={.status.printableStatus}=ErrorUnschedulable', 'vm/whale', '--timeout=20s']);
    const events = await t.kubectlOk(['get', 'events', '--field-selector', 'reason=FailedScheduling']);
    const [head, row] = events.trim().split('\n');
    assert.match(head, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    assert.match(row, /^\S+\s+Warning\s+FailedScheduling\s+pod\/virt-launcher-whale-[a-z0-9]{5}\s+0\/2 nodes are available: 2 Insufficient memory\. preemption: 0\/2 nodes are available: 2 Preemption is not helpful for scheduling\.\.$/);
    const described = await t.kubectlOk(['describe', 'pod', '-l', 'vm.kubevirt.io/name=whale']);
    assert.match(described, /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/2 nodes are available/);
  });

  it('create quota (a protobuf body) and get quota; a launcher pod over it is refused with the apiserver\'s 403', async () => {
    await t.kubectlOk(['create', 'namespace', 'team']);
    await t.kubectlOk(['create', 'quota', 'compute', '-n', 'team', '--hard=limits.cpu=3,limits.memory=20Gi']);
    create('first', 2, '4Gi', 'team');
    await t.kubectlOk(['wait', '-n', 'team', '--for=jsonpath={.status.phase}=Running', 'vmi/first', '--timeout=20s']);
    create('over', 2, '4Gi', 'team');
    await t.kubectlOk(['wait', '-n', 'team', '--for=jsonpath={.status.conditions[?(@.type=="Synchronized")].reason}=FailedCreate', 'vmi/over', '--timeout=20s']);
    const quota = await t.kubectlOk(['get', 'quota', '-n', 'team', 'compute']);
    assert.match(quota, /^NAME\s+AGE\s+REQUEST\s+LIMIT\n/);
    assert.match(quota, /compute\s+\S+\s+limits\.cpu: 2015m\/3, limits\.memory: \d+\/20Gi/);
    const events = await t.kubectlOk(['get', 'events', '-n', 'team', '--field-selector', 'involvedObject.name=over,reason=FailedCreate', '-o', 'jsonpath={.items[0].message}']);
    assert.match(events, /^Error creating pod: pods "virt-launcher-over-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: limits\.cpu=2015m, used: limits\.cpu=2015m, limited: limits\.cpu=3$/);
    const r = await t.kubectl(['run', 'bare', '-n', 'team', '--image', 'nginx', '--restart', 'Never']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /pods "bare" is forbidden: failed quota: compute: must specify limits\.cpu for: bare; limits\.memory for: bare/);
  });
});
