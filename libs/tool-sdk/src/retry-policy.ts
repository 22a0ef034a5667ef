import type { SideEffect } from '@platform/contracts';

/**
 * How a call attempt failed without a runner's answer:
 * - `no_responders`: the NATS server said no runner subscribes to the subject, so none received it;
 * - `no_answer`: the request may have reached a runner (timeout, connection lost), so it may have run.
 */
export type UnansweredKind = 'no_responders' | 'no_answer';

/** Defaults of the client's transport retries: few and short, because the turn's deadline is shared. */
export const TRANSPORT_RETRY_DEFAULTS = {
  /** Extra attempts after an unanswered one. */
  retries: 2,
  /** Pause before the first retry; doubles for each further one. */
  delayMs: 100,
} as const;

/**
 * Whether a call that got no answer may be sent again (the policy table of docs/tool-protocol.md):
 * - side effect unknown: never, since the caller cannot know what a repeat would do;
 * - `no_responders`: yes for every known class, since no runner can have started the call;
 * - `no_answer`: yes for `none` and `idempotent`; for `external` only when the runner publishes
 *   `platform.dedupe: "true"`, because then a repeat is answered from the first run's result.
 */
export function mayRetryUnanswered(kind: UnansweredKind, sideEffect: SideEffect | undefined, dedupe = false): boolean {
  if (sideEffect === undefined) return false;
  if (kind === 'no_responders') return true;
  return sideEffect !== 'external' || dedupe;
}
