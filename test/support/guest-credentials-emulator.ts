/**
 * The set-up the GuestClusterCredentials integration tests share: one emulator per file (skipped in acceptance
 * mode), an admin client, the provider's handlers with a fast connection, and a create through check as the engine
 * does it. Call it inside the `describe`: it registers that file's `before` and `after`.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createGuestClusterCredentialsProvider } from '../../provider/resources/guest-cluster-credentials/handlers';
import type { GuestClusterCredentialsOutputs } from '../../provider/resources/guest-cluster-credentials/model';
import { startTestEmulator, type TestEmulator } from './emulator-harness';
import { fastConnect } from './fast-connect';
import { acceptanceMode } from './target';

type Raw = Record<string, unknown>;

export interface GuestCredentialsEmulator {
  /** The running emulator (set by the file's `before`). */
  t: TestEmulator;
  /** A client with the emulator's admin credentials. */
  admin: HarvesterClient;
  creds: ReturnType<typeof createGuestClusterCredentialsProvider>;
  /** The inputs of credentials for `clusterName` in the file's namespace, 10 s timeouts, plus `extra`. */
  args(clusterName: string, extra?: Raw): Raw;
  /** check (which must pass) then create: the outputs. */
  created(clusterName: string, extra?: Raw): Promise<GuestClusterCredentialsOutputs>;
}

/** The shared set-up; `namespace` is the credentials' (created first unless it is `default`). */
export function guestCredentialsEmulator(namespace: string): GuestCredentialsEmulator {
  const h = { creds: createGuestClusterCredentialsProvider({ connect: fastConnect() }) } as GuestCredentialsEmulator;
  h.args = (clusterName, extra = {}) => ({ kubeconfig: h.t.emulator.kubeconfig, clusterName, namespace, timeouts: { create: '10s', update: '10s', delete: '10s' }, ...extra });
  h.created = async (clusterName, extra = {}) => {
    const checked = await h.creds.check({}, h.args(clusterName, extra));
    assert.deepEqual(checked.failures ?? [], []);
    return (await h.creds.create(checked.inputs!)).outs as GuestClusterCredentialsOutputs;
  };
  before(async function () {
    if (acceptanceMode()) this.skip();
    h.t = await startTestEmulator();
    h.admin = await HarvesterClient.connect({ kubeconfig: h.t.emulator.kubeconfig });
    if (namespace !== 'default') await h.admin.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  });
  after(async () => h.t?.stop());
  return h;
}
