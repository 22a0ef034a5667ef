import {
  contextLengthExceeded,
  invalidApiKey,
  invalidRequest,
  rateLimited,
  serverError,
  type SimError,
} from './openai-errors.js';
import type { FaultSpec } from './scenario-schema.js';

/** Used in a `context_length_exceeded` fault's message when the scenario declares no window. */
const DEFAULT_CONTEXT_WINDOW = 128_000;
// Bounds memory in a long-running demo; the oldest fingerprints are forgotten first.
const MAX_TRACKED_FINGERPRINTS = 10_000;

/**
 * Counts how often each fault fired per request fingerprint, so a `times: n` fault fires for
 * the first n identical requests and then lets the step's normal reply through.
 */
export class FaultBook {
  private readonly fired = new Map<string, number>();

  /** Records one arrival and says whether the fault fires for it. */
  shouldFire(fault: FaultSpec, fingerprint: string): boolean {
    if (fault.times === 'always') return true;
    const count = this.fired.get(fingerprint) ?? 0;
    if (count >= fault.times) return false;
    this.fired.delete(fingerprint);
    this.fired.set(fingerprint, count + 1);
    if (this.fired.size > MAX_TRACKED_FINGERPRINTS) {
      const oldest = this.fired.keys().next().value;
      if (oldest !== undefined) this.fired.delete(oldest);
    }
    return true;
  }

  /** Forgets every count (test isolation via `POST /_sim/reset`). */
  reset(): void {
    this.fired.clear();
  }
}

/** What a fault's error message may mention. */
export interface FaultContext {
  model: string;
  promptTokens: number;
  contextWindowTokens: number | undefined;
  apiKey: string | undefined;
}

/** A fault answered with an OpenAI error (every kind but `stream_cut`, which breaks the connection). */
export type ErrorFaultSpec = FaultSpec & { kind: Exclude<FaultSpec['kind'], 'stream_cut'> };

/** The OpenAI-shaped error a fault produces. */
export function faultError(fault: ErrorFaultSpec, ctx: FaultContext): SimError {
  switch (fault.kind) {
    case 'rate_limit':
      return rateLimited(ctx.model, fault.retryAfterSeconds ?? 1, fault.message);
    case 'context_length_exceeded': {
      const max = ctx.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW;
      // The wording claims the prompt exceeded the window, so never report a smaller number.
      const error = contextLengthExceeded(max, Math.max(ctx.promptTokens, max + 1));
      if (fault.message) error.body.error.message = fault.message;
      return error;
    }
    case 'auth': {
      const error = invalidApiKey(ctx.apiKey);
      if (fault.message) error.body.error.message = fault.message;
      return error;
    }
    case 'server_error':
      return serverError(fault.message);
    case 'bad_request':
      return invalidRequest(fault.message ?? 'Invalid request (simulated bad_request fault).');
    case 'response_format_unsupported':
      return invalidRequest(
        fault.message ?? "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        'response_format',
      );
  }
}
