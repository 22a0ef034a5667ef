// What a failed request died of, named by the innermost cause that says so: undici's `fetch failed`
// hides the reason in `cause` (ECONNRESET, UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT,
// UND_ERR_SOCKET, connect ETIMEDOUT, ...), and a load test that reports only the message cannot
// tell a server that refused connections from a client that gave up waiting.

/** `message (CODE[ / CODE...])`: the error's message and the codes (or names) of its causes, outermost first. */
export function failureKind(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const codes: string[] = [];
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    const { code, name } = cause as { code?: unknown; name?: unknown };
    const label =
      typeof code === 'string' && code !== '' ? code : typeof name === 'string' && name !== 'Error' ? name : undefined;
    if (label !== undefined && !codes.includes(label)) codes.push(label);
    cause = (cause as { cause?: unknown }).cause;
  }
  // A message that carries a body after a colon (`HTTP 503: {...}`, `unexpected answer: {...}`) is
  // named by what precedes it and the body's error code or status, so one kind is one line
  // whatever ids the body held.
  const colon = message.indexOf(': ');
  let head = colon > 0 ? message.slice(0, colon) : message;
  if (head.length > 60) head = `${head.slice(0, 60)}…`;
  if (colon > 0) {
    const body = message.slice(colon + 2);
    const code = /"code"\s*:\s*"([^"]{1,60})"/.exec(body)?.[1] ?? /"status"\s*:\s*"([^"]{1,60})"/.exec(body)?.[1];
    if (code !== undefined && !codes.includes(code)) codes.push(code);
  }
  return codes.length === 0 ? head : `${head} (${codes.join(' / ')})`;
}

/** Failures counted by kind, most frequent first. */
export class FailureTally {
  private readonly counts = new Map<string, number>();
  total = 0;

  add(error: unknown): void {
    const kind = failureKind(error);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.total += 1;
  }

  /** `n× kind; m× other` (most frequent first), or `none`. */
  toString(): string {
    if (this.total === 0) return 'none';
    return [...this.counts]
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => `${n}× ${kind}`)
      .join('; ');
  }
}
