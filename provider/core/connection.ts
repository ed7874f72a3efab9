/**
 * Where the handlers' Harvester connection comes from, in order:
 * 1. a per-resource override (`kubeconfig` / `context` inputs, for a stack spanning several clusters);
 * 2. the stack config `harvester:kubeconfig` (secret) / `harvester:context`, which the dynamic-provider host
 *    hands to `configure` before any other call (docs/design/dynamic-host-contract.md §"Each call");
 * 3. `$KUBECONFIG`, then `~/.kube/config`, read at operation time by the client layer.
 * Stack config is read at every operation, never pinned in state: a rotated token in stack config reaches
 * refresh and destroy of existing resources (trap 9 of docs/design/dynamic-host-contract.md).
 */
import { registerSecret } from '../client/redact';

/** A Harvester connection: a kubeconfig (path or content) and a context. */
export interface ConnectionSettings {
  kubeconfig?: string;
  context?: string;
  /**
   * How hard each request retries (HarvesterClient.connect's `retry`): a wait for an API that is still coming up
   * (a guest cluster's first server) retries through its watch instead, quickly. @default the client's policy
   */
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number };
}

/** Stack config keys read by `configure`. */
export const STACK_CONFIG_KEYS = { kubeconfig: 'harvester:kubeconfig', context: 'harvester:context' } as const;

/** The input names that only say how to connect: never part of a resource's diff, outputs or check failures' properties. */
export const CONNECTION_INPUTS: readonly string[] = ['kubeconfig', 'context'];

let stack: ConnectionSettings = {};

/** configureConnection records the stack config (called by the provider's `configure`). Empty strings mean unset. */
export function configureConnection(settings: ConnectionSettings): void {
  const kubeconfig = settings.kubeconfig || undefined;
  // A path is not secret (and must stay readable in messages); content is. kube-config.ts registers content when loaded too.
  if (kubeconfig && kubeconfig.includes('\n')) registerSecret(kubeconfig);
  stack = { kubeconfig, context: settings.context || undefined };
}

/** connectionFor resolves the connection of one operation: override, else stack config, else the client's defaults. */
export function connectionFor(override: ConnectionSettings = {}): ConnectionSettings {
  if (override.kubeconfig) return { kubeconfig: override.kubeconfig, context: override.context ?? (override.kubeconfig === stack.kubeconfig ? stack.context : undefined) };
  return { kubeconfig: stack.kubeconfig, context: override.context ?? stack.context };
}

/** Where an operation's kubeconfig comes from, as a diagnostic names it (the order connectionFor follows). */
export function connectionOrigin(override: ConnectionSettings = {}): string {
  if (override.kubeconfig) return 'the resource\'s kubeconfig input';
  if (stack.kubeconfig) return `stack config ${STACK_CONFIG_KEYS.kubeconfig}`;
  return process.env.KUBECONFIG ? `$KUBECONFIG (${process.env.KUBECONFIG})` : '~/.kube/config (no stack config harvester:kubeconfig, no $KUBECONFIG)';
}

/** The stack-config connection currently recorded (tests). */
export function stackConnection(): ConnectionSettings {
  return { ...stack };
}
