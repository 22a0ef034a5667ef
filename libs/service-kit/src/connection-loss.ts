/**
 * Whether an error means a dependency's connection was lost or refused (PostgreSQL restarting, a
 * reset network, a pool that cannot connect), as opposed to a bug or a bad request: such a failure
 * is transient, and callers are told so (UNAVAILABLE, retry later) instead of "internal error".
 */
const SOCKET_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);
/** SQLSTATEs of a server going away: admin/crash shutdown, "cannot connect now" (starting up or in recovery). */
const SERVER_GOING_AWAY = new Set(['57P01', '57P02', '57P03']);
/** node-postgres reports a lost or unobtainable connection by message only. */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
];

export function isConnectionLoss(error: unknown): boolean {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_ERRORS.has(code) || SERVER_GOING_AWAY.has(code) || code.startsWith('08')))
      return true;
    if (PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(current instanceof Error ? current.message : '')))
      return true;
  }
  return false;
}
