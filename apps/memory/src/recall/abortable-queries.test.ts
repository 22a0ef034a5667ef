import { createSuiteDatabase } from '@platform/testing/vitest';
import { createLogger } from '@platform/service-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abortableQueries } from './abortable-queries.js';
import { RecallEngine, type RecallSettings } from './recall-engine.js';

// A recall whose caller gave up (its gRPC deadline passed) starts no further statement: not before
// it waits for a pooled connection, not after it got one; a statement already running finishes.
const gaveUp = new Error('the caller gave up');
let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({
    connectionString: await createSuiteDatabase('memory_abortable_queries', { pgvector: false }),
    max: 1,
  });
  await pool.query('CREATE TABLE ran (n int)');
});

afterAll(async () => {
  await pool?.end();
});

const ranCount = async () => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM ran')).rows[0]!.n);

describe('abortableQueries', () => {
  it('runs statements while the signal has not aborted', async () => {
    const db = abortableQueries(pool, new AbortController().signal);
    await db.query('INSERT INTO ran VALUES ($1)', [1]);
    expect(await ranCount()).toBe(1);
  });

  it('starts nothing once the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort(gaveUp);
    await expect(abortableQueries(pool, controller.signal).query('INSERT INTO ran VALUES (2)')).rejects.toBe(gaveUp);
    expect(await ranCount()).toBe(1);
  });

  it('drops a statement that was waiting for a connection when the signal aborted, and hands the connection on', async () => {
    const holder = await pool.connect();
    const controller = new AbortController();
    const waiting = abortableQueries(pool, controller.signal).query('INSERT INTO ran VALUES (3)');
    controller.abort(gaveUp);
    holder.release();
    await expect(waiting).rejects.toBe(gaveUp);
    expect(await ranCount()).toBe(1);
    expect(pool.idleCount).toBe(1);
  });

  it('is the pool itself without a signal', () => {
    expect(abortableQueries(pool, undefined)).toBe(pool);
  });
});

describe('a recall whose caller already gave up', () => {
  it('rejects with the reason before touching the database or the embeddings endpoint', async () => {
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the pool was used');
        },
      },
    ) as pg.Pool;
    const engine = new RecallEngine(
      untouchable,
      undefined,
      {} as RecallSettings,
      createLogger({ service: 'test', level: 'silent' }),
    );
    const controller = new AbortController();
    controller.abort(gaveUp);
    await expect(
      engine.recall(
        {
          tenantId: 't',
          query: 'where does Alice live',
          collectionPrefix: '',
          limit: 8,
          tokenBudget: 0,
          conversationId: '',
          includeEpisodes: true,
        },
        controller.signal,
      ),
    ).rejects.toBe(gaveUp);
  });
});
