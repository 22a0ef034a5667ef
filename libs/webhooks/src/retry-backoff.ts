/** How a failed delivery is retried: exponential backoff from `retryBaseMs`, capped at `retryMaxMs`, at most `maxAttempts` tries. */
export interface WebhookRetryPolicy {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

/** The wait before the attempt after `attempt` (1-based): base, 2×base, 4×base, … up to the cap. */
export function retryDelayMs(policy: WebhookRetryPolicy, attempt: number): number {
  return Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.max(0, attempt - 1));
}

/** Answers worth trying again: the receiver is down or busy; anything else 4xx (and any 3xx: redirects are not followed) is final. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}
