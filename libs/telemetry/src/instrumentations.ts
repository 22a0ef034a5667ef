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
    new PgInstrumentation(),
    new IORedisInstrumentation(),
    // Node's built-in fetch (undici), which the openai client uses: model calls carry traceparent.
    // It listens on diagnostics_channel, so it needs no loader hook.
    new UndiciInstrumentation(),
  ];
}
