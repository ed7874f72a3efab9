/**
 * One emulated RKE2 cluster, born when an initialising server (no `server:`) starts (docs/design/guest-rke2.md
 * §"The emulated cluster"): its certificate authorities (the supplied files, the missing ones generated as RKE2
 * does), its `server`/`node` passwords, its critical configuration, its etcd members and quorum, and its API — an
 * ObjectStore served by serveCluster with serving certificates signed by the server CA, client certificates
 * checked against the client CA, RBAC, and 503 for every resource request while etcd has no quorum.
 */
import { createPrivateKey, randomBytes } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { Clock } from '../../clock';
import type { Authenticated } from '../../api/auth';
import { StatusError } from '../../api/errors';
import { ObjectStore } from '../../api/store';
import type { KindInfo, KubeObject, Store } from '../../api/types';
import { validateObject } from '../../api/validation';
import type { TlsMaterial } from '../../api/tls';
import { ControllerError, ErrorLog } from '../../controllers/runtime';
import { GUEST_KINDS, clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind, serviceAccountKind, StaticKindRegistry } from '../../kinds';
import { seedClusterRoleBindings, seedClusterRoles } from '../../rbac/seed-roles';
import type { TokenIdentity } from '../../rbac/credentialed-store';
import { serveCluster, ServedCluster } from '../../serve-cluster';
import { CcmPlan, planCcm, RunningCcm, startCcm } from './ccm';
import { criticalValues, CriticalKey } from './config';
import { createEtcdMemberController } from './etcd';
import { apiServerSans, CaSigner, generateCa, issueCertificate, loadCa } from './pki';
import { hashCa, nodePassword, parseToken, serverSidePassword } from './token';
import { CA_FILES, CaName, Rke2NodeSpec, SERVICE_KEY_FILE, TLS_DIR } from './user-data';
import { Rke2Journal } from './journal';
import { formatIPv4, parseCidr } from '../../util/ipv4';

/** An etcd member: a server node, by its VM. */
export interface Member {
  name: string;
  /** `namespace/vm` of the server. */
  vmKey: string;
  vmUid: string;
  address: string;
}

/** What a cluster needs from its surroundings. */
export interface ClusterContext {
  clock: Clock;
  harvester: Store;
  identity?: TokenIdentity;
  ccmVersion: string;
  ccmInitDelay: number;
  /** Is this member's server up (VM running, rke2-server started)? */
  memberAlive(member: Member): boolean;
}

/** The guest cluster's kinds: the guest role's (core, Deployment) plus ServiceAccount and RBAC, so client certificates other than system:masters are authorized. */
function rke2Registry(): StaticKindRegistry {
  return new StaticKindRegistry([...GUEST_KINDS, serviceAccountKind, clusterRoleKind, clusterRoleBindingKind, roleKind, roleBindingKind]);
}

/** kube-apiserver's x509 authenticator: CN is the user, O the groups; system:masters is never restricted. */
export function certificateUser(cert: PeerCertificate): Authenticated | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const user = first(cert.subject?.CN);
  if (!user) return undefined;
  const o = cert.subject?.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  if (groups.includes('system:masters')) return { user, anonymous: false };
  return { user, anonymous: false, groups: [...groups, 'system:authenticated'] };
}

async function caFromFiles(name: CaName, files: Map<string, string>, journal: Rke2Journal): Promise<CaSigner> {
  const cert = files.get(`${TLS_DIR}${CA_FILES[name]}.crt`);
  const key = files.get(`${TLS_DIR}${CA_FILES[name]}.key`);
  if (cert !== undefined && key !== undefined) {
    try {
      return await loadCa(cert, key);
    } catch (err) {
      throw new Error(`${TLS_DIR}${CA_FILES[name]}.crt: ${(err as Error).message}`);
    }
  }
  if (cert !== undefined || key !== undefined) journal.warn(`${TLS_DIR}${CA_FILES[name]}: only one of .crt/.key is written; a new CA is generated in its place`);
  const prefix = name === 'etcdServer' ? 'etcd-server' : name === 'etcdPeer' ? 'etcd-peer' : `rke2-${name === 'requestHeader' ? 'request-header' : name}`;
  const generated = await generateCa(`${prefix}-ca@${Math.floor(Date.now() / 1000)}`);
  return loadCa(generated.certPem, generated.keyPem);
}

/** An emulated RKE2 cluster. */
export class Rke2Cluster {
  readonly store: ObjectStore;
  readonly nodeKind: KindInfo;
  readonly members = new Map<string, Member>();
  readonly errors = new ErrorLog();
  private readonly certs = new Map<string, TlsMaterial>();
  private served?: ServedCluster;
  private ccm?: RunningCcm;
  private stopped = false;
  readonly ccmPlan: CcmPlan;
  readonly critical: Record<CriticalKey, string>;

  private constructor(
    readonly id: string,
    readonly initVm: string,
    readonly serverCa: CaSigner,
    readonly clientCa: CaSigner,
    readonly serverPassword: string,
    readonly nodePassword: string,
    spec: Rke2NodeSpec,
    private readonly ctx: ClusterContext,
    readonly journal: Rke2Journal,
  ) {
    this.store = new ObjectStore(rke2Registry(), ctx.clock, { validate: validateObject });
    this.nodeKind = this.store.registry.byKind('v1', 'Node')!;
    this.critical = criticalValues(spec.config, nodePassword);
    this.ccmPlan = planCcm(spec.config, spec.files, this.critical['disable-cloud-controller'] === 'true');
    seed(this.store);
  }

  /** Initialises a cluster from its first server's user data (the CA files are checked, missing ones generated). */
  static async create(o: { vmKey: string; spec: Rke2NodeSpec; ctx: ClusterContext; journal: Rke2Journal }): Promise<Rke2Cluster> {
    const { spec, journal } = o;
    const serverCa = await caFromFiles('server', spec.files, journal);
    const clientCa = await caFromFiles('client', spec.files, journal);
    for (const other of ['requestHeader', 'etcdServer', 'etcdPeer'] as const) await caFromFiles(other, spec.files, journal);
    const serviceKey = spec.files.get(SERVICE_KEY_FILE);
    if (serviceKey !== undefined) {
      try {
        createPrivateKey(serviceKey);
      } catch (err) {
        throw new Error(`${SERVICE_KEY_FILE}: not a PEM private key (${(err as Error).message})`);
      }
    }
    const token = spec.config.token ?? randomBytes(16).toString('hex');
    if (!spec.config.token) journal.info('no token configured: a random one is generated (joining nodes cannot know it)');
    const serverPassword = serverSidePassword(token, 'server');
    try {
      const pinned = parseToken(token).caHash;
      const actual = hashCa(serverCa.bundle);
      if (pinned && pinned !== actual) journal.warn(`emulator: the token pins CA hash ${pinned} but this server's CA hashes to ${actual}; nodes given this token will refuse to join`);
    } catch {
      // A malformed token is the joiners' problem; the server keeps it as its password.
    }
    const id = `${o.vmKey.replace('/', '-')}-${randomBytes(3).toString('hex')}`;
    const cluster = new Rke2Cluster(id, o.vmKey, serverCa, clientCa, serverPassword, nodePassword(token, spec.config.agentToken), spec, o.ctx, journal);
    journal.info(`cluster ${id} initialised; ${cluster.ccmPlan.note}`);
    return cluster;
  }

  /** Issues the serving certificate of a server (kept per VM) and starts serving on loopback once the first is known. */
  async addServer(vmKey: string, sans: { nodeName: string; nodeIp: string; tlsSan: string[]; clusterDomain: string }): Promise<void> {
    const block = parseCidr(this.critical['service-cidr'].split(',')[0]);
    const serviceIp = block ? formatIPv4(block.network + 1) : '10.43.0.1';
    const leaf = await issueCertificate(this.serverCa, { commonName: 'kube-apiserver', usage: 'server', sans: apiServerSans({ ...sans, serviceIp }) });
    const tls: TlsMaterial = { caCert: this.serverCa.bundle, cert: leaf.certPem, key: leaf.keyPem };
    this.certs.set(vmKey, tls);
    if (this.served || this.stopped) return;
    this.served = await serveCluster({
      store: this.store,
      clock: this.ctx.clock,
      port: 0,
      tls: true,
      tlsMaterial: tls,
      contextName: this.id,
      clientCertificates: { ca: this.clientCa.bundle, identify: certificateUser },
      availability: () => (this.hasQuorum() ? undefined : new StatusError(503, 'ServiceUnavailable', 'etcdserver: no leader (the emulated etcd has lost quorum)')),
    });
    if (this.stopped) {
      await this.served.server.close();
      return;
    }
    const etcd = createEtcdMemberController({ store: this.store, nodeKind: this.nodeKind, clock: this.ctx.clock, members: this, errors: this.errors });
    const ccm = startCcm(this.ccmPlan, { guest: this.store, harvester: this.ctx.harvester, clock: this.ctx.clock, nodeKind: this.nodeKind, ccmVersion: this.ctx.ccmVersion, ccmInitDelay: this.ctx.ccmInitDelay, identity: this.ctx.identity, errors: this.errors });
    this.ccm = { stop: () => (etcd.stop(), ccm.stop()), guestHandle: ccm.guestHandle };
  }

  /** The serving material of a server, once issued. */
  tlsOf(vmKey: string): TlsMaterial | undefined {
    return this.certs.get(vmKey);
  }

  /** The served API (the local listener, a token kubeconfig, extra listeners); undefined until the first server serves. */
  get api(): ServedCluster | undefined {
    return this.served;
  }

  /** The Harvester cloud provider's handle (events), when it runs. */
  get cloudProvider() {
    return this.ccm?.guestHandle;
  }

  hasQuorum(): boolean {
    const all = [...this.members.values()];
    const alive = all.filter((m) => this.ctx.memberAlive(m)).length;
    return all.length > 0 && alive > all.length / 2;
  }

  addMember(member: Member): void {
    this.members.set(member.name, member);
    this.journal.info(`etcd member ${member.name} (${member.address}) added; ${this.members.size} member(s)`);
  }

  /**
   * Removes a member, unless the members left would have no majority of live ones (etcd refuses a
   * reconfiguration that leaves the cluster unhealthy): 'refused' then, false when there is no such member.
   */
  removeMember(name: string): boolean | 'refused' {
    const member = this.members.get(name);
    if (!member) return false;
    const rest = [...this.members.values()].filter((m) => m !== member);
    if (rest.length === 0 || rest.filter((m) => this.ctx.memberAlive(m)).length <= rest.length / 2) return 'refused';
    return this.members.delete(name);
  }

  memberOf(vmKey: string, vmUid: string): Member | undefined {
    return [...this.members.values()].find((m) => m.vmKey === vmKey && m.vmUid === vmUid);
  }

  log(message: string): void {
    this.journal.info(message);
  }

  controllerErrors(): ControllerError[] {
    return [...this.errors.list(), ...(this.ccm?.guestHandle?.errors() ?? [])];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ccm?.stop();
    await this.served?.server.close();
    await this.store.settle();
  }
}

function seed(store: ObjectStore): void {
  const ns = store.registry.byKind('v1', 'Namespace')!;
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) store.create(ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const role = store.registry.byKind('rbac.authorization.k8s.io/v1', 'ClusterRole')!;
  const binding = store.registry.byKind('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding')!;
  // Kubernetes' bootstrap policy only; Harvester's own roles have no place in a guest cluster.
  for (const r of seedClusterRoles().filter((r: KubeObject) => !String(r.metadata.name).startsWith('harvesterhci.io:'))) store.create(role, r);
  for (const b of seedClusterRoleBindings()) store.create(binding, b);
}
