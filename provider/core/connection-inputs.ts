/**
 * The per-resource connection override every resource model carries (one text for all: the SDK docs,
 * schema.json and docs/resources derive from it). Stack config is the normal way (core/connection.ts); these inputs
 * are never part of a diff (host/host-safe.ts).
 */
import { z } from 'zod';

export const connectionInputs = {
  kubeconfig: z.string().min(1).optional().meta({ secret: true }).describe(
    'Per-resource override of the Harvester connection (a stack spanning several clusters): kubeconfig YAML content or a file path. Secret. ' +
      'Default: stack config harvester:kubeconfig, then $KUBECONFIG, then ~/.kube/config. Prefer stack config: rotating it needs no change here. ' +
      'Not part of the diff: a change updates nothing on the cluster.',
  ),
  context: z.string().min(1).optional().describe('Per-resource override of the kubeconfig context. Default: stack config harvester:context, then the kubeconfig\'s current-context.'),
};
