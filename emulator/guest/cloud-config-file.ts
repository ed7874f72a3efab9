/**
 * Where the guest's Harvester cloud provider finds its kubeconfig when none is given explicitly: the file
 * cloud-init writes on the guest's nodes (`write_files` of the VMs' user data) at `/etc/kubernetes/cloud-config`
 * or RKE2's `/var/lib/rancher/rke2/etc/config-files/cloud-provider-config` (docs/design/guest-cloud-provider.md
 * §"Its credentials"). Rancher and GuestClusterCredentials' `cloudInit` put it there.
 */
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import type { KindInfo, KubeObject, StoreReader } from '../api/types';
import { userDataOf } from '../controllers/guest-agent';
import { field } from '../util/objects';

export const CLOUD_CONFIG_PATHS = ['/etc/kubernetes/cloud-config', '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config'];

/** A write_files entry's content as cloud-init decodes it (b64/base64, gzip+base64, or plain text). */
export function decodeContent(entry: Record<string, unknown>): string {
  const content = typeof entry.content === 'string' ? entry.content : '';
  const encoding = String(entry.encoding ?? '').toLowerCase();
  if (['gz+b64', 'gz+base64', 'gzip+b64', 'gzip+base64'].includes(encoding)) return gunzipSync(Buffer.from(content, 'base64')).toString('utf8');
  if (['b64', 'base64'].includes(encoding)) return Buffer.from(content, 'base64').toString('utf8');
  return content;
}

/** The cloud-config file a `#cloud-config` user data writes, or undefined. */
export function cloudConfigFromUserData(userData: string | undefined): string | undefined {
  if (!userData) return undefined;
  let doc: unknown;
  try {
    doc = parse(userData);
  } catch {
    return undefined;
  }
  const files = (doc as { write_files?: unknown } | null)?.write_files;
  if (!Array.isArray(files)) return undefined;
  for (const path of CLOUD_CONFIG_PATHS) {
    const entry = files.find((f) => f && typeof f === 'object' && (f as Record<string, unknown>).path === path) as Record<string, unknown> | undefined;
    if (entry) return decodeContent(entry);
  }
  return undefined;
}

/** The cloud-config of the first (by name) of `vms` whose user data writes one. */
export function cloudConfigOfVms(vms: KubeObject[], store: StoreReader, secretKind: KindInfo): string | undefined {
  for (const vm of [...vms].sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)))) {
    const podSpec = field<Record<string, unknown>>(vm, 'spec', 'template', 'spec');
    const text = podSpec ? cloudConfigFromUserData(userDataOf(podSpec, String(vm.metadata.namespace), store, secretKind)) : undefined;
    if (text) return text;
  }
  return undefined;
}
