import type pg from 'pg';
import type { Logger } from 'pino';
import { loadMigrations, migrate } from './migrations.js';
import { createPgPool } from './postgres.js';

export interface ServiceDatabaseOptions {
  url: string;
  /** The schema the service owns; its tables resolve there and its migrations run there. */
  schema: string;
  /** Folder of `<version>_<name>.sql` migrations. */
  migrationsDir: string;
  applicationName: string;
  maxConnections: number;
  /** Settings every connection starts with (see `PostgresOptions.settings`). */
  settings?: Readonly<Record<string, string>>;
  logger: Logger;
}

/** Opens a service's pool and brings its schema up to date; closes the pool again if that fails. */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<pg.Pool> {
  const pool = createPgPool({
    url: options.url,
    applicationName: options.applicationName,
    searchPath: options.schema,
    maxConnections: options.maxConnections,
    ...(options.settings ? { settings: options.settings } : {}),
    logger: options.logger,
  });
  try {
    await migrate(pool, options.schema, await loadMigrations(options.migrationsDir, options.schema), options.logger);
    return pool;
  } catch (err) {
    await pool.end();
    throw err;
  }
}
