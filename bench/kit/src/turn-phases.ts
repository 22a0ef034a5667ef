// One turn's trace cut into phases: every span the services emitted for it (the api's request,
// the gRPC hop, the orchestrator's Redis, Postgres, recall, model and tool calls, memory's work),
// the time each server spent between its child spans (its own work, event-loop waits and waits
// nothing traces: a lease, a pool checkout), and each hop's cost outside the callee's handler.
import type { CollectedSpan } from '@platform/testing';

/** What one turn spent in a phase. */
export interface PhaseSample {
  /** Names the phase the same way in every turn (e.g. `orchestrator chat sim-1 #2`). */
  phase: string;
  durationMs: number;
  /** When the phase began, from the start of the turn's root span (orders the table like a timeline). */
  offsetMs: number;
  /**
   * Time in no other phase of the turn: a span without child spans, or a span's time outside its
   * children. The exclusive phases of a turn add up to about its root span's duration (more
   * where sibling spans ran at the same time).
   */
  exclusive: boolean;
}

/** The phase of the turn's root span: the api's whole handling of the request. */
export const ROOT_PHASE = 'turn (api request, server side)';

const SHORT_KIND: Record<CollectedSpan['kind'], string> = {
  UNSPECIFIED: '',
  INTERNAL: '',
  SERVER: 'server ',
  CLIENT: '',
  PRODUCER: '',
  CONSUMER: 'consumer ',
};

/** First words of a statement, e.g. `INSERT INTO runs (run_id,` or `eval if redis.call('EXISTS',`. */
function firstWords(text: string): string {
  const words = text.replace(/\s+/g, ' ').trim().split(' ').slice(0, 4).join(' ');
  return words.length > 48 ? `${words.slice(0, 45)}...` : words;
}

const DB_PREFIX: Record<string, string> = { postgresql: 'pg', redis: 'redis' };

/** A span's name as a phase: SQL and Redis commands by their first words, gRPC by its method, HTTP by its path. */
function spanLabel(span: CollectedSpan): string {
  const a = span.attributes;
  const statement = a['db.query.text'] ?? a['db.statement'];
  const named = a['db.system.name'] ?? a['db.system'];
  const system = typeof named === 'string' ? named : undefined;
  if (typeof statement === 'string' || system) {
    const prefix = system ? (DB_PREFIX[system] ?? system) : 'db';
    return `${prefix} ${typeof statement === 'string' ? firstWords(statement) : span.name}`;
  }
  const url = a['url.full'] ?? a['http.url'];
  if (span.kind === 'CLIENT' && typeof url === 'string' && URL.canParse(url))
    return `HTTP ${span.name} ${new URL(url).pathname}`;
  const method = /^[\w.]+\/(\w+)$/.exec(span.name);
  return `${SHORT_KIND[span.kind]}${method ? `grpc ${method[1]}` : span.name}`;
}

/** Total length of the union of intervals (children that overlap are counted once). */
function coveredMs(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of sorted) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/**
 * The phases of one turn's trace. Spans that began after the turn's root span ended (work the
 * turn handed off, e.g. memory ingestion) are left out: the caller did not wait for them.
 * Returns undefined when the trace has no root span from `rootService` (an incomplete export).
 */
export function phasesOfTrace(spans: readonly CollectedSpan[], rootService = 'api'): PhaseSample[] | undefined {
  const ids = new Set(spans.map((s) => s.spanId));
  const root = spans.find(
    (s) => s.serviceName === rootService && s.kind === 'SERVER' && (!s.parentSpanId || !ids.has(s.parentSpanId)),
  );
  if (!root || !Number.isFinite(root.durationMs)) return undefined;
  const rootEnd = root.startMs + root.durationMs;
  const inTurn = spans
    .filter((s) => Number.isFinite(s.durationMs) && s.startMs <= rootEnd)
    .sort((a, b) => a.startMs - b.startMs);
  const children = new Map<string, CollectedSpan[]>();
  for (const s of inTurn)
    if (s.parentSpanId) children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
  const seen = new Map<string, number>();
  const samples: PhaseSample[] = [];
  const add = (phase: string, durationMs: number, startMs: number, exclusive: boolean): void => {
    const n = (seen.get(phase) ?? 0) + 1;
    seen.set(phase, n);
    samples.push({ phase: n > 1 ? `${phase} #${n}` : phase, durationMs, offsetMs: startMs - root.startMs, exclusive });
  };
  for (const s of inTurn) {
    const name = s === root ? ROOT_PHASE : `${s.serviceName ?? '?'} ${spanLabel(s)}`;
    const below = children.get(s.spanId) ?? [];
    if (below.length === 0) {
      add(name, s.durationMs, s.startMs, true);
      continue;
    }
    add(name, s.durationMs, s.startMs, false);
    const end = s.startMs + s.durationMs;
    const own = Math.max(
      0,
      s.durationMs -
        coveredMs(below.map((c) => [Math.max(c.startMs, s.startMs), Math.min(c.startMs + c.durationMs, end)])),
    );
    const remote = below.find((c) => c.serviceName !== s.serviceName && (c.kind === 'SERVER' || c.kind === 'CONSUMER'));
    // A server's own time: its CPU, event-loop waits and whatever it awaited untraced (a lease, a
    // pool checkout). A call's time outside the callee's handler: the wire, (de)serialisation and
    // waiting for either event loop to get to it.
    const what =
      s.kind === 'SERVER' || s.kind === 'CONSUMER'
        ? 'between child spans'
        : remote
          ? `outside ${remote.serviceName ?? '?'}'s handler (hop)`
          : 'outside child spans';
    add(`${name}: ${what}`, own, s.startMs, true);
  }
  return samples;
}

/** Groups spans by trace id. */
export function byTrace(spans: readonly CollectedSpan[]): Map<string, CollectedSpan[]> {
  const traces = new Map<string, CollectedSpan[]>();
  for (const s of spans) {
    const list = traces.get(s.traceId);
    if (list) list.push(s);
    else traces.set(s.traceId, [s]);
  }
  return traces;
}
