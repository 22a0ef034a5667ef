// A run's protocol request (migrations/0026): what its protocol's request asked beyond the message,
// recorded by both statements that record a new run and read back with the run.
import { createLogger } from '@platform/service-kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { messageRun } from '../test-support/run-fixtures.js';
import { RunRecords } from './run-records.js';

let pool: pg.Pool;
let records: RunRecords;
const logger = createLogger({ service: 'test', level: 'silent' });
const ASKED = {
  previousResponseId: 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
  textFormat: { type: 'json_schema', name: 'sum', schema: { type: 'object' }, strict: true },
};

beforeAll(async () => {
  pool = await openJournalDatabase('protocol_request', logger, 2);
  records = new RunRecords(pool);
});
afterAll(async () => {
  await pool?.end();
});

describe("a run's protocol request", () => {
  it('is recorded when the run queues, and read back as it was', async () => {
    const run = { ...messageRun('run_pr_queued', 'pr-queued'), protocol: 'responses' as const, protocolRequest: ASKED };
    expect(await records.create(run)).toBe(true);
    expect((await records.get(run.tenantId, run.runId))?.protocolRequest).toEqual(ASKED);
  });

  it('is recorded when the run is admitted and claimed at once', async () => {
    const run = {
      ...messageRun('run_pr_admitted', 'pr-admitted'),
      protocol: 'responses' as const,
      protocolRequest: ASKED,
    };
    expect((await records.admit(run, 'o1', 10_000, 1)).claimed?.runId).toBe(run.runId);
    expect((await records.get(run.tenantId, run.runId))?.protocolRequest).toEqual(ASKED);
  });

  it('is absent for a run whose request asked nothing beyond its message', async () => {
    const run = messageRun('run_pr_none', 'pr-none');
    await records.create(run);
    expect((await records.get(run.tenantId, run.runId))?.protocolRequest).toBeUndefined();
  });
});
