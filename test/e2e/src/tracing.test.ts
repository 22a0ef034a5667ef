import {
  startOtlpCollector,
  type CollectedMetricPoint,
  type CollectedSpan,
  type OtlpCollector,
  type Platform,
} from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform } from './support.js';

let collector: OtlpCollector;
let platform: Platform;

beforeAll(async () => {
  collector = await startOtlpCollector();
  platform = await bootPlatform('tracing', {
    commonEnv: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
    },
  });
});
afterAll(async () => {
  await platform?.stop();
  await collector?.stop();
});

function spansOf(spans: CollectedSpan[], traceId: string, service: string): CollectedSpan[] {
  return spans.filter((s) => s.traceId === traceId && s.serviceName === service);
}

describe('end-to-end tracing', () => {
  it('puts one message into one trace across api, orchestrator, memory, tool runner and model', async () => {
    const turn = await api<{ response: string }>(platform, 'POST', '/v1/conversations/traced-1/messages', 'acme', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    expect(turn.status).toBe(200);

    const isComplete = (spans: CollectedSpan[]): boolean => {
      const runner = spans.find(
        (s) => s.serviceName === 'tool-runner' && s.name === 'process platform.tool.calculator',
      );
      if (!runner) return false;
      return ['api', 'orchestrator', 'memory', 'llm-sim'].every(
        (service) => spansOf(spans, runner.traceId, service).length > 0,
      );
    };
    const spans = await collector.waitForSpans(isComplete, 20_000);
    const runnerSpan = spans.find(
      (s) => s.serviceName === 'tool-runner' && s.name === 'process platform.tool.calculator',
    )!;
    const trace = spans.filter((s) => s.traceId === runnerSpan.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));

    // The api's server span is the root; every other span of the trace descends from it.
    const roots = trace.filter((s) => !s.parentSpanId || !byId.has(s.parentSpanId));
    expect(roots.map((s) => `${s.serviceName}:${s.kind}`)).toEqual(['api:SERVER']);

    // The tool runner's span sits below the orchestrator's tool execution span, across NATS.
    const chain: string[] = [];
    for (
      let span: CollectedSpan | undefined = runnerSpan;
      span;
      span = span.parentSpanId ? byId.get(span.parentSpanId) : undefined
    ) {
      chain.push(`${span.serviceName}:${span.name}`);
    }
    expect(chain).toEqual(
      expect.arrayContaining([
        'tool-runner:process platform.tool.calculator',
        'orchestrator:request platform.tool.calculator',
        'orchestrator:execute_tool calculator',
        'api:POST',
      ]),
    );
    expect(chain.at(-1)).toBe('api:POST');

    const chat = trace.filter((s) => s.serviceName === 'orchestrator' && s.name.startsWith('chat '));
    expect(chat.length).toBe(2);
    expect(chat[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'sim-1' });
    expect(spansOf(trace, runnerSpan.traceId, 'memory').some((s) => s.kind === 'SERVER')).toBe(true);
    expect(
      spansOf(trace, runnerSpan.traceId, 'memory').some(
        (s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql',
      ),
    ).toBe(true);
  });
});

describe('background work in traces', () => {
  it('gives memory learning a turn and a trigger firing a task a trace each, and polling none', async () => {
    const turn = await api<{ response: string }>(platform, 'POST', '/v1/conversations/learned-1/messages', 'acme', {
      content: '[scenario:calculator] What is 6 * 7?',
    });
    expect(turn.status).toBe(200);
    const created = await api<{ taskId: string }>(platform, 'POST', '/v1/tasks', 'acme', {
      trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/Berlin' },
      action: { instruction: '[scenario:plain] Good morning' },
    });
    expect(created.status).toBe(201);
    expect((await api(platform, 'POST', `/v1/tasks/${created.body.taskId}/pause`, 'acme')).status).toBe(200);
    expect((await api(platform, 'POST', `/v1/tasks/${created.body.taskId}/run`, 'acme')).status).toBe(202);

    const isIngestion = (s: CollectedSpan): boolean => s.serviceName === 'memory' && s.name === 'process MEMORY_INGEST';
    const isFire = (s: CollectedSpan): boolean =>
      s.serviceName === 'trigger' &&
      s.name === 'trigger fire' &&
      s.attributes['platform.trigger.task.id'] === created.body.taskId;
    const spans = await collector.waitForSpans((all) => {
      const [ingestion, fire] = [all.find(isIngestion), all.find(isFire)];
      return (
        !!ingestion &&
        !!fire &&
        spansOf(all, fire.traceId, 'orchestrator').some((s) => s.kind === 'SERVER') &&
        spansOf(all, ingestion.traceId, 'memory').length > 1
      );
    }, 30_000);

    // Learning: one trace per batch, its statements and model calls below the batch's span.
    const ingestion = spans.find(isIngestion)!;
    expect(ingestion.kind).toBe('CONSUMER');
    expect(ingestion.parentSpanId).toBeUndefined();
    expect(ingestion.attributes['messaging.batch.message_count']).toBeGreaterThanOrEqual(1);
    const learning = spansOf(spans, ingestion.traceId, 'memory').filter((s) => s !== ingestion);
    expect(
      learning.some(
        (s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql',
      ),
    ).toBe(true);
    expect(learning.every((s) => s.parentSpanId)).toBe(true);

    // A fire: the trigger's span is the root of the run it starts.
    const fire = spans.find(isFire)!;
    expect(fire.parentSpanId).toBeUndefined();
    expect(fire.attributes).toMatchObject({
      'platform.tenant': 'acme',
      'platform.trigger.fire.kind': 'manual',
      'platform.trigger.fire.attempt': 1,
    });
    const run = spans.filter((s) => s.traceId === fire.traceId);
    expect(run.some((s) => s.serviceName === 'orchestrator' && s.kind === 'SERVER')).toBe(true);
    expect(run.filter((s) => !s.parentSpanId)).toEqual([fire]);

    // Polling and sweeping (the trigger polls several times a second) start no trace: no root span is a lone statement.
    expect(
      collector
        .spans()
        .filter((s) => !s.parentSpanId && s.name.startsWith('pg.'))
        .map((s) => `${s.serviceName}:${s.name}`),
    ).toEqual([]);
  });
});

describe('metrics', () => {
  // Cumulative metrics are exported again every interval: the latest point of a series has its totals.
  const point = (
    points: CollectedMetricPoint[],
    service: string,
    name: string,
    attributes: Record<string, unknown> = {},
  ) =>
    points.findLast(
      (p) =>
        p.serviceName === service &&
        p.name === name &&
        Object.entries(attributes).every(([key, value]) => p.attributes[key] === value),
    );

  it('exports model calls (GenAI conventions), tool calls, turns and HTTP requests as OTLP metrics', async () => {
    const modelCalls = (all: CollectedMetricPoint[]) =>
      point(all, 'orchestrator', 'gen_ai.client.operation.duration', { 'gen_ai.request.model': 'sim-1' })?.count ?? 0;
    // Counted before the turn (exports may lag, never lead): the turn's two model calls come on top.
    const before = modelCalls(collector.metricPoints());
    const turn = await api<{ response: string }>(platform, 'POST', '/v1/conversations/metered-1/messages', 'acme', {
      content: '[scenario:calculator] What is 12 * (3 + 4)?',
    });
    expect(turn.status).toBe(200);
    const wanted: Array<[string, string, Record<string, unknown>]> = [
      [
        'orchestrator',
        'gen_ai.client.operation.duration',
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'sim-1' },
      ],
      ['orchestrator', 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' }],
      ['orchestrator', 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' }],
      [
        'orchestrator',
        'platform.tool.duration',
        { 'gen_ai.tool.name': 'calculator', 'platform.tool.status': 'success' },
      ],
      [
        'orchestrator',
        'platform.turn.duration',
        { 'platform.profile': 'default', 'platform.run.status': 'completed', 'platform.stop_reason': 'final_answer' },
      ],
    ];
    const points = await collector.waitForMetricPoints(
      (all) =>
        wanted.every(([service, name, attributes]) => point(all, service, name, attributes)) &&
        modelCalls(all) >= before + 2,
      20_000,
    );
    expect(point(points, 'orchestrator', 'gen_ai.client.operation.duration')).toMatchObject({
      kind: 'histogram',
      unit: 's',
    });
    expect(
      point(points, 'orchestrator', 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' })!.sum,
    ).toBeGreaterThan(0);
    // The auto-instrumentations' own metrics arrive too, e.g. the api's HTTP server durations.
    expect(points.some((p) => p.serviceName === 'api' && p.name.startsWith('http.server.'))).toBe(true);
    // Nothing identifies a conversation or run in metric attributes; the tenant appears only on
    // the per-tenant token counter (tenants are the platform's customers, a bounded set).
    expect(points.filter((p) => Object.values(p.attributes).includes('metered-1'))).toEqual([]);
    const withTenant = points.filter((p) => Object.values(p.attributes).includes('acme'));
    expect(new Set(withTenant.map((p) => `${p.name} ${Object.keys(p.attributes).sort().join(',')}`))).toEqual(
      new Set(['platform.tenant.token.usage gen_ai.token.type,platform.tenant']),
    );
    expect(new Set(withTenant.map((p) => p.attributes['gen_ai.token.type']))).toEqual(new Set(['input', 'output']));
  });
});
