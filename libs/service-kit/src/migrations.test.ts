import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSuiteDatabase } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import {
  migrate,
  migrationChecksum,
  MigrationError,
  PINNED_MIGRATIONS_FILE,
  pinnedMigrationProblems,
  type Migration,
} from './migrations.js';
import { createPgPool } from './postgres.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let pool: pg.Pool;

beforeAll(async () => {
  pool = createPgPool({
    url: await createSuiteDatabase('migrations'),
    applicationName: 'test',
    logger,
    maxConnections: 6,
  });
});
afterAll(async () => pool.end());

const first: Migration = { version: 1, name: 'widgets', sql: 'CREATE TABLE widgets (id int PRIMARY KEY)' };
const second: Migration = { version: 2, name: 'widget_names', sql: 'ALTER TABLE widgets ADD COLUMN name text' };

describe('migrate', () => {
  it('applies each migration exactly once even when replicas race', async () => {
    const results = await Promise.all([1, 2, 3].map(() => migrate(pool, 'race', [first, second], logger)));
    expect(results.flat().sort()).toEqual([1, 2]);
    const { rows } = await pool.query<{ version: number }>(
      'SELECT version FROM race.schema_migrations ORDER BY version',
    );
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

describe('pinnedMigrationProblems', () => {
  const sql = 'CREATE TABLE widgets (id int PRIMARY KEY)';
  const made: string[] = [];
  afterAll(async () => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));
  async function directory(files: Record<string, string>, pinned: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'pinned-'));
    made.push(dir);
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    await writeFile(path.join(dir, PINNED_MIGRATIONS_FILE), JSON.stringify(pinned));
    return dir;
  }

  it('finds nothing when every migration is pinned with its checksum', async () => {
    expect(
      await pinnedMigrationProblems(
        await directory({ '0001_widgets.sql': sql }, { '0001_widgets.sql': migrationChecksum(sql) }),
      ),
    ).toEqual([]);
  });

  it('names a pinned migration that changed, one that is gone, and a new one not pinned yet', async () => {
    const dir = await directory(
      { '0001_widgets.sql': `${sql};\n-- edited`, '0003_new.sql': 'SELECT 1' },
      { '0001_widgets.sql': migrationChecksum(sql), '0002_gone.sql': migrationChecksum('SELECT 2') },
    );
    const problems = await pinnedMigrationProblems(dir);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^0001_widgets\.sql changed after it was pinned/);
    expect(problems[1]).toContain(`0003_new.sql is not pinned: add "0003_new.sql": "${migrationChecksum('SELECT 1')}"`);
    expect(problems[2]).toMatch(/^0002_gone\.sql is pinned but missing/);
  });
});
