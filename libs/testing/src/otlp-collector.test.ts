import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';

/** One OTLP/JSON trace export with one span of 2.5 ms. */
function exportOf(name: string, traceId = '0af7651916cd43dd8448eb211c80319c'): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'orchestrator' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: [
              {
                traceId,
                spanId: 'b7ad6b7169203331',
                name,
                kind: 3,
                startTimeUnixNano: '1764036000000000000',
                endTimeUnixNano: '1764036000002500000',
              },
            ],
          },
        ],
      },
    ],
  });
}

const post = (collector: OtlpCollector, body: string): Promise<Response> =>
  fetch(`${collector.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('the OTLP test sink', () => {
  let collector: OtlpCollector | undefined;
  afterEach(async () => collector?.stop());

  it('keeps each span with its start and duration in milliseconds', async () => {
    collector = await startOtlpCollector();
    expect((await post(collector, exportOf('chat sim-1'))).status).toBe(200);
    const [span] = collector.spans();
    expect(span).toMatchObject({
      name: 'chat sim-1',
      kind: 'CLIENT',
      serviceName: 'orchestrator',
      startMs: 1_764_036_000_000,
      durationMs: 2.5,
    });
  });

  it('with deferred parsing, answers every export at once and parses on read; takeSpans forgets what it returns', async () => {
    collector = await startOtlpCollector({ deferParsing: true });
    expect((await post(collector, exportOf('first'))).status).toBe(200);
    expect((await post(collector, exportOf('second'))).status).toBe(200);
    expect(collector.takeSpans().map((s) => s.name)).toEqual(['first', 'second']);
    expect(collector.takeSpans()).toEqual([]);
    // A malformed export is accepted, and the read that parses it fails.
    expect((await post(collector, '{not json')).status).toBe(200);
    expect(() => collector!.spans()).toThrow(SyntaxError);
  });

  it('refuses a malformed export at once when parsing is not deferred', async () => {
    collector = await startOtlpCollector();
    expect((await post(collector, '{not json')).status).toBe(400);
  });
});
