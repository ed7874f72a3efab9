/**
 * getCapacity(): what the Harvester hosts and a namespace's quotas can still take, as an Output usable in
 * preview (like other providers' `get…` functions). It reads the cluster when the program runs (GET/LIST
 * only) over the connection the resources use: stack config `harvester:kubeconfig` (secret) and
 * `harvester:context`, else $KUBECONFIG, then ~/.kube/config. The same code backs the machine pool's check
 * (provider/capacity; docs/guides/capacity.md says what it promises and where it stops).
 */
import * as pulumi from '@pulumi/pulumi';
import type { Capacity } from '../provider/capacity';

export type { Capacity, HostCapacity, ZoneCapacity, QuotaCapacity, DiskCapacity, Resources, CapacitySettings, LauncherPod } from '../provider/capacity';

/** Arguments of getCapacity. */
export interface GetCapacityArgs {
  /** The namespace whose ResourceQuotas (and VM launcher pods) to report. @default "default" */
  namespace?: string;
  /** Read Longhorn's disks (needs list on nodes.longhorn.io in longhorn-system). @default true */
  storage?: boolean;
  /** Another cluster's kubeconfig (content or path); default: stack config harvester:kubeconfig, then $KUBECONFIG. */
  kubeconfig?: pulumi.Input<string>;
  /** The kubeconfig context; default: stack config harvester:context, then the kubeconfig's current context. */
  context?: pulumi.Input<string>;
}

/**
 * The capacity snapshot. Its `warnings` name every read that could not be made (and the permission it lacked);
 * they are also logged as warnings of the program. The result holds no credentials, so it is not secret even
 * when the kubeconfig is.
 */
export function getCapacity(args: GetCapacityArgs = {}): pulumi.Output<Capacity> {
  const config = new pulumi.Config('harvester');
  const kubeconfig = args.kubeconfig ?? config.getSecret('kubeconfig');
  const context = args.context ?? config.get('context');
  const snapshot = pulumi.all([kubeconfig, context]).apply(async ([kc, ctx]) => {
    // Loaded on first use: importing the SDK stays free of the Kubernetes client.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { HarvesterClient } = require('../provider/client/harvester-client') as typeof import('../provider/client/harvester-client');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { capacityOf } = require('../provider/capacity') as typeof import('../provider/capacity');
    const client = await HarvesterClient.connect({ kubeconfig: kc || undefined, context: ctx || undefined });
    const capacity = await capacityOf(client, { namespace: args.namespace ?? 'default', storage: args.storage });
    for (const warning of capacity.warnings) void pulumi.log.warn(warning);
    return capacity;
  });
  return pulumi.unsecret(snapshot);
}
