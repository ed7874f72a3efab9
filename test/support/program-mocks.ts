/**
 * An example program run under `pulumi.runtime.setMocks`: what it registers (type tokens, inputs as the engine
 * receives them, secrets marked), with outputs a test fills per resource type. Shared by the examples' tests.
 */
import * as pulumi from '@pulumi/pulumi';

export interface Registered {
  type: string;
  name: string;
  inputs: Record<string, any>;
}

/** The outputs a mocked resource reports besides its inputs, by class name (e.g. "HarvesterMachinePool"). */
export type MockOutputs = Record<string, (inputs: Record<string, any>, name: string) => Record<string, unknown>>;

export interface MockedProgram {
  registered: Registered[];
  /** The program module's exports. */
  program: Record<string, pulumi.Output<unknown>>;
  /** The resource of a class (`pulumi-nodejs:dynamic/harvester:<className>`), first registered. */
  byType(className: string): Registered | undefined;
}

/** Resolves an output's value. */
export const settle = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

/** Loads `modulePath` (a program) with mocks for project/stack; each resource gets id `default/<name>`. */
export async function loadWithMocks(modulePath: string, project: string, stack: string, outputs: MockOutputs = {}): Promise<MockedProgram> {
  const registered: Registered[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs });
        const className = args.type.split(':').pop()!;
        return { id: `default/${args.name}`, state: { ...args.inputs, ...outputs[className]?.(args.inputs, args.name) } };
      },
      call: () => ({}),
    },
    project,
    stack,
  );
  const program = require(modulePath) as Record<string, pulumi.Output<unknown>>;
  return { registered, program, byType: (className) => registered.find((r) => r.type === `pulumi-nodejs:dynamic/harvester:${className}`) };
}
