import type pg from 'pg';

/**
 * The pool's `query`, for the statements of one request whose caller may give up: a statement is
 * not started once `signal` has aborted, neither before it waits for a pooled connection nor after
 * it got one (a recall queued behind others at saturation is the common case). A statement already
 * running is left to finish. It rejects with the signal's reason.
 */
export function abortableQueries(pool: pg.Pool, signal: AbortSignal | undefined): Pick<pg.Pool, 'query'> {
  if (!signal) return pool;
  const query = async (statement: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> => {
    signal.throwIfAborted();
    const client = await pool.connect();
    try {
      signal.throwIfAborted();
      return await client.query(statement, values);
    } finally {
      client.release();
    }
  };
  // pg's `query` is a set of overloads; the statements of a recall use (text or config, values) only.
  return { query } as unknown as Pick<pg.Pool, 'query'>;
}
