import type { CollectedSpan } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { printPhaseReport, type PhaseWindow } from './phase-report.js';
import { TraceTags } from './trace-tags.js';
import { byTrace, phasesOfTrace, ROOT_PHASE } from './turn-phases.js';

let nextId = 0;
function span(
  fields: Partial<CollectedSpan> & Pick<CollectedSpan, 'name' | 'serviceName' | 'kind' | 'startMs' | 'durationMs'>,
): CollectedSpan {
  return {
    traceId: 't1',
    spanId: `s${++nextId}`,
    parentSpanId: undefined,
    scope: undefined,
    statusCode: 0,
    attributes: {},
    ...fields,
  };
}

/** api request 0-20 ms > gRPC client 1-19 > orchestrator server 2-18 > two model calls and one query; `slower` lengthens the first model call. */
function turnSpans(traceId = 't1', slower = 0): CollectedSpan[] {
  const root = span({
    traceId,
    name: 'POST',
    serviceName: 'api',
    kind: 'SERVER',
    startMs: 1000,
    durationMs: 20 + slower,
    parentSpanId: 'driver',
  });
  const client = span({
    traceId,
    name: 'platform.orchestrator.v1.OrchestratorService/HandleMessage',
    serviceName: 'api',
    kind: 'CLIENT',
    startMs: 1001,
    durationMs: 18 + slower,
    parentSpanId: root.spanId,
  });
  const server = span({
    traceId,
    name: 'platform.orchestrator.v1.OrchestratorService/HandleMessage',
    serviceName: 'orchestrator',
    kind: 'SERVER',
    startMs: 1002,
    durationMs: 16 + slower,
    parentSpanId: client.spanId,
  });
  const query = span({
    traceId,
    name: 'pg.query:INSERT',
    serviceName: 'orchestrator',
    kind: 'CLIENT',
    startMs: 1003,
    durationMs: 2,
    parentSpanId: server.spanId,
    attributes: {
      'db.system': 'postgresql',
      'db.statement': 'INSERT INTO runs (run_id,\n  tenant_id) VALUES ($1, $2)',
    },
  });
  const lease = span({
    traceId,
    name: 'eval',
    serviceName: 'orchestrator',
    kind: 'CLIENT',
    startMs: 1002.5,
    durationMs: 0.5,
    parentSpanId: server.spanId,
    attributes: { 'db.system': 'redis', 'db.statement': "eval if redis.call('EXISTS', KEYS[1])" },
  });
  const chat1 = span({
    traceId,
    name: 'chat sim-1',
    serviceName: 'orchestrator',
    kind: 'CLIENT',
    startMs: 1006,
    durationMs: 3 + slower,
    parentSpanId: server.spanId,
  });
  const http1 = span({
    traceId,
    name: 'POST',
    serviceName: 'orchestrator',
    kind: 'CLIENT',
    startMs: 1006.5,
    durationMs: 2 + slower,
    parentSpanId: chat1.spanId,
    attributes: { 'url.full': 'http://127.0.0.1:4000/v1/chat/completions' },
  });
  const chat2 = span({
    traceId,
    name: 'chat sim-1',
    serviceName: 'orchestrator',
    kind: 'CLIENT',
    startMs: 1012 + slower,
    durationMs: 3,
    parentSpanId: server.spanId,
  });
  // Handed off after the answer: not part of the turn.
  const later = span({
    traceId,
    name: 'platform.memory.v1.MemoryService/Ingest',
    serviceName: 'memory',
    kind: 'SERVER',
    startMs: 1100,
    durationMs: 5,
    parentSpanId: server.spanId,
  });
  return [root, client, server, query, lease, chat1, http1, chat2, later];
}

describe('phasesOfTrace', () => {
  it("cuts a turn into its spans, each server's time between child spans and each hop, numbering repeated calls", () => {
    const phases = phasesOfTrace(turnSpans())!;
    const of = (phase: string) => phases.find((p) => p.phase === phase);
    expect(of(ROOT_PHASE)).toMatchObject({ durationMs: 20, offsetMs: 0, exclusive: false });
    expect(of(`${ROOT_PHASE}: between child spans`)).toMatchObject({ durationMs: 2, exclusive: true });
    expect(of("api grpc HandleMessage: outside orchestrator's handler (hop)")).toMatchObject({
      durationMs: 2,
      exclusive: true,
    });
    // 16 ms, of which 2 + 0.5 + 3 + 3 in its children.
    expect(of('orchestrator server grpc HandleMessage: between child spans')).toMatchObject({
      durationMs: 7.5,
      offsetMs: 2,
      exclusive: true,
    });
    expect(of("orchestrator redis eval if redis.call('EXISTS', KEYS[1])")).toMatchObject({
      durationMs: 0.5,
      exclusive: true,
    });
    expect(of('orchestrator HTTP POST /v1/chat/completions')).toMatchObject({ durationMs: 2, exclusive: true });
    expect(of('orchestrator chat sim-1: outside child spans')).toMatchObject({ durationMs: 1, exclusive: true });
    expect(of('orchestrator pg INSERT INTO runs (run_id,')).toMatchObject({ durationMs: 2, exclusive: true });
    expect(of('orchestrator chat sim-1')).toMatchObject({ durationMs: 3, offsetMs: 6, exclusive: false });
    expect(of('orchestrator chat sim-1 #2')).toMatchObject({ durationMs: 3, offsetMs: 12 });
    expect(phases.some((p) => p.phase.includes('Ingest'))).toBe(false);
    // The exclusive phases add up to the whole turn.
    expect(phases.filter((p) => p.exclusive).reduce((sum, p) => sum + p.durationMs, 0)).toBeCloseTo(20);
  });

  it('gives up on a trace whose root span has not arrived', () => {
    expect(phasesOfTrace(turnSpans().slice(1))).toBeUndefined();
  });
});

describe('TraceTags', () => {
  it('samples only inside a window, one turn in N, and remembers which window each trace was sent in', () => {
    const tags = new TraceTags(2);
    const outside = tags.headers().traceparent!;
    expect(outside).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    tags.enter('50%');
    const flags = Array.from({ length: 4 }, () => tags.headers().traceparent!.slice(-2));
    expect(flags).toEqual(['01', '00', '01', '00']);
    expect(tags.sent().get('50%')).toBe(2);
    expect(tags.phase(outside.slice(3, 35))).toBeUndefined();
    expect(() => new TraceTags(0)).toThrow();
  });
});

describe('printPhaseReport', () => {
  it('prints each phase per window and names the phase where the slowest turns lost their time', () => {
    const turns = Array.from({ length: 10 }, (_, i) => phasesOfTrace(turnSpans(`t${i}`, i === 9 ? 37 : 0))!);
    const window: PhaseWindow = {
      label: '50%',
      traced: 10,
      turns,
      answered: 10,
      runtime: new Map([
        [
          'orchestrator',
          {
            pid: 1,
            windowMs: 1000,
            eventLoopDelayMs: { p50: 10, p99: 12.5, max: 30, mean: 10, samples: 90 },
            gc: { count: 4, totalMs: 6, maxMs: 3, byKind: {} },
            cpuMs: 50,
          },
        ],
      ]),
    };
    const lines: string[] = [];
    printPhaseReport([window], '50%', (line) => lines.push(line));
    const text = lines.join('\n');
    expect(text).toContain('| orchestrator chat sim-1 | 6.0 | 1.00 | 3.0 / 40.0 |');
    const tailRows = lines.slice(lines.findIndex((l) => l.includes('The slowest')) + 3);
    // The one slow model call is where the slowest turns' extra time went.
    expect(tailRows[0]).toMatch(
      /^\| orchestrator HTTP POST \/v1\/chat\/completions \| 2\.0 \| 14\.3 \| 12\.3 \| 100% \|$/,
    );
    expect(text).toContain('| orchestrator | 12.5 / 30.0 | 4 / 6.0 / 3.0 | 5.00 |');
  });
});

describe('byTrace', () => {
  it('groups spans by trace', () => {
    const groups = byTrace([...turnSpans('a'), ...turnSpans('b')]);
    expect([...groups.keys()]).toEqual(['a', 'b']);
    expect(groups.get('a')).toHaveLength(9);
  });
});
