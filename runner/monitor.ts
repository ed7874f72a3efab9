/**
 * The engine's gRPC face towards a running program: pulumirpc.ResourceMonitor and pulumirpc.Engine, served with the
 * stubs shipped in @pulumi/pulumi, so the real SDK in the program talks to us as it talks to the Pulumi engine.
 * This file only translates protobuf ⇄ plain objects; what a registration does is the deployment's business.
 * Methods not implemented answer UNIMPLEMENTED, which the SDK treats as "feature not supported".
 */
import { pulumiModule } from './pulumi-modules';

type Raw = Record<string, unknown>;

/** A resource registration, as plain data. */
export interface Registration {
  type: string;
  name: string;
  parent: string;
  custom: boolean;
  object: Raw;
  additionalSecretOutputs: string[];
  deleteBeforeReplace: boolean;
  importId: string;
  ignoreChanges: string[];
  dependencies: string[];
  /** The `replacementTrigger` option (undefined when not set): a value other than the recorded one replaces. */
  replacementTrigger?: unknown;
}

/** What the monitor asks of the deployment. */
export interface MonitorHandler {
  /** `failed`: the step failed and was reported; the SDK is answered Result FAIL (it asks for result reporting). */
  register(reg: Registration): Promise<{ urn: string; id: string; object: Raw; failed?: boolean }>;
  read(req: { type: string; name: string; parent: string; id: string; properties: Raw; additionalSecretOutputs: string[] }): Promise<{ urn: string; properties: Raw }>;
  registerOutputs(urn: string, outputs: Raw): void;
  log(severity: 'debug' | 'info' | 'warning' | 'error', message: string, urn: string, ephemeral: boolean): void;
}

/** SDK features the monitor answers yes to; everything else is declined and the SDK falls back. */
const SUPPORTED_FEATURES = new Set(['secrets']);

/** MonitorServer: serves both services on one loopback port. */
export class MonitorServer {
  private root = '';

  private constructor(
    private readonly server: any,
    readonly address: string,
  ) {}

  static async start(handler: MonitorHandler): Promise<MonitorServer> {
    const grpc = pulumiModule('@grpc/grpc-js');
    const resproto = pulumiModule('@pulumi/pulumi/proto/resource_pb');
    const { ResourceMonitorService } = pulumiModule('@pulumi/pulumi/proto/resource_grpc_pb');
    const { EngineService } = pulumiModule('@pulumi/pulumi/proto/engine_grpc_pb');
    const engineproto = pulumiModule('@pulumi/pulumi/proto/engine_pb');
    const emptyproto = pulumiModule('google-protobuf/google/protobuf/empty_pb');
    const structproto = pulumiModule('google-protobuf/google/protobuf/struct_pb');
    const server = new grpc.Server();
    let self: MonitorServer | undefined;
    const fail = (callback: (err: unknown) => void, err: unknown) =>
      callback({ code: grpc.status.UNKNOWN, details: err instanceof Error ? err.message : String(err) });
    const severities = ['debug', 'info', 'warning', 'error'] as const;

    server.addService(ResourceMonitorService, {
      supportsFeature(call: any, callback: any) {
        const res = new resproto.SupportsFeatureResponse();
        res.setHassupport(SUPPORTED_FEATURES.has(call.request.getId()));
        callback(null, res);
      },
      registerResource(call: any, callback: any) {
        const r = call.request;
        handler
          .register({
            type: r.getType(),
            name: r.getName(),
            parent: r.getParent(),
            custom: r.getCustom(),
            object: r.getObject()?.toJavaScript() ?? {},
            additionalSecretOutputs: r.getAdditionalsecretoutputsList(),
            deleteBeforeReplace: r.getDeletebeforereplace(),
            importId: r.getImportid(),
            ignoreChanges: r.getIgnorechangesList(),
            dependencies: r.getDependenciesList(),
            replacementTrigger: r.getReplacementTrigger()?.toJavaScript(),
          })
          .then((out) => {
            const res = new resproto.RegisterResourceResponse();
            res.setUrn(out.urn);
            res.setId(out.id);
            res.setObject(structproto.Struct.fromJavaScript(out.object));
            if (out.failed) res.setResult(resproto.Result.FAIL);
            callback(null, res);
          }, (err) => fail(callback, err));
      },
      readResource(call: any, callback: any) {
        const r = call.request;
        handler
          .read({ type: r.getType(), name: r.getName(), parent: r.getParent(), id: r.getId(), properties: r.getProperties()?.toJavaScript() ?? {}, additionalSecretOutputs: r.getAdditionalsecretoutputsList() })
          .then((out) => {
            const res = new resproto.ReadResourceResponse();
            res.setUrn(out.urn);
            res.setProperties(structproto.Struct.fromJavaScript(out.properties));
            callback(null, res);
          }, (err) => fail(callback, err));
      },
      registerResourceOutputs(call: any, callback: any) {
        try {
          handler.registerOutputs(call.request.getUrn(), call.request.getOutputs()?.toJavaScript() ?? {});
          callback(null, new emptyproto.Empty());
        } catch (err) {
          fail(callback, err);
        }
      },
    });
    server.addService(EngineService, {
      log(call: any, callback: any) {
        const r = call.request;
        handler.log(severities[r.getSeverity()] ?? 'info', r.getMessage(), r.getUrn(), r.getEphemeral());
        callback(null, new emptyproto.Empty());
      },
      getRootResource(_call: any, callback: any) {
        const res = new engineproto.GetRootResourceResponse();
        res.setUrn(self?.root ?? '');
        callback(null, res);
      },
      setRootResource(call: any, callback: any) {
        if (self) self.root = call.request.getUrn();
        callback(null, new engineproto.SetRootResourceResponse());
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) => (err ? reject(err) : resolve(p))),
    );
    self = new MonitorServer(server, `127.0.0.1:${port}`);
    return self;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }
}
