// Listing runs (ListRuns) against a real Postgres: each filter, keyset paging across pages (ties
// on created_at included), tenant scoping, refused page tokens and page-size bounds.
import type { ModelResponse } from '@platform/agent-loop';
import type { orchestratorV1 } from '@platform/proto';
import { createLogger, isPlatformError } from '@platform/service-kit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunRecords, type NewRun, type RunStatus } from '../journal/run-records.js';
import { RunSteps } from '../journal/run-steps.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { answeredResult, messageRun } from '../test-support/run-fixtures.js';
import { runListQueryOf } from './run-list-query.js';
import { RunListing } from './run-listing.js';

let pool: pg.Pool;
let records: RunRecords;
let steps: RunSteps;
let listing: RunListing;
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  pool = await openJournalDatabase('run_listing', logger, 5);
  records = new RunRecords(pool);
  steps = new RunSteps(pool);
  listing = new RunListing(pool);
});
afterAll(async () => {
  await pool.end();
});

/** What the ListRuns handler does with a request (orchestrator-service.ts). */
async function list(
  request: Partial<orchestratorV1.ListRunsRequest> & { tenantId: string },
): Promise<orchestratorV1.ListRunsResponse> {
  const empty = {
    conversationId: '',
    statuses: [],
    stopReason: '',
    toolName: '',
    source: '',
    createdAfter: undefined,
    createdBefore: undefined,
    parentRunId: '',
    pageSize: 0,
    pageToken: '',
    protocol: '',
  };
  return listing.list(runListQueryOf({ ...empty, ...request }));
}

async function ids(request: Partial<orchestratorV1.ListRunsRequest> & { tenantId: string }): Promise<string[]> {
  return (await list(request)).runs.map((r) => r.runId);
}

async function refusal(
  request: Partial<orchestratorV1.ListRunsRequest> & { tenantId: string },
): Promise<{ code: string; message: string; details: unknown }> {
  const error: unknown = await list(request).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isPlatformError(error) || error.kind !== 'invalid_argument')
    throw new Error(`expected INVALID_ARGUMENT, got ${String(error)}`);
  return { code: error.code, message: error.message, details: error.details };
}

/** Sets a run's creation time (so the order and ties are the test's own). */
async function createdAt(runId: string, at: string): Promise<void> {
  await pool.query('UPDATE runs SET created_at = $2 WHERE run_id = $1', [runId, at]);
}

/** Records the run (alone in its conversation), claims it, and finishes it with `status` and `stopReason`. */
async function finish(
  run: NewRun,
  status: RunStatus,
  stopReason = 'final_answer',
  calls: string[] = [],
): Promise<void> {
  await records.create(run);
  const claimed = (await records.claimNext(run.tenantId, run.conversationId, 'o1', 10_000, 1)).claimed!;
  if (calls.length > 0) await steps.recordModels({ ...run, epoch: claimed.epoch }, [[0, modelCalling(calls)]]);
  await records.finish(claimed, status, {
    ...answeredResult(run.runId, { inputTokens: 3, outputTokens: 4 }),
    stopReason: stopReason as 'final_answer',
  });
}

function modelCalling(names: string[]): ModelResponse {
  return {
    message: {
      role: 'assistant',
      content: null,
      toolCalls: names.map((name, i) => ({ id: `call_${i}`, name, arguments: '{}' })),
    },
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    finishReason: 'tool_calls',
  };
}

describe('ListRuns filters', () => {
  const tenantId = 'filters';
  const run = (runId: string, conversationId = `conv-${runId}`): NewRun => messageRun(runId, conversationId, tenantId);

  beforeAll(async () => {
    await records.create(run('f-queued', 'shared'));
    await finish({ ...run('f-done'), protocol: 'mcp' }, 'completed', 'final_answer', ['search']);
    await finish(run('f-failed'), 'failed', 'model_error');
    await finish({ ...run('f-max'), protocol: 'rest' }, 'completed', 'max_turns', ['calculator', 'search']);
    await records.create({
      ...run('f-trigger'),
      source: { kind: 'trigger', taskId: 'task_00000000-0000-4000-8000-000000000001', triggerType: 'schedule' },
    });
    await records.create({
      ...run('f-child', 'delegation:f-child'),
      lineage: { parentRunId: 'f-done', parentCallId: 'call_9', chain: ['default', 'researcher'] },
    });
    await records.create({ ...run('f-notice', 'shared-2'), kind: 'agent_expired' });
    // A live run whose model called a tool: the journal has it before the run ends.
    const live = run('f-live');
    await records.create(live);
    const claimed = (await records.claimNext(tenantId, live.conversationId, 'o1', 10_000, 1)).claimed!;
    await steps.recordModels({ ...live, epoch: claimed.epoch }, [[0, modelCalling(['browser'])]]);
    const order = ['f-queued', 'f-done', 'f-failed', 'f-max', 'f-trigger', 'f-child', 'f-notice', 'f-live'];
    for (const [i, runId] of order.entries()) await createdAt(runId, `2026-01-01T00:00:0${i}Z`);
  });

  it('lists every run of the tenant newest first, with its summary', async () => {
    expect(await ids({ tenantId })).toEqual([
      'f-live',
      'f-notice',
      'f-child',
      'f-trigger',
      'f-max',
      'f-failed',
      'f-done',
      'f-queued',
    ]);
    const done = (await list({ tenantId })).runs.find((r) => r.runId === 'f-done')!;
    expect(done).toMatchObject({
      conversationId: 'conv-f-done',
      status: 'completed',
      stopReason: 'final_answer',
      source: 'user',
      parentRunId: '',
      profile: 'default',
      turns: 1,
      toolCalls: 0,
    });
    expect(done.usage).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
    expect(done.createdAt).toEqual(new Date('2026-01-01T00:00:01Z'));
    expect(done.startedAt).toBeInstanceOf(Date);
    expect(done.finishedAt).toBeInstanceOf(Date);
    const queued = (await list({ tenantId })).runs.find((r) => r.runId === 'f-queued')!;
    expect(queued).toMatchObject({
      status: 'queued',
      stopReason: '',
      turns: 0,
      startedAt: undefined,
      finishedAt: undefined,
    });
  });

  it('filters by conversation, status (one or several), stop reason and parent run', async () => {
    expect(await ids({ tenantId, conversationId: 'shared' })).toEqual(['f-queued']);
    expect(await ids({ tenantId, statuses: ['failed'] })).toEqual(['f-failed']);
    expect(await ids({ tenantId, statuses: ['running', 'failed'] })).toEqual(['f-live', 'f-failed']);
    expect(await ids({ tenantId, stopReason: 'max_turns' })).toEqual(['f-max']);
    expect(await ids({ tenantId, parentRunId: 'f-done' })).toEqual(['f-child']);
    expect(await ids({ tenantId, conversationId: 'nobody' })).toEqual([]);
  });

  it('filters by a tool the model called, live runs included', async () => {
    expect(await ids({ tenantId, toolName: 'search' })).toEqual(['f-max', 'f-done']);
    expect(await ids({ tenantId, toolName: 'browser' })).toEqual(['f-live']);
    expect(await ids({ tenantId, toolName: 'calculator', statuses: ['completed'] })).toEqual(['f-max']);
    expect(await ids({ tenantId, toolName: 'never-called' })).toEqual([]);
  });

  it('filters by source: user, trigger, child or notice', async () => {
    expect(await ids({ tenantId, source: 'trigger' })).toEqual(['f-trigger']);
    expect(await ids({ tenantId, source: 'child' })).toEqual(['f-child']);
    expect(await ids({ tenantId, source: 'notice' })).toEqual(['f-notice']);
    expect(await ids({ tenantId, source: 'user' })).toEqual(['f-live', 'f-max', 'f-failed', 'f-done', 'f-queued']);
    expect((await list({ tenantId, source: 'child' })).runs[0]).toMatchObject({
      source: 'child',
      parentRunId: 'f-done',
    });
  });

  it('filters by the protocol the message came in by, and shows it', async () => {
    expect(await ids({ tenantId, protocol: 'mcp' })).toEqual(['f-done']);
    expect(await ids({ tenantId, protocol: 'rest' })).toEqual(['f-max']);
    expect(await ids({ tenantId, protocol: 'a2a' })).toEqual([]);
    const runs = (await list({ tenantId })).runs;
    expect(runs.find((r) => r.runId === 'f-done')?.protocol).toBe('mcp');
    // A run whose message the platform sent itself (a trigger's fire) has none.
    expect(runs.find((r) => r.runId === 'f-trigger')?.protocol).toBeUndefined();
    expect((await records.get(tenantId, 'f-done'))?.protocol).toBe('mcp');
  });

  it('filters by creation time: at or after created_after, strictly before created_before', async () => {
    const after = new Date('2026-01-01T00:00:02Z');
    const before = new Date('2026-01-01T00:00:05Z');
    expect(await ids({ tenantId, createdAfter: after, createdBefore: before })).toEqual([
      'f-trigger',
      'f-max',
      'f-failed',
    ]);
    expect(await ids({ tenantId, createdAfter: new Date('2026-01-01T00:00:07Z') })).toEqual(['f-live']);
    expect(await ids({ tenantId, createdBefore: new Date('2026-01-01T00:00:01Z') })).toEqual(['f-queued']);
  });

  it('shows another tenant nothing, with or without filters', async () => {
    expect(await ids({ tenantId: 'someone-else' })).toEqual([]);
    expect(await ids({ tenantId: 'someone-else', toolName: 'search' })).toEqual([]);
    expect(await ids({ tenantId: 'someone-else', parentRunId: 'f-done' })).toEqual([]);
  });
});

describe('ListRuns paging', () => {
  const tenantId = 'paging';
  const all: string[] = [];

  beforeAll(async () => {
    // 23 runs; groups of them share a creation time to the microsecond (ties broken by run id),
    // and two differ by one microsecond only, which a millisecond cursor would lose.
    for (let i = 0; i < 23; i++) {
      const runId = `p-${String(i).padStart(2, '0')}`;
      await records.create(messageRun(runId, `conv-${i % 4}`, tenantId));
      await createdAt(
        runId,
        i < 10
          ? '2026-02-01T00:00:00.000001Z'
          : i < 12
            ? `2026-02-01T00:00:00.00000${i - 8}Z`
            : `2026-02-01T00:00:${String(i).padStart(2, '0')}Z`,
      );
    }
    await records.create(messageRun('other-tenant-run', 'conv-0', 'paging-other'));
    const { rows } = await pool.query<{ run_id: string }>(
      'SELECT run_id FROM runs WHERE tenant_id = $1 ORDER BY created_at DESC, run_id DESC',
      [tenantId],
    );
    all.push(...rows.map((r) => r.run_id));
  });

  async function walk(
    pageSize: number,
    filters: Partial<orchestratorV1.ListRunsRequest> = {},
  ): Promise<{ seen: string[]; pages: number }> {
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await list({ tenantId, pageSize, pageToken, ...filters });
      pages += 1;
      expect(page.runs.length).toBeLessThanOrEqual(pageSize);
      seen.push(...page.runs.map((r) => r.runId));
      pageToken = page.nextPageToken;
    } while (pageToken && pages < 100);
    return { seen, pages };
  }

  it('walks every run exactly once, in order, across pages with ties on created_at', async () => {
    expect(all).toHaveLength(23);
    for (const pageSize of [1, 4, 5, 22, 23, 200]) {
      const { seen, pages } = await walk(pageSize);
      expect(seen).toEqual(all);
      expect(pages).toBe(Math.max(1, Math.ceil(23 / pageSize)));
    }
  });

  it('pages a filtered listing with the same filters', async () => {
    const { seen } = await walk(2, { conversationId: 'conv-1' });
    expect(seen).toEqual(all.filter((id) => Number(id.slice(2)) % 4 === 1));
  });

  it('has no next page token on the last page', async () => {
    expect((await list({ tenantId, pageSize: 23 })).nextPageToken).toBe('');
    expect((await list({ tenantId, pageSize: 22 })).nextPageToken).not.toBe('');
  });

  it("refuses a token that was altered, cut, made up, or is another tenant's or another listing's", async () => {
    const token = (await list({ tenantId, pageSize: 3 })).nextPageToken;
    const [payload, check] = token.split('.') as [string, string];
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...body, r: 'p-00' }), 'utf8').toString('base64url');
    for (const bad of [`${forged}.${check}`, token.slice(0, -2), payload, 'garbage', `${token}.x`]) {
      expect(await refusal({ tenantId, pageToken: bad })).toMatchObject({
        code: 'INVALID_PAGE_TOKEN',
        details: { field: 'page_token' },
        message: expect.stringContaining('page_token is not one ListRuns returned'),
      });
    }
    expect(await refusal({ tenantId: 'paging-other', pageToken: token })).toMatchObject({
      code: 'INVALID_PAGE_TOKEN',
      message: expect.stringContaining('another tenant'),
    });
    expect(await refusal({ tenantId, pageToken: token, statuses: ['queued'] })).toMatchObject({
      code: 'INVALID_PAGE_TOKEN',
      message: expect.stringContaining('other filters'),
    });
  });

  it('takes page sizes 1-200 (0 means 50) and names page_size otherwise', async () => {
    expect((await list({ tenantId, pageSize: 200 })).runs).toHaveLength(23);
    for (const pageSize of [-1, 201, 10_000]) {
      expect(await refusal({ tenantId, pageSize })).toMatchObject({
        code: 'INVALID_PAGE_SIZE',
        details: { field: 'page_size' },
        message: expect.stringContaining('page_size must be 1-200'),
      });
    }
  });
});

describe('ListRuns request checks', () => {
  it('names the bad field with a typed INVALID_ARGUMENT', async () => {
    expect(await refusal({ tenantId: 'not a tenant!' })).toMatchObject({ code: 'INVALID_TENANT_ID' });
    expect(await refusal({ tenantId: 'acme', statuses: ['done'] })).toMatchObject({
      code: 'INVALID_STATUS',
      details: { field: 'statuses' },
    });
    expect(await refusal({ tenantId: 'acme', source: 'robot' })).toMatchObject({
      code: 'INVALID_SOURCE',
      details: { field: 'source' },
    });
    expect(await refusal({ tenantId: 'acme', protocol: 'smtp' })).toMatchObject({
      code: 'INVALID_PROTOCOL',
      details: { field: 'protocol' },
    });
    expect(await refusal({ tenantId: 'acme', stopReason: 'bored' })).toMatchObject({
      code: 'INVALID_STOP_REASON',
      details: { field: 'stop_reason' },
    });
    expect(await refusal({ tenantId: 'acme', conversationId: 'a b' })).toMatchObject({
      code: 'INVALID_CONVERSATION_ID',
      details: { field: 'conversation_id' },
    });
    expect(await refusal({ tenantId: 'acme', parentRunId: 'x/y' })).toMatchObject({
      code: 'INVALID_PARENT_RUN_ID',
      details: { field: 'parent_run_id' },
    });
    expect(await refusal({ tenantId: 'acme', toolName: 'x'.repeat(129) })).toMatchObject({
      code: 'INVALID_TOOL_NAME',
      details: { field: 'tool_name' },
    });
    const at = new Date('2026-01-01T00:00:00Z');
    expect(await refusal({ tenantId: 'acme', createdAfter: at, createdBefore: at })).toMatchObject({
      code: 'INVALID_TIME_RANGE',
      details: { field: 'created_after' },
    });
  });
});
