// A test sink for OTLP/HTTP JSON trace exports: services under test point OTEL_EXPORTER_OTLP_ENDPOINT
// at it and tests assert on the spans it received. Not a collector imitation: it only stores spans.
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
}

export interface OtlpCollector {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  spans(): CollectedSpan[];
  /** Resolves with all spans once `predicate` holds for them; rejects after `timeoutMs` listing what arrived. */
  waitForSpans(predicate: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  stop(): Promise<void>;
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
}
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
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
      })),
    );
  });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/** Starts the sink on a free loopback port. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const received: CollectedSpan[] = [];
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/traces') return reply(res, 404, '{}');
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      return reply(res, 415, JSON.stringify({ message: 'this test sink accepts OTLP/HTTP JSON only' }));
    }
    readBody(req)
      .then((body) => {
        received.push(...flatten(JSON.parse(body.toString('utf8')) as OtlpTraceRequest));
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
    spans: () => [...received],
    async waitForSpans(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate([...received])) {
        if (Date.now() > deadline) {
          const names = received.map((s) => `${s.serviceName ?? '?'}:${s.name}`).join(', ');
          throw new Error(`expected spans did not arrive within ${timeoutMs} ms; received: [${names}]`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return [...received];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
