import pg from 'pg';
import type { Logger } from 'pino';

export interface PostgresOptions {
  url: string;
  /** Connections this process keeps at most. */
  maxConnections?: number;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** The service's own schema; unqualified table names resolve there. */
  searchPath?: string;
  /**
   * Settings every connection starts with (sent as `-c name=value` options), e.g. an extension's
   * operator threshold. Names and values: letters, digits, "_", "." and "-" only.
   */
  settings?: Readonly<Record<string, string>>;
  logger: Logger;
}

const SAFE_SETTING = /^[A-Za-z0-9_.-]+$/;

/** The libpq `options` string: search_path and the settings, validated (they are not quoted). */
function connectionOptions(options: PostgresOptions): string | undefined {
  const settings = { ...(options.searchPath ? { search_path: options.searchPath } : {}), ...options.settings };
  const flags = Object.entries(settings).map(([name, value]) => {
    if (!SAFE_SETTING.test(name) || !SAFE_SETTING.test(value))
      throw new Error(`connection setting ${name}=${value} must be letters, digits, "_", "." or "-"`);
    return `-c ${name}=${value}`;
  });
  return flags.length ? flags.join(' ') : undefined;
}

/** What a log line keeps of a client error: never the client itself (its config and statements). */
function clientErrorFields(err: Error & { code?: string }): Record<string, unknown> {
  return { err: { type: err.name, message: err.message, ...(err.code ? { code: err.code } : {}) } };
}

/**
 * A pg connection pool whose client errors are logged instead of crashing the process: an idle
 * client's (the pool's `error` event) and a checked-out client's too. A connection reset while a
 * client is checked out between two queries (e.g. while its holder awaits other I/O) makes the
 * client emit `error` with nobody listening, which would end the process; the failed query or
 * the next one still rejects, and the pool discards the broken client when it is released.
 */
export function createPgPool(options: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName,
    ...(connectionOptions(options) ? { options: connectionOptions(options) } : {}),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (err) => options.logger.error(clientErrorFields(err), 'idle postgres client failed'));
  pool.on('connect', (client) => {
    client.on('error', (err) => options.logger.warn(clientErrorFields(err), 'postgres connection failed'));
  });
  return pool;
}

/** Options of {@link inTransaction}. */
export interface TransactionOptions {
  /**
   * Settings of the transaction as SQL expressions (e.g. `set_config('app.tenant', 'acme', true)`),
   * selected in the same round trip as BEGIN. They are sent as text: quote values with
   * `client.escapeLiteral`.
   */
  settings?: (client: pg.PoolClient) => string[];
}

/** Runs `fn` in a transaction on one client, committing on success and rolling back on any error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    const settings = options.settings?.(client) ?? [];
    await client.query(settings.length ? `BEGIN; SELECT ${settings.join(', ')}` : 'BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
