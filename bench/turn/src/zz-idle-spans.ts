import { startBenchPlatform } from '@platform/bench-kit';
import { startOtlpCollector } from '@platform/testing';
const collector = await startOtlpCollector();
const bp = await startBenchPlatform({ durability: 'fast', env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_METRICS_EXPORTER: 'none', ...(process.env['IDLE_ENV'] ? JSON.parse(process.env['IDLE_ENV']) : {}) } });
await new Promise((r) => setTimeout(r, 15_000));
const before = collector.spans().length;
await new Promise((r) => setTimeout(r, 20_000));
const spans = collector.spans().slice(before);
const by = new Map<string, number>();
for (const s of spans) { const k = `${s.serviceName} ${s.parentSpanId ? 'child' : 'ROOT'} ${s.name}`; by.set(k, (by.get(k) ?? 0) + 1); }
console.log('spans in 20 s idle:', spans.length, 'traces:', new Set(spans.map((s) => s.traceId)).size);
for (const [k, n] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(n, k);
await bp.stop();
await collector.stop();
