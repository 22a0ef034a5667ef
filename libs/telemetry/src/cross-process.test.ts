// One request through two ESM processes started with the register entry:
// HTTP -> A (fastify) -> gRPC -> B (grpc-js) -> pg + ioredis, asserting a single connected trace.
import { randomBytes } from 'node:crypto';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { startOtlpCollector, type CollectedSpan, type ManagedProcess, type OtlpCollector } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningPort, startApp } from './test-support/spawn-app.js';

let collector: OtlpCollector;
let backend: ManagedProcess;
let frontend: ManagedProcess;
let quietFrontend: ManagedProcess;
let leanBackend: ManagedProcess;
let leanFrontend: ManagedProcess;
let frontendPort: number;
let quietFrontendPort: number;
let leanFrontendPort: number;

beforeAll(async () => {
  collector = await startOtlpCollector();
  const [pgUrl, redisUrl] = await Promise.all([createSuiteDatabase('telemetry'), allocateSuiteRedis()]);
  backend = startApp('backend-app.ts', {
    env: {
      OTEL_SERVICE_NAME: 'backend',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      PG_URL: pgUrl,
      REDIS_URL: redisUrl,
    },
  });
  // Without the pg and ioredis instrumentations: the trace still crosses it, without a span per query or command.
  leanBackend = startApp('backend-app.ts', {
    env: {
      OTEL_SERVICE_NAME: 'lean-backend',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg,ioredis',
      PG_URL: pgUrl,
      REDIS_URL: redisUrl,
    },
  });
  const backendAddress = `127.0.0.1:${await listeningPort(backend)}`;
  const leanBackendAddress = `127.0.0.1:${await listeningPort(leanBackend)}`;
  frontend = startApp('frontend-app.ts', {
    env: {
      OTEL_SERVICE_NAME: 'frontend',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      BACKEND_ADDRESS: backendAddress,
    },
  });
  // No OTLP endpoint: spans are dropped, but context must still flow on to the backend.
  quietFrontend = startApp('frontend-app.ts', {
    env: { OTEL_SERVICE_NAME: 'quiet-frontend', BACKEND_ADDRESS: backendAddress },
  });
  leanFrontend = startApp('frontend-app.ts', {
    env: {
      OTEL_SERVICE_NAME: 'lean-frontend',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      BACKEND_ADDRESS: leanBackendAddress,
    },
  });
  [frontendPort, quietFrontendPort, leanFrontendPort] = await Promise.all([
    listeningPort(frontend),
    listeningPort(quietFrontend),
    listeningPort(leanFrontend),
  ]);
});

afterAll(async () => {
  await Promise.all([
    frontend?.stop(),
    quietFrontend?.stop(),
    leanFrontend?.stop(),
    backend?.stop(),
    leanBackend?.stop(),
  ]);
  await collector?.stop();
});

function one(spans: CollectedSpan[], predicate: (s: CollectedSpan) => boolean, what: string): CollectedSpan {
  const matches = spans.filter(predicate);
  if (matches.length !== 1)
    throw new Error(`expected one ${what}, found ${matches.length} in ${JSON.stringify(spans.map((s) => s.name))}`);
  return matches[0]!;
}

/** Sends `GET /lookup/<key>` to a frontend; resolves with its trace once `complete` says the backend's part of it has arrived. */
async function lookupTrace(
  port: number,
  frontend: string,
  key: string,
  complete: (trace: CollectedSpan[]) => boolean,
): Promise<{ httpServer: CollectedSpan; trace: CollectedSpan[] }> {
  const response = await fetch(`http://127.0.0.1:${port}/lookup/${key}`);
  expect(await response.json()).toEqual({ sum: 2, cached: 'seen' });
  const isHttpServer = (s: CollectedSpan): boolean =>
    s.serviceName === frontend && s.kind === 'SERVER' && s.attributes['url.path'] === `/lookup/${key}`;
  const all = await collector.waitForSpans((spans) => {
    const root = spans.find(isHttpServer);
    return !!root && complete(spans.filter((s) => s.traceId === root.traceId));
  }, 20_000);
  const httpServer = one(all, isHttpServer, 'http server span');
  return { httpServer, trace: all.filter((s) => s.traceId === httpServer.traceId) };
}

describe('a request across ESM services', () => {
  it('produces one trace: http server (A) -> grpc client (A) -> grpc server (B) -> pg + ioredis (B)', async () => {
    const { httpServer, trace } = await lookupTrace(
      frontendPort,
      'frontend',
      'k1',
      (spans) => spans.filter((s) => s.serviceName === 'backend').length >= 4,
    );
    const grpcClient = one(
      trace,
      (s) => s.serviceName === 'frontend' && s.kind === 'CLIENT' && s.attributes['rpc.system'] === 'grpc',
      'grpc client span',
    );
    const grpcServer = one(
      trace,
      (s) => s.serviceName === 'backend' && s.kind === 'SERVER' && s.attributes['rpc.system'] === 'grpc',
      'grpc server span',
    );
    const pgQuery = one(
      trace,
      (s) =>
        s.serviceName === 'backend' && s.scope === '@opentelemetry/instrumentation-pg' && s.name.startsWith('pg.query'),
      'pg query span',
    );
    const redisSet = one(
      trace,
      (s) => s.serviceName === 'backend' && s.scope === '@opentelemetry/instrumentation-ioredis' && s.name === 'set',
      'redis set span',
    );

    // One span per query: no extra span for checking a connection out of the pool (or opening one).
    expect(trace.filter((s) => /^pg(-pool)?\.connect/.test(s.name)).map((s) => s.name)).toEqual([]);
    expect(httpServer.parentSpanId).toBeUndefined();
    expect(grpcClient.parentSpanId).toBe(httpServer.spanId);
    expect(grpcServer.parentSpanId).toBe(grpcClient.spanId);
    expect(pgQuery.parentSpanId).toBe(grpcServer.spanId);
    expect(redisSet.parentSpanId).toBe(grpcServer.spanId);
    expect(grpcServer.attributes).toMatchObject({ 'rpc.service': 'fixture.Lookup', 'rpc.method': 'Lookup' });
    // The query and the command the backend ran before it listened, outside any trace, made no span:
    // a poller's or sweeper's statements would otherwise each start a trace of their own.
    expect(
      collector
        .spans()
        .filter((s) => s.serviceName === 'backend' && !s.parentSpanId)
        .map((s) => s.name),
    ).toEqual([]);
  });

  it('leaves out the spans of the instrumentations OTEL_NODE_DISABLED_INSTRUMENTATIONS names, and keeps the trace whole', async () => {
    const isServer = (s: CollectedSpan): boolean => s.serviceName === 'lean-backend' && s.kind === 'SERVER';
    const { httpServer, trace } = await lookupTrace(leanFrontendPort, 'lean-frontend', 'k3', (spans) =>
      spans.some(isServer),
    );
    const grpcClient = one(
      trace,
      (s) => s.kind === 'CLIENT' && s.attributes['rpc.system'] === 'grpc',
      'grpc client span',
    );
    const grpcServer = one(trace, isServer, 'grpc server span');
    expect(grpcClient.parentSpanId).toBe(httpServer.spanId);
    expect(grpcServer.parentSpanId).toBe(grpcClient.spanId);
    // A query's or command's span ends before the handler's server span, so it would have been exported with it or earlier.
    const backendSpans = collector.spans().filter((s) => s.serviceName === 'lean-backend');
    expect(backendSpans.map((s) => s.scope)).not.toContain('@opentelemetry/instrumentation-pg');
    expect(backendSpans.map((s) => s.scope)).not.toContain('@opentelemetry/instrumentation-ioredis');
  });

  it('propagates context through a service that exports nothing', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const response = await fetch(`http://127.0.0.1:${quietFrontendPort}/lookup/k2`, {
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(200);

    const all = await collector.waitForSpans(
      (spans) => spans.some((s) => s.traceId === traceId && s.kind === 'SERVER' && s.serviceName === 'backend'),
      20_000,
    );
    const grpcServer = one(all, (s) => s.traceId === traceId && s.kind === 'SERVER', 'grpc server span');
    expect(grpcServer.serviceName).toBe('backend');
    // Parented by the quiet frontend's (unexported) grpc client span, not by the external caller.
    expect(grpcServer.parentSpanId).toBeDefined();
    expect(grpcServer.parentSpanId).not.toBe(callerSpanId);
    expect(all.some((s) => s.serviceName === 'quiet-frontend')).toBe(false);
  });
});
