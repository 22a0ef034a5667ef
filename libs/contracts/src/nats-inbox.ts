/**
 * Where a NATS user's replies arrive: `_INBOX.<user>`. A service that connects as its own user
 * makes its requests with this inbox prefix, and the permission model lets it subscribe under
 * its own prefix only, so no service (or outside client) can read the replies meant for another
 * (tool results for the orchestrator, JetStream acks, discovery answers).
 */
const NATS_INBOX_ROOT = '_INBOX';

/** A user name usable as one subject token: letters, digits, `-` and `_`. */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/** The inbox prefix of a NATS user, or undefined when its name cannot be one subject token. */
export function natsInboxPrefix(user: string): string | undefined {
  return SUBJECT_TOKEN.test(user) ? `${NATS_INBOX_ROOT}.${user}` : undefined;
}
