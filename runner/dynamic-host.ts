/**
 * A driver of Pulumi's real dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`, the process the Pulumi
 * CLI starts for every dynamic resource), playing the engine's side over gRPC with the stubs shipped in
 * @pulumi/pulumi (docs/design/dynamic-host-contract.md §"Driving the host"). Both the engine-contract tests and the
 * local runner use it, so what they prove holds for the host users run.
 *
 * Values cross as plain JS objects (protobuf Structs); the preview-time unknown is UNKNOWN_VALUE. Every call has a
 * deadline, so a hang of the host (traps 1-3 of docs/design/dynamic-host-contract.md) fails as a DynamicHostError
 * instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pulumiModule } from './pulumi-modules';

/** The engine's unknown value during preview. */
export const UNKNOWN_VALUE = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

type Raw = Record<string, unknown>;

/** What a partial create/update left behind (pulumirpc.ErrorResourceInitFailed). */
export interface InitFailure {
  id: string;
  properties: Raw;
  reasons: string[];
}

/** A call the host answered with an error (or did not answer in time). */
export class DynamicHostError extends Error {
  constructor(
    readonly operation: string,
    message: string,
    /** Set when the resource was created but failed to initialise (partial failure). */
    readonly initFailure?: InitFailure,
    /** The call timed out: the host did not answer (a hang). */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'DynamicHostError';
  }
}

/** Options of DynamicHost.start. */
export interface DynamicHostOptions {
  /** Folder the host runs in; `require("harvester-iac/provider")` in `__provider` resolves from here. */
  cwd: string;
  /** Pulumi project name (PULUMI_NODEJS_PROJECT): unqualified config keys get it as their namespace. @default "harvester-iac" */
  project?: string;
  /** Extra environment of the host process (KUBECONFIG, …). */
  env?: NodeJS.ProcessEnv;
  /** Deadline of each call. @default 600000 */
  callTimeoutMs?: number;
  /** How long the host may take to print its port before it is killed and the start fails. @default 30000 */
  startTimeoutMs?: number;
  /** Receives the host's stderr lines. @default dropped */
  onLog?: (line: string) => void;
  /**
   * Receives the host's stdout lines after the port line: what the provider prints, e.g. its progress lines
   * (provider/host/progress.ts), which the Pulumi CLI shows as messages. @default dropped
   */
  onOutput?: (line: string) => void;
}

/** DynamicHost: one running host process and a gRPC client to it. */
export class DynamicHost {
  private readonly grpc = pulumiModule('@grpc/grpc-js');
  private readonly struct = pulumiModule('google-protobuf/google/protobuf/struct_pb');
  private readonly proto = pulumiModule('@pulumi/pulumi/proto/provider_pb');
  private readonly status = pulumiModule('@pulumi/pulumi/proto/status_pb');

  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
    private readonly callTimeoutMs: number,
    readonly port: number,
  ) {}

  /** start spawns the host and connects to it. */
  static async start(options: DynamicHostOptions): Promise<DynamicHost> {
    // The program's own @pulumi/pulumi, as the Pulumi CLI starts it (ours when the folder has none).
    const hostPath = require.resolve('@pulumi/pulumi/cmd/dynamic-provider', { paths: [options.cwd, __dirname] });
    // The argument is the engine's address: required, never dialled by the dynamic host.
    const child = spawn(process.execPath, [hostPath, '127.0.0.1:1'], {
      cwd: options.cwd,
      env: { ...process.env, PULUMI_NODEJS_PROJECT: options.project ?? 'harvester-iac', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr.push(line);
      if (stderr.length > 50) stderr.shift();
      options.onLog?.(line);
    });
    // A host that does not start as it should is ended: it must not outlive the error (nor keep the runner alive).
    const port = await new Promise<number>((resolve, reject) => {
      const fail = (message: string) => {
        child.kill('SIGKILL');
        reject(new Error(`${message}:\n${stderr.join('\n')}`));
      };
      const lines = createInterface({ input: child.stdout! });
      const startTimeoutMs = options.startTimeoutMs ?? 30_000;
      const timer = setTimeout(() => fail(`the dynamic-provider host printed no port within ${startTimeoutMs / 1000} s`), startTimeoutMs);
      let portRead = false;
      lines.on('line', (line) => {
        if (portRead) return options.onOutput?.(line);
        portRead = true;
        clearTimeout(timer);
        const port = Number(line.trim());
        if (Number.isInteger(port) && port > 0) resolve(port);
        else fail(`the dynamic-provider host printed "${line}" instead of its port`);
      });
      // 'close', not 'exit': by then its standard error has been read to the end, so the message holds its last words.
      child.once('close', (code) => {
        clearTimeout(timer);
        reject(new Error(`the dynamic-provider host exited (code ${code}) before printing its port:\n${stderr.join('\n')}`));
      });
    });
    const grpc = pulumiModule('@grpc/grpc-js');
    const { ResourceProviderClient } = pulumiModule('@pulumi/pulumi/proto/provider_grpc_pb');
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new DynamicHost(child, client, options.callTimeoutMs ?? 600_000, port);
  }

  private toStruct(value: Raw): unknown {
    return this.struct.Struct.fromJavaScript(value);
  }

  private call<T>(operation: string, method: string, request: unknown, timeoutMs = this.callTimeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const deadline = new Date(Date.now() + timeoutMs);
      const answered = (err: any, response: T) => {
        if (!err) return resolve(response);
        if (err.code === this.grpc.status.DEADLINE_EXCEEDED) {
          return reject(new DynamicHostError(operation, `${operation}: the dynamic-provider host did not answer within ${timeoutMs} ms`, undefined, true));
        }
        reject(new DynamicHostError(operation, String(err.details ?? err.message ?? err), this.initFailureOf(err)));
      };
      // A client closed by kill() throws instead of answering: that too is a failed call of this operation.
      try {
        this.client[method](request, { deadline }, answered);
      } catch (err) {
        answered(err, undefined as T);
      }
    });
  }

  private initFailureOf(err: any): InitFailure | undefined {
    const bins = err.metadata?.get?.('grpc-status-details-bin') as Buffer[] | undefined;
    if (!bins?.length) return undefined;
    const status = this.status.Status.deserializeBinary(new Uint8Array(bins[0]));
    for (const any of status.getDetailsList()) {
      if (!String(any.getTypeUrl()).endsWith('pulumirpc.ErrorResourceInitFailed')) continue;
      const detail = this.proto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return { id: detail.getId(), properties: detail.getProperties()?.toJavaScript() ?? {}, reasons: detail.getReasonsList() };
    }
    return undefined;
  }

  /** configure sends the stack config (e.g. { "harvester:kubeconfig": "…" }), as the engine does once per provider. */
  async configure(config: Record<string, string>): Promise<void> {
    const req = new this.proto.ConfigureRequest();
    req.setArgs(this.toStruct(config));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    await this.call('configure', 'configure', req);
  }

  async check(urn: string, olds: Raw, news: Raw): Promise<{ inputs: Raw; failures: { property: string; reason: string }[] }> {
    const req = new this.proto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(this.toStruct(olds));
    req.setNews(this.toStruct(news));
    const res = await this.call<any>('check', 'check', req);
    return {
      inputs: res.getInputs()?.toJavaScript() ?? {},
      failures: res.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(urn: string, id: string, olds: Raw, news: Raw): Promise<{ changes: 'some' | 'none' | 'unknown'; replaces: string[]; deleteBeforeReplace: boolean }> {
    const req = new this.proto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(this.toStruct(olds));
    req.setNews(this.toStruct(news));
    const res = await this.call<any>('diff', 'diff', req);
    const kinds = this.proto.DiffResponse.DiffChanges;
    const changes = res.getChanges() === kinds.DIFF_SOME ? 'some' : res.getChanges() === kinds.DIFF_NONE ? 'none' : 'unknown';
    return { changes, replaces: res.getReplacesList(), deleteBeforeReplace: res.getDeletebeforereplace() };
  }

  async create(urn: string, properties: Raw, options: { preview?: boolean } = {}): Promise<{ id: string; properties: Raw }> {
    const req = new this.proto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(this.toStruct(properties));
    req.setPreview(options.preview ?? false);
    const res = await this.call<any>('create', 'create', req);
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  /** read: refresh (properties = recorded outputs) or import (inputs = { __provider } only). An id of "" means gone. */
  async read(urn: string, id: string, properties: Raw, inputs?: Raw): Promise<{ id: string; properties: Raw; inputs?: Raw }> {
    const req = new this.proto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(this.toStruct(properties));
    if (inputs) req.setInputs(this.toStruct(inputs));
    const res = await this.call<any>('read', 'read', req);
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {}, inputs: res.getInputs()?.toJavaScript() };
  }

  async update(urn: string, id: string, olds: Raw, news: Raw): Promise<{ properties: Raw }> {
    const req = new this.proto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(this.toStruct(olds));
    req.setNews(this.toStruct(news));
    const res = await this.call<any>('update', 'update', req);
    return { properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  async delete(urn: string, id: string, properties: Raw): Promise<void> {
    const req = new this.proto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(this.toStruct(properties));
    await this.call('delete', 'delete', req);
  }

  /** kill ends the host process at once (SIGKILL), as a crashed CI runner would; calls in flight fail. */
  kill(): void {
    this.child.kill('SIGKILL');
    this.client.close();
  }

  /** stop closes the client and ends the host process. */
  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
      setTimeout(() => this.child.kill('SIGKILL'), 5000).unref();
    });
  }
}

/** serializeProvider returns the `__provider` text of an SDK provider object, exactly as dynamic.Resource makes it. */
export async function serializeProvider(provider: object): Promise<string> {
  const pulumi = await import('@pulumi/pulumi');
  return (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
}
