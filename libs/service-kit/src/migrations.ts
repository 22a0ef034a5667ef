import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';
import { ServiceKitError } from './errors.js';

/** One versioned SQL migration. Files are named `<version>_<name>.sql`, e.g. `0001_messages.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export class MigrationError extends ServiceKitError {
  readonly code = 'MIGRATION_FAILED';
  constructor(
    message: string,
    readonly schema: string,
    readonly version?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const FILE_PATTERN = /^(\d+)_([a-z0-9_]+)\.sql$/;

/** Reads every `<version>_<name>.sql` in `dir`, ordered by version; rejects duplicates and stray files. */
export async function loadMigrations(dir: string, schema: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql'));
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new MigrationError(`migration file '${file}' is not named <version>_<name>.sql`, schema);
    migrations.push({ version: Number(match[1]), name: match[2]!, sql: await readFile(path.join(dir, file), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new MigrationError(
        `two migrations share version ${migrations[i]!.version}`,
        schema,
        migrations[i]!.version,
      );
    }
  }
  return migrations;
}

/** The checksum recorded with an applied migration (sha256 of its text). */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

/** The file listing the checksums of landed migrations, next to them. */
export const PINNED_MIGRATIONS_FILE = 'pinned.json';

/**
 * Migrations are append-only once they land: a database that applied one refuses to boot when its
 * file changes. `<dir>/pinned.json` maps each landed file to its checksum; this lists every way
 * the directory departs from it (a pinned file changed or gone, a new file not pinned yet), so a
 * test can fail before a changed migration ships.
 */
export async function pinnedMigrationProblems(dir: string): Promise<string[]> {
  const pinned = JSON.parse(await readFile(path.join(dir, PINNED_MIGRATIONS_FILE), 'utf8')) as Record<string, string>;
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const problems: string[] = [];
  for (const file of files) {
    const sum = migrationChecksum(await readFile(path.join(dir, file), 'utf8'));
    const expected = pinned[file];
    if (expected === undefined)
      problems.push(
        `${file} is not pinned: add "${file}": "${sum}" to ${PINNED_MIGRATIONS_FILE} (then never change the file; write a new migration instead)`,
      );
    else if (expected !== sum)
      problems.push(
        `${file} changed after it was pinned: databases that applied it will refuse to boot; restore it and write a new migration`,
      );
  }
  for (const file of Object.keys(pinned))
    if (!files.includes(file)) problems.push(`${file} is pinned but missing: a landed migration must stay`);
  return problems;
}

/** A stable 63-bit advisory lock key per schema, so replicas of one service serialize and others don't wait. */
function lockKey(schema: string): bigint {
  return BigInt.asIntN(
    64,
    BigInt(`0x${createHash('sha256').update(`migrations:${schema}`).digest('hex').slice(0, 16)}`),
  );
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new MigrationError(`invalid schema name '${name}'`, name);
  return `"${name}"`;
}

/**
 * Applies pending migrations to `schema`, each in its own transaction, recording them in
 * `<schema>.schema_migrations`. A session advisory lock makes concurrent replicas wait for each
 * other, so a migration never runs twice. An applied migration whose file changed is an error.
 */
export async function migrate(
  pool: pg.Pool,
  schema: string,
  migrations: Migration[],
  logger: Logger,
): Promise<number[]> {
  const client = await pool.connect();
  const key = lockKey(schema).toString();
  const s = quoteIdent(schema);
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [key]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number; checksum: string }>(
      `SELECT version, checksum FROM ${s}.schema_migrations`,
    );
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    for (const migration of migrations) {
      const sum = migrationChecksum(migration.sql);
      const recorded = done.get(migration.version);
      if (recorded !== undefined) {
        if (recorded !== sum) {
          throw new MigrationError(
            `migration ${migration.version}_${migration.name} changed after it was applied`,
            schema,
            migration.version,
          );
        }
        continue;
      }
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL search_path TO ${s}`);
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${s}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, [
          migration.version,
          migration.name,
          sum,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new MigrationError(
          `migration ${migration.version}_${migration.name} failed: ${(err as Error).message}`,
          schema,
          migration.version,
          { cause: err },
        );
      }
      applied.push(migration.version);
      logger.info({ schema, version: migration.version, name: migration.name }, 'migration applied');
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
    client.release();
  }
}
