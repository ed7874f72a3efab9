/**
 * Loads modules through @pulumi/pulumi's own resolution path: its generated stubs check `instanceof Struct`, so
 * grpc-js and google-protobuf must be the very copies @pulumi/pulumi uses (docs/design/dynamic-host-contract.md
 * §"Driving the host").
 */
import { dirname } from 'node:path';

export function pulumiModule<T = any>(path: string): T {
  const base = dirname(require.resolve('@pulumi/pulumi/package.json'));
  return require(require.resolve(path, { paths: [base] })) as T;
}
