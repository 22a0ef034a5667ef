// The listing's statements use the indexes of migration 0008 as intended, on a table large enough
// for the planner to care (20,000 runs over 10 tenants, analyzed): a page reads its rows in key
// order from an index and stops, it does not sort the tenant's runs. Plans, not timings.
import type { orchestratorV1 } from '@platform/proto';
import { createLogger } from '@platform/service-kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { runListQueryOf } from './run-list-query.js';
import { RunListing } from './run-listing.js';

let pool: pg.Pool;
const plans: string[] = [];

beforeAll(async () => {
  pool = await openJournalDatabase('run_listing_plans', createLogger({ service: 'test', level: 'silent' }), 2);
  await pool.query(`INSERT INTO runs (run_id, tenant_id, conversation_id, status, stop_reason, created_at, result)
    SELECT 'r' || g, 't' || (g % 10), 'c' || (g % 500), CASE WHEN g % 97 = 0 THEN 'failed' ELSE 'completed' END, 'final_answer',
      timestamptz '2026-01-01' + g * interval '1 second', '{"turns": 1, "toolCalls": []}'
    FROM generate_series(1, 20000) g`);
  await pool.query('ANALYZE runs');
  // The statement the listing sends, explained with the same values before it runs.
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
  (pool as unknown as { query: typeof query }).query = async (text, values) => {
    if (text.trimStart().startsWith('SELECT run_id')) {
      const { rows } = await query(`EXPLAIN (COSTS OFF) ${text}`, values);
      plans.push(rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
    }
    return query(text, values);
  };
});
afterAll(async () => {
  await pool.end();
});

const empty: Omit<orchestratorV1.ListRunsRequest, 'tenantId'> = {
  conversationId: '',
  statuses: [],
  stopReason: '',
  toolName: '',
  source: '',
  createdAfter: undefined,
  createdBefore: undefined,
  parentRunId: '',
  pageSize: 50,
  protocol: '',
  pageToken: '',
};

/** The plans of a listing's first page and the page after it. */
async function plansOf(filters: Partial<orchestratorV1.ListRunsRequest>): Promise<[string, string]> {
  const listing = new RunListing(pool);
  const request = { ...empty, tenantId: 't3', ...filters };
  const first = await listing.list(runListQueryOf(request));
  expect(first.nextPageToken).not.toBe('');
  await listing.list(runListQueryOf({ ...request, pageToken: first.nextPageToken }));
  return [plans.at(-2)!, plans.at(-1)!];
}

describe('the run listing plans', () => {
  it('walks runs_by_tenant_created in page order, the page token an index condition', async () => {
    const [first, next] = await plansOf({});
    for (const plan of [first, next]) {
      expect(plan).toContain('Index Scan using runs_by_tenant_created');
      expect(plan).not.toContain('Sort');
    }
    expect(next).toMatch(/Index Cond: .*ROW\(created_at, run_id\) </);
  });

  it('finds a rare status through runs_by_status_created, and a conversation through runs_by_conversation_created', async () => {
    for (const plan of await plansOf({ statuses: ['failed'], pageSize: 5 }))
      expect(plan).toContain('runs_by_status_created');
    for (const plan of await plansOf({ conversationId: 'c3', pageSize: 5 }))
      expect(plan).toContain('runs_by_conversation_created');
  });
});
