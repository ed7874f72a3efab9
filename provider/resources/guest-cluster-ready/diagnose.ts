/**
 * Why a node does not come up, found only from what a provider can honestly observe (docs/design/guest-rke2.md
 * §"What a provider can observe" — nothing is read off a VM, there is no shell):
 *
 * 1. its own user data, read back from the VM's cloud-init Secret through Harvester's API: a node whose RKE2 config
 *    carries another token than the cluster's never joins — said at once (RKE2 retries forever; waiting out the
 *    timeout would only hide it), confirmed at the supervisor with that very token when it answers;
 * 2. at the timeout, for nodes that never registered: the control-plane load balancer (a 9345 listener, running
 *    backends) and the supervisor itself (reachable, serving the CA the tokens pin, accepting the cluster's tokens);
 * 3. for registered nodes: the Ready condition's message, or the cloud provider not initialising them.
 * Reasons start with one of "[wrong token]", "[supervisor unreachable]", "[not Ready in time]" (brackets, not
 * "token: …", which the redactor takes for a secret field).
 */
import { parse } from 'yaml';
import type { HarvesterClient } from '../../client/harvester-client';
import type { Secret, VirtualMachine } from '../../client/objects';
import { RKE2_CONFIG_PATH } from '../../core/rke2/files';
import type { GuestClusterReadyInputs, NodeStatus } from './model';
import { joinProblem, parseToken, servedCaHash } from './supervisor';

/** The `token` RKE2's config.yaml gets from a #cloud-config user data, if it writes one. */
export function tokenInUserData(userData: string): string | undefined {
  let doc: unknown;
  try {
    doc = parse(userData);
  } catch {
    return undefined;
  }
  const files = (doc as { write_files?: unknown } | null)?.write_files;
  if (!Array.isArray(files)) return undefined;
  const entry = files.find((f) => (f as { path?: unknown })?.path === RKE2_CONFIG_PATH) as { content?: unknown; encoding?: unknown } | undefined;
  if (typeof entry?.content !== 'string') return undefined;
  const text = entry.encoding === 'b64' || entry.encoding === 'base64' ? Buffer.from(entry.content, 'base64').toString('utf8') : entry.content;
  try {
    const token = (parse(text) as { token?: unknown } | null)?.token;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/** The name of a VM's cloud-init Secret (its cloudinitdisk volume's secretRef). */
export function cloudInitSecretOf(vm: VirtualMachine): string | undefined {
  const volumes = (vm.spec?.template?.spec?.volumes ?? []) as { cloudInitNoCloud?: { secretRef?: { name?: string }; userDataSecretRef?: { name?: string } } }[];
  const ci = volumes.find((v) => v.cloudInitNoCloud)?.cloudInitNoCloud;
  return ci?.secretRef?.name ?? ci?.userDataSecretRef?.name;
}

type Inputs = Pick<GuestClusterReadyInputs, 'namespace' | 'serverToken' | 'agentToken' | 'supervisorUrl' | 'loadBalancer'>;

/**
 * Nodes that cannot join, known without waiting: not registered, and their user data carries a token that is not
 * the cluster's (for their role). Empty when the expected tokens are not given.
 */
export async function wrongTokens(client: HarvesterClient, inputs: Inputs, statuses: NodeStatus[], vms: Map<string, VirtualMachine>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of statuses) {
    if (s.ready || s.waitingFor?.startsWith('NotReady') || s.providerId) continue;
    const expected = s.role === 'server' ? inputs.serverToken : inputs.agentToken;
    const vm = vms.get(s.name);
    const secretName = vm && cloudInitSecretOf(vm);
    if (!expected || !secretName) continue;
    const secret: Secret | undefined = await client.secrets.get(secretName, inputs.namespace);
    const data = secret?.data?.userdata;
    const token = data === undefined ? undefined : tokenInUserData(Buffer.from(data, 'base64').toString('utf8'));
    if (token === undefined || token === expected) continue;
    const mine = parseToken(token);
    const theirs = parseToken(expected);
    const what = mine.caHash && theirs.caHash && mine.caHash !== theirs.caHash ? 'pins another CA' : 'has another password';
    let reason = `[wrong token] the ${s.role} token in its user data (Secret ${inputs.namespace}/${secretName}) ${what} than this cluster's ${s.role} token, so RKE2 can never join it`;
    if (inputs.supervisorUrl) {
      const seen = await joinProblem(inputs.supervisorUrl, s.role, token);
      reason += seen?.startsWith('[wrong token]') ? `; the supervisor confirms: ${seen.slice('[wrong token] '.length)}` : seen ? ` (the supervisor could not confirm it: ${seen})` : '';
    }
    out.set(s.name, `${reason}. Fix: give the VM the cluster's token (GuestCluster renders it) and replace the VM — cloud-init reads user data once`);
  }
  return out;
}

/** Why the supervisor cannot be joined through, seen from Harvester's load balancer and the supervisor itself. */
async function supervisorProblem(client: HarvesterClient, inputs: Inputs): Promise<string | undefined> {
  if (inputs.loadBalancer) {
    const lb = await client.loadBalancers.get(inputs.loadBalancer, inputs.namespace);
    if (!lb) return `[supervisor unreachable] the control-plane load balancer ${inputs.namespace}/${inputs.loadBalancer} does not exist`;
    if (!(lb.spec?.listeners ?? []).some((l) => l.port === 9345)) return `[supervisor unreachable] the control-plane load balancer ${inputs.namespace}/${inputs.loadBalancer} has no 9345 listener, so no node can reach the supervisor to join`;
    const backends = (lb.status as { backendServers?: string[] } | undefined)?.backendServers ?? [];
    if (backends.length === 0) return `[supervisor unreachable] no running server behind the control-plane load balancer ${inputs.namespace}/${inputs.loadBalancer} (status.backendServers is empty): the first server never came up`;
  }
  if (!inputs.supervisorUrl) return undefined;
  const served = await servedCaHash(inputs.supervisorUrl);
  if (served.error) return `[supervisor unreachable] ${inputs.supervisorUrl} does not answer (${served.error})`;
  for (const [role, token] of [['server', inputs.serverToken], ['agent', inputs.agentToken]] as const) {
    if (!token) continue;
    const pinned = parseToken(token).caHash;
    if (pinned && pinned !== served.hash) return `[wrong token] the supervisor serves another CA than the one the cluster's tokens pin (it was initialised with other CA files)`;
    const problem = await joinProblem(inputs.supervisorUrl, role, token);
    if (problem) return problem.startsWith('[wrong token]') ? `[wrong token] the cluster does not accept its own ${role} token (${problem.slice('[wrong token] '.length)}): it was initialised with other tokens` : problem;
  }
  return undefined;
}

/** The reason of every node still not up when the wait ran out. */
export async function timeoutReasons(client: HarvesterClient, inputs: Inputs, statuses: NodeStatus[], timeoutText: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unregistered = statuses.filter((s) => s.waitingFor?.startsWith('not registered') || s.waitingFor?.startsWith('the guest API'));
  const supervisor = unregistered.length ? await supervisorProblem(client, inputs).catch((err: Error) => `[supervisor unreachable] ${err.message}`) : undefined;
  for (const s of statuses) {
    if (!s.waitingFor) continue;
    if (unregistered.includes(s)) {
      out.set(s.name, supervisor ?? `[not Ready in time] did not register within ${timeoutText} (${s.waitingFor}); the supervisor answers and accepts the cluster's tokens, so RKE2 is still installing or starting on the VM — its journal says why (journalctl -u rke2-${s.role})`);
    } else if (s.waitingFor.startsWith('not initialised') || s.waitingFor.startsWith('providerID')) {
      out.set(s.name, `[not Ready in time] ${s.waitingFor} within ${timeoutText}; check the cloud provider's credentials (GuestClusterCredentials) and its pod (kubectl -n kube-system get pods -l app.kubernetes.io/name=harvester-cloud-provider)`);
    } else {
      out.set(s.name, `[not Ready in time] ${s.waitingFor} (after ${timeoutText})`);
    }
  }
  return out;
}
