// Text Postgres cannot store is the caller's input, not the service's fault: the gRPC edge of
// every service answers it as INVALID_ARGUMENT INVALID_CONTENT (the api maps that to 400), never
// as INTERNAL (500). The errors are real ones, from a real Postgres.
import { status } from '@grpc/grpc-js';
import { createSuiteDatabase } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromGrpcError, toGrpcError } from './grpc-status.js';
import { createLogger } from './logger.js';
import { createPgPool } from './postgres.js';
import { isUnstorableText } from './unstorable-text.js';

let pool: pg.Pool;

beforeAll(async () => {
  pool = createPgPool({
    url: await createSuiteDatabase('unstorable'),
    applicationName: 'unstorable-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
    maxConnections: 1,
  });
});
afterAll(async () => pool.end());

async function refusal(text: string, values: unknown[]): Promise<unknown> {
  return pool.query(text, values).then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe('text the database cannot store', () => {
  it.each([
    ['NUL in a text value', 'SELECT $1::text', ['a\u0000b'], '22021'],
    ['NUL escaped in jsonb', 'SELECT $1::jsonb', ['{"name":"a\\u0000b"}'], '22P05'],
  ])('%s is answered INVALID_ARGUMENT INVALID_CONTENT', async (_what, sql, values, sqlState) => {
    const error = await refusal(sql, values);
    expect((error as { code?: string }).code).toBe(sqlState);
    expect(isUnstorableText(error)).toBe(true);
    const grpcError = toGrpcError(error);
    expect(grpcError.code).toBe(status.INVALID_ARGUMENT);
    expect(fromGrpcError(grpcError)).toMatchObject({ kind: 'invalid_argument', code: 'INVALID_CONTENT' });
  });

  it('leaves other database errors internal', async () => {
    const error = await refusal('SELECT * FROM no_such_table', []);
    expect(isUnstorableText(error)).toBe(false);
    expect(toGrpcError(error).code).toBe(status.INTERNAL);
  });
});
