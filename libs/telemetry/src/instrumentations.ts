// The auto-instrumentations every service gets. Keep hooked-modules.ts in step with this list.
import { GrpcEsmInstrumentation } from './grpc-esm-instrumentation.js';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { Instrumentation } from '@opentelemetry/instrumentation';

/** Creates (and thereby enables) the instrumentations; call before the app imports the patched modules. */
export function createInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation(),
    new GrpcEsmInstrumentation(),
    // Query parameters stay off spans (enhancedDatabaseReporting defaults to false): they may hold user data.
    new PgInstrumentation(),
    new IORedisInstrumentation(),
  ];
}
