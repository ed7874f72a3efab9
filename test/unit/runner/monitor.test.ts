/**
 * The monitor's translation of protobuf to plain objects and back (runner/monitor.ts), driven with the gRPC client
 * stubs shipped in @pulumi/pulumi against a handler that records what it is given. The server listens on a
 * loopback port in this process (a gRPC server has no other face); no program or host is started.
 */
import assert from 'node:assert/strict';
import { MonitorServer, type MonitorHandler, type Registration } from '../../../runner/monitor';
import { pulumiModule } from '../../../runner/pulumi-modules';

const grpc = pulumiModule('@grpc/grpc-js');
const resproto = pulumiModule('@pulumi/pulumi/proto/resource_pb');
const engineproto = pulumiModule('@pulumi/pulumi/proto/engine_pb');
const { ResourceMonitorClient } = pulumiModule('@pulumi/pulumi/proto/resource_grpc_pb');
const { EngineClient } = pulumiModule('@pulumi/pulumi/proto/engine_grpc_pb');
const structproto = pulumiModule('google-protobuf/google/protobuf/struct_pb');

const call = <T>(client: any, method: string, request: unknown): Promise<T> =>
  new Promise((resolve, reject) => client[method](request, (err: Error | null, res: T) => (err ? reject(err) : resolve(res))));

describe('runner monitor', () => {
  const seen: { registered: Registration[]; reads: unknown[]; outputs: unknown[]; logs: unknown[] } = { registered: [], reads: [], outputs: [], logs: [] };
  let failNext: unknown;
  const handler: MonitorHandler = {
    async register(reg) {
      seen.registered.push(reg);
      if (failNext !== undefined) throw failNext;
      return { urn: `urn:${reg.name}`, id: `id-${reg.name}`, object: { out: 1 }, failed: reg.name === 'bad' };
    },
    async read(req) {
      seen.reads.push(req);
      if (failNext !== undefined) throw failNext;
      return { urn: `urn:${req.name}`, properties: { read: true } };
    },
    registerOutputs(urn, outputs) {
      if (urn === 'urn:throws') throw new Error('not the stack');
      seen.outputs.push([urn, outputs]);
    },
    log(severity, message, urn, ephemeral) {
      seen.logs.push([severity, message, urn, ephemeral]);
    },
  };
  let server: MonitorServer | undefined;
  let monitor: any;
  let engine: any;
  /**
   * Each test starts its own server inside its `it` (never in a `before` hook): Stryker credits what a hook runs to
   * the test before it, and would then run only that one test against a mutant of MonitorServer.start.
   */
  async function open(): Promise<MonitorServer> {
    server = await MonitorServer.start(handler);
    monitor = new ResourceMonitorClient(server.address, grpc.credentials.createInsecure());
    engine = new EngineClient(server.address, grpc.credentials.createInsecure());
    return server;
  }
  afterEach(async () => {
    monitor?.close();
    engine?.close();
    await server?.stop();
    server = monitor = engine = undefined;
  });
  beforeEach(() => {
    failNext = undefined;
    for (const list of Object.values(seen)) list.length = 0;
  });

  it('listens on a loopback port; stop closes it', async () => {
    const started = await open();
    assert.match(started.address, /^127\.0\.0\.1:\d+$/);
    const feature = new resproto.SupportsFeatureRequest();
    feature.setId('secrets');
    assert.equal((await call<any>(monitor, 'supportsFeature', feature)).getHassupport(), true);
    await started.stop();
    const late = new ResourceMonitorClient(started.address, grpc.credentials.createInsecure());
    try {
      await assert.rejects(call(late, 'supportsFeature', feature), (err: any) => err.code === grpc.status.UNAVAILABLE);
    } finally {
      late.close();
    }
  });

  it('supports the secrets feature only', async () => {
    await open();
    for (const [id, expected] of [['secrets', true], ['resourceReferences', false], ['outputValues', false]] as const) {
      const req = new resproto.SupportsFeatureRequest();
      req.setId(id);
      assert.equal((await call<any>(monitor, 'supportsFeature', req)).getHassupport(), expected, id);
    }
  });

  it('registerResource: every field handed over as plain data, the answer back, FAIL for a failed step', async () => {
    await open();
    const req = new resproto.RegisterResourceRequest();
    req.setType('pulumi-nodejs:dynamic/test:Widget');
    req.setName('a');
    req.setParent('urn:parent');
    req.setCustom(true);
    req.setObject(structproto.Struct.fromJavaScript({ name: 'a', n: 2 }));
    req.setAdditionalsecretoutputsList(['pw']);
    req.setDeletebeforereplace(true);
    req.setImportid('default/a');
    req.setIgnorechangesList(['size']);
    req.setDependenciesList(['urn:dep']);
    req.setReplacementTrigger(structproto.Value.fromJavaScript('v1'));
    const res = await call<any>(monitor, 'registerResource', req);
    assert.deepEqual(seen.registered, [
      { type: 'pulumi-nodejs:dynamic/test:Widget', name: 'a', parent: 'urn:parent', custom: true, object: { name: 'a', n: 2 }, additionalSecretOutputs: ['pw'], deleteBeforeReplace: true, importId: 'default/a', ignoreChanges: ['size'], dependencies: ['urn:dep'], replacementTrigger: 'v1' },
    ]);
    assert.deepEqual([res.getUrn(), res.getId(), res.getObject().toJavaScript(), res.getResult()], ['urn:a', 'id-a', { out: 1 }, resproto.Result.SUCCESS]);
    const bad = new resproto.RegisterResourceRequest();
    bad.setName('bad');
    assert.equal((await call<any>(monitor, 'registerResource', bad)).getResult(), resproto.Result.FAIL);
    assert.deepEqual([seen.registered[1].object, seen.registered[1].replacementTrigger], [{}, undefined], 'no object: {}, no trigger: undefined');
  });

  it('a handler error reaches the SDK as UNKNOWN with its message (a non-Error as text)', async () => {
    await open();
    failNext = new Error('refused: no import');
    await assert.rejects(call(monitor, 'registerResource', new resproto.RegisterResourceRequest()), (err: any) => err.code === grpc.status.UNKNOWN && err.details === 'refused: no import');
    failNext = 'plain text';
    await assert.rejects(call(monitor, 'readResource', new resproto.ReadResourceRequest()), (err: any) => err.code === grpc.status.UNKNOWN && err.details === 'plain text');
    const outputs = new resproto.RegisterResourceOutputsRequest();
    outputs.setUrn('urn:throws');
    await assert.rejects(call(monitor, 'registerResourceOutputs', outputs), (err: any) => err.code === grpc.status.UNKNOWN && err.details === 'not the stack');
  });

  it('readResource: its fields handed over, the properties answered', async () => {
    await open();
    const req = new resproto.ReadResourceRequest();
    req.setType('t');
    req.setName('r');
    req.setParent('urn:p');
    req.setId('default/r');
    req.setProperties(structproto.Struct.fromJavaScript({ a: 1 }));
    req.setAdditionalsecretoutputsList(['x']);
    const res = await call<any>(monitor, 'readResource', req);
    assert.deepEqual(seen.reads, [{ type: 't', name: 'r', parent: 'urn:p', id: 'default/r', properties: { a: 1 }, additionalSecretOutputs: ['x'] }]);
    assert.deepEqual([res.getUrn(), res.getProperties().toJavaScript()], ['urn:r', { read: true }]);
    await call(monitor, 'readResource', new resproto.ReadResourceRequest());
    assert.deepEqual((seen.reads[1] as { properties: unknown }).properties, {});
  });

  it('registerResourceOutputs: the URN and the outputs ({} when none)', async () => {
    await open();
    const req = new resproto.RegisterResourceOutputsRequest();
    req.setUrn('urn:stack');
    req.setOutputs(structproto.Struct.fromJavaScript({ ip: '10.0.0.1' }));
    await call(monitor, 'registerResourceOutputs', req);
    const none = new resproto.RegisterResourceOutputsRequest();
    none.setUrn('urn:other');
    await call(monitor, 'registerResourceOutputs', none);
    assert.deepEqual(seen.outputs, [['urn:stack', { ip: '10.0.0.1' }], ['urn:other', {}]]);
  });

  it('log: each severity by name (an unknown one as info), message, URN and ephemeral', async () => {
    await open();
    for (const severity of [0, 1, 2, 3, 9]) {
      const req = new engineproto.LogRequest();
      req.setSeverity(severity);
      req.setMessage(`m${severity}`);
      req.setUrn('urn:x');
      req.setEphemeral(severity === 2);
      await call(engine, 'log', req);
    }
    assert.deepEqual(seen.logs, [
      ['debug', 'm0', 'urn:x', false],
      ['info', 'm1', 'urn:x', false],
      ['warning', 'm2', 'urn:x', true],
      ['error', 'm3', 'urn:x', false],
      ['info', 'm9', 'urn:x', false],
    ]);
  });

  it('the root resource: empty until set, then what was set', async () => {
    await open();
    assert.equal((await call<any>(engine, 'getRootResource', new engineproto.GetRootResourceRequest())).getUrn(), '');
    const set = new engineproto.SetRootResourceRequest();
    set.setUrn('urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev');
    await call(engine, 'setRootResource', set);
    assert.equal((await call<any>(engine, 'getRootResource', new engineproto.GetRootResourceRequest())).getUrn(), 'urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev');
  });
});
