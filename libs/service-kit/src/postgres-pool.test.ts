// A connection that dies while its client is checked out (its holder awaiting other I/O between
// two queries) must not end the process: the client's error is logged, the next query rejects,
// and the pool replaces the broken client. Found by test/chaos (memory crashed on a reset).
import { createSuiteDatabase } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { createPgPool } from './postgres.js';

let url: string;
let pool: pg.Pool;
let admin: pg.Pool;
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  url = await createSuiteDatabase('pgpool');
  pool = createPgPool({ url, applicationName: 'pool-test', logger, maxConnections: 2 });
  admin = createPgPool({ url, applicationName: 'pool-test-admin', logger, maxConnections: 1 });
});
afterAll(async () => {
  await pool.end();
  await admin.end();
});

describe('createPgPool', () => {
  it('survives a checked-out client losing its connection, and serves again', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => void uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Waits for the connection's end, not its error: a listener of our own would hide a missing one.
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      // The server ends the connection while the client sits checked out with no query running.
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('starts every connection with the search path and settings it was given, and refuses unsafe ones', async () => {
    const tuned = createPgPool({
      url,
      applicationName: 'pool-test-settings',
      logger,
      maxConnections: 2,
      searchPath: 'public',
      settings: { 'pg_trgm.word_similarity_threshold': '0.7', work_mem: '8MB' },
    });
    try {
      const { rows } = await tuned.query<{ threshold: string; work_mem: string; search_path: string }>(
        `SELECT current_setting('pg_trgm.word_similarity_threshold') AS threshold, current_setting('work_mem') AS work_mem, current_setting('search_path') AS search_path`,
      );
      expect(rows[0]).toEqual({ threshold: '0.7', work_mem: '8MB', search_path: 'public' });
    } finally {
      await tuned.end();
    }
    expect(() =>
      createPgPool({ url, applicationName: 'x', logger, settings: { work_mem: '8MB -c fsync=off' } }),
    ).toThrow(/must be letters/);
  });
});
