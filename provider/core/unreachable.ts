/**
 * A cluster that cannot be reached, or refuses us, is one diagnostic: the first resource whose check meets it says
 * which server, where the kubeconfig came from and how to fix it with the engine in use; every other resource of
 * the same run says only "not checked: cluster unreachable" (the reason is above), so a stack of forty resources
 * does not print forty copies of one cause, and none is called "invalid inputs" (docs/design/resource-reconciler.md).
 */
import { errorMessage } from './errors';
import type { CheckFailure } from './types';

/** Set by the local runner for the hosts it starts: the fix names its commands instead of the Pulumi CLI's. */
export const ENGINE_ENV = 'HARVESTER_IAC_ENGINE';

/** The command that sets the stack's kubeconfig, for the engine in use. */
export function configSetCommand(): string {
  const runner = process.env[ENGINE_ENV] === 'local';
  return `${runner ? 'npx harvester-iac-run' : 'pulumi'} config set --secret harvester:kubeconfig < kubeconfig.yaml`;
}

/**
 * A failure on a guest cluster (reached with credentials the resource holds in `input`), so check names that
 * input rather than the Harvester connection.
 */
export class OtherClusterError extends Error {
  constructor(readonly input: string, override readonly cause: unknown) {
    super(errorMessage(cause));
    this.name = 'OtherClusterError';
  }
}

/** Runs `work` against the cluster `input` names; a failure says which. */
export async function onCluster<T>(input: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof OtherClusterError ? err : new OtherClusterError(input, err);
  }
}

/** What a check says of an unreachable cluster; `reported` remembers the clusters already explained. */
export class UnreachableClusters {
  private readonly reported = new Set<string>();

  /**
   * The check failure for `err` met while checking against `server` (the kubeconfig's, or "an unknown server"
   * when the kubeconfig could not even be loaded), the kubeconfig taken from `origin`.
   */
  failure(err: unknown, where: { server?: string; origin: string; input?: string }): CheckFailure {
    if (err instanceof OtherClusterError) {
      return { property: '', reason: `cannot check the inputs against the guest cluster (${err.input}): ${err.message}` };
    }
    const server = where.server ?? 'an unknown server';
    const key = `${server}\u0000${where.origin}`;
    const fix = where.input
      ? `fix the resource's ${where.input} input`
      : `check that the cluster is up and the credentials are current, then set them with \`${configSetCommand()}\``;
    if (where.server === undefined) {
      // The kubeconfig itself could not be loaded: its own message says what is wrong with it.
      return { property: '', reason: `cannot check the inputs against the Harvester cluster: the kubeconfig from ${where.origin} cannot be used: ${errorMessage(err)}\nFix: ${fix}.` };
    }
    if (this.reported.has(key)) {
      return { property: '', reason: `not checked: the Harvester cluster at ${server} is unreachable or refuses us (the first resource checked says why)` };
    }
    this.reported.add(key);
    return {
      property: '',
      reason: `cannot check the inputs against the Harvester cluster at ${server} (kubeconfig from ${where.origin}): ${errorMessage(err)}\nFix: ${fix}.`,
    };
  }
}
