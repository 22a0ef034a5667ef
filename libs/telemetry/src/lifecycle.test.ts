// The register entry's process lifecycle, each case in a fresh child process: exporting from a
// process that just ends, OTEL_SDK_DISABLED, SIGTERM, a messaging hop between processes, and the
// default-import style of @grpc/grpc-js.
import { startOtlpCollector, type OtlpCollector } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from './test-support/spawn-app.js';

let collector: OtlpCollector;
beforeAll(async () => {
  collector = await startOtlpCollector();
});
afterAll(() => collector?.stop());

const exportTo = (service: string): Record<string, string> => ({
  OTEL_SERVICE_NAME: service,
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
});
const fromService = (service: string) => collector.spans().filter((s) => s.serviceName === service);

describe('a process that ends on its own', () => {
  it('flushes its spans before exiting (beforeExit)', async () => {
    // A delay far beyond the process lifetime: only the exit flush can deliver the spans.
    const app = startApp('http-roundtrip-app.ts', {
      env: { ...exportTo('roundtrip'), OTEL_BSP_SCHEDULE_DELAY: '60000' },
    });
    expect(await app.waitForExit()).toBe(0);
    expect(app.recentOutput).toContain('ok 200');
    const kinds = fromService('roundtrip').map((s) => s.kind);
    expect(kinds).toEqual(expect.arrayContaining(['SERVER', 'CLIENT']));
  });
});

describe('OTEL_SDK_DISABLED=true', () => {
  it('exports nothing and the app still runs', async () => {
    const app = startApp('http-roundtrip-app.ts', { env: { ...exportTo('disabled'), OTEL_SDK_DISABLED: 'true' } });
    expect(await app.waitForExit()).toBe(0);
    expect(app.recentOutput).toContain('ok 200');
    // Nothing is in flight once the process is gone; a short grace covers a slow socket.
    await new Promise((r) => setTimeout(r, 500));
    expect(fromService('disabled')).toEqual([]);
  });
});

describe('SIGTERM', () => {
  it('flushes buffered spans, then ends the process with the signal when the app has no handler', async () => {
    const app = startApp('idle-app.ts', { env: { ...exportTo('sigterm'), OTEL_BSP_SCHEDULE_DELAY: '60000' } });
    await app.waitForOutput((out) => out.includes('ready'), 30_000);
    expect(fromService('sigterm')).toEqual([]);

    app.child.kill('SIGTERM');
    await app.waitForExit();
    expect(app.child.signalCode).toBe('SIGTERM');
    expect(fromService('sigterm').map((s) => s.name)).toEqual(['before-sigterm']);
  });
});

describe('a messaging hop between processes', () => {
  it('continues the trace from headers injected in one process and extracted in another', async () => {
    const requester = startApp('messaging-hop-app.ts', { args: ['request'], env: exportTo('requester') });
    expect(await requester.waitForExit()).toBe(0);
    const headersJson = /headers (\{.*\})/.exec(requester.recentOutput)?.[1];
    expect(headersJson).toContain('traceparent');

    const responder = startApp('messaging-hop-app.ts', {
      args: ['respond'],
      env: { ...exportTo('responder'), MESSAGE_HEADERS: headersJson! },
    });
    expect(await responder.waitForExit()).toBe(0);

    const spans = await collector.waitForSpans((all) => all.some((s) => s.serviceName === 'responder'), 10_000);
    const producer = spans.find((s) => s.serviceName === 'requester')!;
    const consumer = spans.find((s) => s.serviceName === 'responder')!;
    expect(producer).toMatchObject({ name: 'request tools.fixture', kind: 'PRODUCER' });
    expect(consumer).toMatchObject({
      name: 'process tools.fixture',
      kind: 'CONSUMER',
      traceId: producer.traceId,
      parentSpanId: producer.spanId,
    });
    expect(consumer.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'tools.fixture',
    });
  });
});

describe('@grpc/grpc-js imported through its default export', () => {
  it('still gets client spans that parent the server span', async () => {
    const app = startApp('grpc-default-import-app.ts', { env: exportTo('grpc-default') });
    expect(await app.waitForExit()).toBe(0);
    expect(app.recentOutput).toContain('reply {"sum":2,"cached":"k"}');

    const spans = fromService('grpc-default');
    const client = spans.find((s) => s.kind === 'CLIENT' && s.attributes['rpc.system'] === 'grpc');
    const server = spans.find((s) => s.kind === 'SERVER' && s.attributes['rpc.system'] === 'grpc');
    expect(client).toBeDefined();
    expect(server).toMatchObject({ traceId: client!.traceId, parentSpanId: client!.spanId });
  });
});
