import { traceFields } from '@platform/telemetry';
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** The component name, attached to every line as `service`. */
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to capture lines. */
  destination?: NodeJS.WritableStream;
}

/** Field names whose values never reach a log line (credentials, tokens). */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'credentials',
  '*.credentials',
  'secret',
  '*.secret',
  'token',
  '*.token',
];

/**
 * Structured JSON logging (pino) with the service name on every line, the trace and span ids of
 * the span a line is written in (`trace_id`, `span_id`), and credentials redacted.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: traceFields,
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
