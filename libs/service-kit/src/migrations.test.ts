import { createSuiteDatabase } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { migrate, MigrationError, type Migration } from './migrations.js';
import { createPgPool } from './postgres.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let pool: pg.Pool;

beforeAll(async () => {
  pool = createPgPool({ url: await createSuiteDatabase('migrations'), applicationName: 'test', logger, maxConnections: 6 });
});
afterAll(async () => pool.end());

const first: Migration = { version: 1, name: 'widgets', sql: 'CREATE TABLE widgets (id int PRIMARY KEY)' };
const second: Migration = { version: 2, name: 'widget_names', sql: 'ALTER TABLE widgets ADD COLUMN name text' };

describe('migrate', () => {
  it('applies each migration exactly once even when replicas race', async () => {
    const results = await Promise.all([1, 2, 3].map(() => migrate(pool, 'race', [first, second], logger)));
    expect(results.flat().sort()).toEqual([1, 2]);
    const { rows } = await pool.query<{ version: number }>('SELECT version FROM race.schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual([1, 2]);
    await pool.query('INSERT INTO race.widgets (id, name) VALUES (1, $1)', ['a']);
  });

  it('applies only the new migrations on a later boot', async () => {
    await migrate(pool, 'later', [first], logger);
    expect(await migrate(pool, 'later', [first, second], logger)).toEqual([2]);
  });

  it('refuses to run when an applied migration was edited', async () => {
    await migrate(pool, 'edited', [first], logger);
    const edited = { ...first, sql: 'CREATE TABLE widgets (id bigint PRIMARY KEY)' };
    await expect(migrate(pool, 'edited', [edited], logger)).rejects.toThrow(/changed after it was applied/);
  });

  it('rolls back a failing migration and records nothing for it', async () => {
    const broken: Migration = { version: 2, name: 'broken', sql: 'ALTER TABLE no_such_table ADD COLUMN x int' };
    const error = await migrate(pool, 'broken', [first, broken], logger).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).version).toBe(2);
    const { rows } = await pool.query<{ version: number }>('SELECT version FROM broken.schema_migrations');
    expect(rows.map((r) => r.version)).toEqual([1]);
  });
});
