import { metrics } from '@opentelemetry/api';
import {
  DataPointType,
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { withChatSpan } from './gen-ai.js';
import { recordToolCall, recordTurn } from './metrics.js';

/** Collects on demand (no export loop): what a periodic reader would send next. */
class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

let reader: CollectingReader;

/** Installs a fresh global meter provider (the instruments follow it). */
function install(): void {
  metrics.disable();
  reader = new CollectingReader();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
}

async function histogram(
  name: string,
): Promise<Array<{ attributes: Record<string, unknown>; count: number; sum: number }>> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .find((m: MetricData) => m.descriptor.name === name);
  if (!found) return [];
  expect(found.dataPointType).toBe(DataPointType.HISTOGRAM);
  return (found as HistogramMetricData).dataPoints.map((p) => ({
    attributes: p.attributes,
    count: p.value.count,
    sum: p.value.sum ?? 0,
  }));
}

beforeEach(install);
afterAll(() => metrics.disable());

describe('platform metrics', () => {
  it("records a model call's duration and its input and output tokens (GenAI conventions)", async () => {
    await withChatSpan({ provider: 'openai', model: 'gpt-4o-mini' }, async (chat) => {
      chat.recordResponse({ model: 'gpt-4o-mini-2024', inputTokens: 120, outputTokens: 30 });
    });
    const base = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini-2024',
    };
    const durations = await histogram('gen_ai.client.operation.duration');
    expect(durations).toEqual([{ attributes: base, count: 1, sum: expect.any(Number) }]);
    expect(durations[0]!.sum).toBeGreaterThanOrEqual(0);
    expect(await histogram('gen_ai.client.token.usage')).toEqual([
      { attributes: { ...base, 'gen_ai.token.type': 'input' }, count: 1, sum: 120 },
      { attributes: { ...base, 'gen_ai.token.type': 'output' }, count: 1, sum: 30 },
    ]);
  });

  it('records a failed model call with its error.type and no tokens', async () => {
    class RateLimitError extends Error {
      override name = 'RateLimitError';
    }
    await expect(
      withChatSpan({ provider: 'openai', model: 'm' }, () => {
        throw new RateLimitError('slow down');
      }),
    ).rejects.toThrow('slow down');
    expect(await histogram('gen_ai.client.operation.duration')).toEqual([
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'm',
          'error.type': 'RateLimitError',
        },
        count: 1,
        sum: expect.any(Number),
      },
    ]);
    expect(await histogram('gen_ai.client.token.usage')).toEqual([]);
  });

  it('records tool calls by tool and outcome, and turns by profile, status and stop reason', async () => {
    recordToolCall({ toolName: 'calculator', status: 'success' }, 0.004);
    recordToolCall({ toolName: 'calculator', status: 'success' }, 0.006);
    recordToolCall({ toolName: 'web_fetch', status: 'timeout', errorCode: 'DEADLINE_EXCEEDED' }, 30);
    recordTurn({ profile: 'default', status: 'completed', stopReason: 'final_answer' }, 0.5);
    expect(await histogram('platform.tool.duration')).toEqual([
      { attributes: { 'gen_ai.tool.name': 'calculator', 'platform.tool.status': 'success' }, count: 2, sum: 0.01 },
      {
        attributes: {
          'gen_ai.tool.name': 'web_fetch',
          'platform.tool.status': 'timeout',
          'error.type': 'DEADLINE_EXCEEDED',
        },
        count: 1,
        sum: 30,
      },
    ]);
    expect(await histogram('platform.turn.duration')).toEqual([
      {
        attributes: {
          'platform.profile': 'default',
          'platform.run.status': 'completed',
          'platform.stop_reason': 'final_answer',
        },
        count: 1,
        sum: 0.5,
      },
    ]);
  });

  it('follows a new global meter provider (instruments are not kept from an earlier one)', async () => {
    recordTurn({ profile: 'a', status: 'completed', stopReason: 'final_answer' }, 1);
    install();
    recordTurn({ profile: 'b', status: 'completed', stopReason: 'final_answer' }, 1);
    expect((await histogram('platform.turn.duration')).map((p) => p.attributes['platform.profile'])).toEqual(['b']);
  });
});
