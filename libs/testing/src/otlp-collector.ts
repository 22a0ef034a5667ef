// A test sink for OTLP/HTTP JSON trace and metric exports: services under test point
// OTEL_EXPORTER_OTLP_ENDPOINT at it and tests assert on the spans and metric points it received.
// Not a collector imitation: it only stores what arrives.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as received, flattened out of resourceSpans/scopeSpans. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Undefined for a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: 'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';
  /** `service.name` of the exporting process's resource. */
  readonly serviceName: string | undefined;
  /** Instrumentation scope (tracer) name. */
  readonly scope: string | undefined;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Start, in milliseconds since the Unix epoch (sub-millisecond precision); NaN when not sent. */
  readonly startMs: number;
  /** End minus start, in milliseconds; NaN when either was not sent. */
  readonly durationMs: number;
}

/** One data point of an exported metric, flattened out of resourceMetrics/scopeMetrics/metrics. */
export interface CollectedMetricPoint {
  readonly name: string;
  readonly unit: string | undefined;
  readonly kind: 'histogram' | 'sum' | 'gauge' | 'other';
  /** `service.name` of the exporting process's resource. */
  readonly serviceName: string | undefined;
  /** Instrumentation scope (meter) name. */
  readonly scope: string | undefined;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Histograms: how many values, and their sum. */
  readonly count: number | undefined;
  readonly sum: number | undefined;
  /** Sums and gauges: the value. */
  readonly value: number | undefined;
}

export interface OtlpCollector {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporters append /v1/traces and /v1/metrics). */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  spans(): CollectedSpan[];
  /** Resolves with all spans once `predicate` holds for them; rejects after `timeoutMs` listing what arrived. */
  waitForSpans(predicate: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  /** Every metric point received so far, in arrival order (each export of a cumulative metric adds its points again). */
  metricPoints(): CollectedMetricPoint[];
  /** Resolves with all metric points once `predicate` holds for them; rejects after `timeoutMs` listing the names that arrived. */
  waitForMetricPoints(
    predicate: (points: CollectedMetricPoint[]) => boolean,
    timeoutMs?: number,
  ): Promise<CollectedMetricPoint[]>;
  /** Every span received so far, which the sink then forgets (a long benchmark reads it phase by phase). */
  takeSpans(): CollectedSpan[];
  stop(): Promise<void>;
}

export interface OtlpCollectorOptions {
  /**
   * Keep trace exports as they arrive and parse them only when spans are read (every export is
   * then answered 200, a malformed one fails the read). For a benchmark whose driver shares the
   * process: parsing thousands of spans a second there would slow the driver under measurement.
   */
  deferParsing?: boolean;
}

const KINDS: readonly CollectedSpan['kind'][] = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
}
interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number };
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
}
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

interface OtlpDataPoint {
  attributes?: OtlpKeyValue[];
  count?: number | string;
  sum?: number;
  asInt?: number | string;
  asDouble?: number;
}
interface OtlpMetric {
  name?: string;
  unit?: string;
  histogram?: { dataPoints?: OtlpDataPoint[] };
  sum?: { dataPoints?: OtlpDataPoint[] };
  gauge?: { dataPoints?: OtlpDataPoint[] };
}
interface OtlpMetricsRequest {
  resourceMetrics?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeMetrics?: { scope?: { name?: string }; metrics?: OtlpMetric[] }[];
  }[];
}

function plainValue(value: OtlpAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  if (value.kvlistValue) return plainAttributes(value.kvlistValue.values);
  return undefined;
}

function plainAttributes(attributes: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((kv) => [kv.key, plainValue(kv.value)]));
}

/** OTLP/JSON ids are hex, but some encoders send protobuf-JSON base64; normalise to lowercase hex. */
function hexId(id: string | undefined, hexLength: number): string | undefined {
  if (!id) return undefined;
  if (id.length === hexLength && /^[0-9a-fA-F]+$/.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

/** OTLP/JSON sends nanosecond times as decimal strings (too large for a double to keep exactly). */
function unixNanosToMs(value: string | number | undefined): number {
  if (value === undefined || value === '') return NaN;
  if (typeof value === 'number') return value / 1e6;
  if (!/^\d+$/.test(value)) return NaN;
  const nanos = BigInt(value);
  return Number(nanos / 1_000n) / 1_000;
}

function flatten(request: OtlpTraceRequest): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const serviceName = plainAttributes(resourceSpans.resource?.attributes)['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: hexId(span.traceId, 32) ?? '',
        spanId: hexId(span.spanId, 16) ?? '',
        parentSpanId: hexId(span.parentSpanId, 16),
        name: span.name ?? '',
        kind: KINDS[span.kind ?? 0] ?? 'UNSPECIFIED',
        serviceName: typeof serviceName === 'string' ? serviceName : undefined,
        scope: scopeSpans.scope?.name,
        statusCode: span.status?.code ?? 0,
        attributes: plainAttributes(span.attributes),
        startMs: unixNanosToMs(span.startTimeUnixNano),
        durationMs: unixNanosToMs(span.endTimeUnixNano) - unixNanosToMs(span.startTimeUnixNano),
      })),
    );
  });
}

function metricPoints(
  metric: OtlpMetric,
  serviceName: string | undefined,
  scope: string | undefined,
): CollectedMetricPoint[] {
  const [kind, points]: [CollectedMetricPoint['kind'], OtlpDataPoint[]] = metric.histogram
    ? ['histogram', metric.histogram.dataPoints ?? []]
    : metric.sum
      ? ['sum', metric.sum.dataPoints ?? []]
      : metric.gauge
        ? ['gauge', metric.gauge.dataPoints ?? []]
        : ['other', []];
  const number = (value: number | string | undefined): number | undefined =>
    value === undefined ? undefined : Number(value);
  return points.map((point) => ({
    name: metric.name ?? '',
    unit: metric.unit,
    kind,
    serviceName,
    scope,
    attributes: plainAttributes(point.attributes),
    count: number(point.count),
    sum: point.sum,
    value: number(point.asInt) ?? point.asDouble,
  }));
}

function flattenMetrics(request: OtlpMetricsRequest): CollectedMetricPoint[] {
  return (request.resourceMetrics ?? []).flatMap((resourceMetrics) => {
    const serviceName = plainAttributes(resourceMetrics.resource?.attributes)['service.name'];
    return (resourceMetrics.scopeMetrics ?? []).flatMap((scopeMetrics) =>
      (scopeMetrics.metrics ?? []).flatMap((metric) =>
        metricPoints(metric, typeof serviceName === 'string' ? serviceName : undefined, scopeMetrics.scope?.name),
      ),
    );
  });
}

/** Polls `received` until `predicate` holds for it, or fails listing what arrived. */
async function waitFor<T>(
  read: () => T[],
  predicate: (items: T[]) => boolean,
  timeoutMs: number,
  describe: (item: T) => string,
  what: string,
): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate([...read()])) {
    if (Date.now() > deadline) {
      const seen = [...new Set(read().map(describe))].join(', ');
      throw new Error(`expected ${what} did not arrive within ${timeoutMs} ms; received: [${seen}]`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return [...read()];
}

interface RawBody {
  body: Buffer;
  gzipped: boolean;
}

async function readBody(req: IncomingMessage): Promise<RawBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return { body: Buffer.concat(chunks), gzipped: req.headers['content-encoding'] === 'gzip' };
}

function parseBody(raw: RawBody): unknown {
  return JSON.parse((raw.gzipped ? gunzipSync(raw.body) : raw.body).toString('utf8')) as unknown;
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/** Starts the sink on a free loopback port. */
export async function startOtlpCollector(options: OtlpCollectorOptions = {}): Promise<OtlpCollector> {
  let received: CollectedSpan[] = [];
  const points: CollectedMetricPoint[] = [];
  const unparsed: RawBody[] = [];
  /** The spans received, after parsing whatever exports were kept raw. */
  const spans = (): CollectedSpan[] => {
    for (const raw of unparsed.splice(0))
      for (const span of flatten(parseBody(raw) as OtlpTraceRequest)) received.push(span);
    return received;
  };
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) return reply(res, 404, '{}');
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      return reply(res, 415, JSON.stringify({ message: 'this test sink accepts OTLP/HTTP JSON only' }));
    }
    readBody(req)
      .then((raw) => {
        if (path === '/v1/traces' && options.deferParsing) {
          unparsed.push(raw);
          return reply(res, 200, '{}');
        }
        const json = parseBody(raw);
        if (path === '/v1/traces') received.push(...flatten(json as OtlpTraceRequest));
        else points.push(...flattenMetrics(json as OtlpMetricsRequest));
        reply(res, 200, '{}');
      })
      .catch((err: unknown) => reply(res, 400, JSON.stringify({ message: String(err) })));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...spans()],
    waitForSpans: (predicate, timeoutMs = 10_000) =>
      waitFor(spans, predicate, timeoutMs, (s) => `${s.serviceName ?? '?'}:${s.name}`, 'spans'),
    metricPoints: () => [...points],
    waitForMetricPoints: (predicate, timeoutMs = 10_000) =>
      waitFor(
        () => points,
        predicate,
        timeoutMs,
        (p) => `${p.serviceName ?? '?'}:${p.name}`,
        'metric points',
      ),
    takeSpans: () => {
      const taken = spans();
      received = [];
      return taken;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
