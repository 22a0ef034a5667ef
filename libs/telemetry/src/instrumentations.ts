// The auto-instrumentations a service runs (all by default; see config.ts). Keep hooked-modules.ts in step with this list.
import { GrpcEsmInstrumentation } from './grpc-esm-instrumentation.js';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { ATTR_URL_FULL, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions';
import { redactUrl } from '@platform/egress/redact';
import { INSTRUMENTATION_NAMES, type InstrumentationName } from './hooked-modules.js';

/**
 * A client span's URL without its secrets: user info and every query value redacted (a webhook or
 * connector URL set by a tenant may carry a token there). Replaces the instrumentation's own
 * `url.full` and `url.query`, which copy the URL as it is.
 */
function redactedUrlAttributes(request: { origin: string; path: string }): Record<string, string> {
  let url: string;
  try {
    url = redactUrl(new URL(request.path, request.origin));
  } catch {
    return {};
  }
  const query = url.indexOf('?');
  return { [ATTR_URL_FULL]: url, [ATTR_URL_QUERY]: query === -1 ? '' : url.slice(query) };
}

const FACTORIES: Record<InstrumentationName, () => Instrumentation> = {
  http: () => new HttpInstrumentation(),
  grpc: () => new GrpcEsmInstrumentation(),
  // Query parameters stay off spans (enhancedDatabaseReporting defaults to false): they may hold user data.
  // A span per query, not a second one per pool checkout: that doubled the spans of every
  // database-bound service for an interval the query span's parent already shows as a gap.
  // Only inside a trace (as the ioredis instrumentation does by default): a poller's or sweeper's
  // statements would otherwise each start a one-span trace of their own (an idle trigger replica
  // made about 38 a second).
  pg: () => new PgInstrumentation({ ignoreConnectSpans: true, requireParentSpan: true }),
  ioredis: () => new IORedisInstrumentation(),
  // undici, both Node's built-in fetch and the undici package the model client sends through
  // (libs/llm createPooledFetch): model calls carry traceparent. It listens on
  // diagnostics_channel, which both publish to, so it needs no loader hook.
  undici: () => new UndiciInstrumentation({ startSpanHook: redactedUrlAttributes }),
};

/** Creates (and thereby enables) the given instrumentations; call before the app imports the patched modules. */
export function createInstrumentations(
  enabled: readonly InstrumentationName[] = INSTRUMENTATION_NAMES,
): Instrumentation[] {
  return INSTRUMENTATION_NAMES.filter((name) => enabled.includes(name)).map((name) => FACTORIES[name]());
}
