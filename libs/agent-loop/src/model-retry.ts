import type { LoopConfig } from './loop-config.js';
import type { ModelError, ModelErrorKind } from './model-errors.js';

/** What to do after a failed model call. */
export type RetryDecision =
  | { action: 'retry'; delayMs: number }
  /** Retry with a smaller request view (the context-overflow chain). */
  | { action: 'shrink_view' }
  /** This model will not recover; try the next in the fallback list. */
  | { action: 'next_model' }
  | { action: 'give_up' };

/** Decides for one error kind, given how many retries this model already had for the call. */
export type RetryStrategy = (error: ModelError, retries: number, config: LoopConfig) => RetryDecision;

/**
 * Exponential backoff from the base delay with jitter (a random share of it, `llmRetryJitter`),
 * never shorter than what the provider asked for.
 */
function backoff(error: ModelError, retries: number, config: LoopConfig): number {
  const exponential = config.llmRetryBaseDelayMs * 2 ** retries * (1 - config.llmRetryJitter * Math.random());
  return Math.min(config.llmRetryMaxDelayMs, Math.max(error.retryAfterMs ?? 0, Math.round(exponential)));
}

const retryWithBackoff: RetryStrategy = (error, retries, config) =>
  retries < config.llmMaxRetries
    ? { action: 'retry', delayMs: backoff(error, retries, config) }
    : { action: 'next_model' };

/**
 * One strategy per error kind. This is the platform's single retry layer for model calls: the
 * adapters (libs/llm) and the `openai` client never retry (maxRetries 0), so a failure is retried
 * exactly here, where the turn's deadline, the fallback list and the overflow chain are known.
 */
export const DEFAULT_RETRY_STRATEGIES: Readonly<Record<ModelErrorKind, RetryStrategy>> = {
  rate_limit: retryWithBackoff,
  server: retryWithBackoff,
  timeout: (_error, retries) => (retries < 1 ? { action: 'retry', delayMs: 0 } : { action: 'next_model' }),
  context_overflow: () => ({ action: 'shrink_view' }),
  // Retrying cannot fix these; another provider in the fallback list might.
  quota_exhausted: () => ({ action: 'next_model' }),
  auth: () => ({ action: 'next_model' }),
  bad_request: () => ({ action: 'next_model' }),
  cancelled: () => ({ action: 'give_up' }),
};
