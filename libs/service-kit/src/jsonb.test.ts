import { createSuiteDatabase } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonbText } from './jsonb.js';
import { createLogger } from './logger.js';
import { createPgPool } from './postgres.js';

let pool: pg.Pool;
beforeAll(async () => {
  pool = createPgPool({
    url: await createSuiteDatabase('jsonb'),
    applicationName: 'jsonb-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});
afterAll(async () => {
  await pool.end();
});

const stored = async (value: unknown): Promise<unknown> =>
  (await pool.query<{ v: unknown }>('SELECT $1::jsonb AS v', [jsonbText(value)])).rows[0]!.v;

describe('jsonbText', () => {
  it('writes values as JSON.stringify does when jsonb takes them', async () => {
    const value = { text: 'plain, "quoted", emoji 😀, a backslash \\u0000 as text', n: [1, 2.5, null], ok: true };
    expect(jsonbText(value)).toBe(JSON.stringify(value));
    expect(await stored(value)).toEqual(value);
  });

  it('replaces U+0000 and unpaired surrogates (which jsonb refuses) with U+FFFD, anywhere in the value', async () => {
    const value = { content: 'a\u0000b', nested: [{ half: `x${'😀'.slice(0, 1)}y`, low: '\uDE00z' }] };
    await expect(pool.query('SELECT $1::jsonb', [JSON.stringify(value)])).rejects.toThrow();
    expect(await stored(value)).toEqual({ content: 'a\uFFFDb', nested: [{ half: 'x\uFFFDy', low: '\uFFFDz' }] });
  });
});
