import { fileURLToPath } from 'node:url';
import { createLogger, loadMigrations, migrate } from '@platform/service-kit';
import { createSuiteDatabase } from '@platform/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommonLexemes } from './common-lexemes.js';

const logger = createLogger({ service: 'memory-common-lexemes-test', level: 'silent' });
const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));
let pool: pg.Pool;

beforeAll(async () => {
  const url = await createSuiteDatabase('memory_common_lexemes', { pgvector: false });
  pool = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 2 });
  await migrate(pool, 'memory', await loadMigrations(migrationsDir, 'memory'), logger);
  // 30 facts: each "lives in" a city of its own, a third of them also "plays chess".
  await pool.query(
    `INSERT INTO facts (tenant_id, collection, subject, predicate, object, kind, confidence, origin)
     SELECT 'acme', 'user:x', 'person' || i, CASE WHEN i % 3 = 0 THEN 'plays' ELSE 'lives_in' END, CASE WHEN i % 3 = 0 THEN 'chess' ELSE 'city' || i END, 'fact', 0.9, 'saved'
     FROM generate_series(1, 30) AS i`,
  );
});
afterAll(async () => {
  await pool?.end();
});

const common = (refreshMs: number) => new CommonLexemes(pool, { perTermCandidates: 5, refreshMs, maxTenants: 10 });

describe('CommonLexemes', () => {
  it('finds no common lexeme before the partition has statistics, and keeps that answer for refreshMs', async () => {
    const kept = common(60_000);
    expect(await kept.of('acme')).toEqual([]);
    await pool.query('ANALYZE facts');
    expect(await kept.of('acme')).toEqual([]);
  });

  it('reads the lexemes the statistics estimate in more facts than the per-term cap', async () => {
    const lexemes = await common(0).of('acme');
    expect(lexemes).toEqual(expect.arrayContaining(['live', 'play', 'chess']));
    expect(lexemes).not.toContain('city7');
    expect(lexemes).not.toContain('person7');
  });

  it('finds none for a tenant without current facts', async () => {
    expect(await common(0).of('globex')).toEqual([]);
  });
});
