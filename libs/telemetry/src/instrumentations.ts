// The auto-instrumentations every service gets. Keep hooked-modules.ts in step with this list.
import { GrpcEsmInstrumentation } from './grpc-esm-instrumentation.js';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { Instrumentation } from '@opentelemetry/instrumentation';

/** Creates (and thereby enables) the instrumentations; call before the app imports the patched modules. */
export function createInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation(),
    new GrpcEsmInstrumentation(),
    // Query parameters stay off spans (enhancedDatabaseReporting defaults to false): they may hold user data.
    // A span per query, not a second one per pool checkout: that doubled the spans of every
    // database-bound service for an interval the query span's parent already shows as a gap.
    new PgInstrumentation({ ignoreConnectSpans: true }),
    new IORedisInstrumentation(),
    // undici, both Node's built-in fetch and the undici package the model client sends through
    // (libs/llm createPooledFetch): model calls carry traceparent. It listens on
    // diagnostics_channel, which both publish to, so it needs no loader hook.
    new UndiciInstrumentation(),
  ];
}
