import type { orchestratorV1 } from '@platform/proto';
import type pg from 'pg';
import type { RunStatus } from '../journal/run-types.js';
import type { RunListFilters, RunListQuery, RunListSource } from './run-list-query.js';
import { decodeRunPageToken, encodeRunPageToken } from './run-page-token.js';

/**
 * Who started a run, from its columns: another run's delegation (`parent_run_id`, migration 0007),
 * a trigger task's fire (`source`, 0005), a platform notice (`kind` 'agent_expired', 0002), or
 * else a user. The source filter compares this same expression, so listing and filter agree.
 */
const SOURCE_SQL = `CASE WHEN parent_run_id IS NOT NULL THEN 'child'
  WHEN source->>'kind' = 'trigger' THEN 'trigger'
  WHEN kind = 'agent_expired' THEN 'notice'
  ELSE 'user' END`;

interface ListedRow {
  run_id: string;
  conversation_id: string;
  status: RunStatus;
  stop_reason: string | null;
  source: RunListSource;
  parent_run_id: string | null;
  profile: string;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  trace_id: string | null;
  turns: number | null;
  tool_calls: number | null;
  input_tokens: string | null;
  output_tokens: string | null;
  total_tokens: string | null;
  created_micros: string;
  replay_of: string | null;
  replay_from_step: number | null;
  protocol: string | null;
}

/** The WHERE clause of a listing, its values numbered from $1 (the tenant, always first). */
function whereOf(tenantId: string, filters: RunListFilters): { conditions: string[]; values: unknown[] } {
  const values: unknown[] = [tenantId];
  const conditions = ['tenant_id = $1'];
  const add = (sql: (param: string) => string, value: unknown): void => {
    values.push(value);
    conditions.push(sql(`$${values.length}`));
  };
  if (filters.conversationId) add((p) => `conversation_id = ${p}`, filters.conversationId);
  if (filters.statuses) add((p) => `status = ANY(${p}::text[])`, filters.statuses);
  if (filters.stopReason) add((p) => `stop_reason = ${p}`, filters.stopReason);
  if (filters.source) add((p) => `(${SOURCE_SQL}) = ${p}`, filters.source);
  if (filters.createdAfter) add((p) => `created_at >= ${p}`, filters.createdAfter);
  if (filters.createdBefore) add((p) => `created_at < ${p}`, filters.createdBefore);
  if (filters.parentRunId) add((p) => `parent_run_id = ${p}`, filters.parentRunId);
  if (filters.protocol) add((p) => `protocol = ${p}`, filters.protocol);
  // The calls the model made, as journaled with each model response (run_steps, migration 0002):
  // one probe of the run_steps primary key per run the scan reaches (see migration 0008).
  if (filters.toolName) {
    add(
      (p) => `EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = runs.run_id AND s.kind = 'model'
        AND s.payload->'message'->'toolCalls' @> jsonb_build_array(jsonb_build_object('name', ${p}::text)))`,
      filters.toolName,
    );
  }
  return { conditions, values };
}

function toItem(row: ListedRow): orchestratorV1.RunListItem {
  return {
    runId: row.run_id,
    conversationId: row.conversation_id,
    status: row.status,
    stopReason: row.stop_reason ?? '',
    source: row.source,
    parentRunId: row.parent_run_id ?? '',
    profile: row.profile,
    createdAt: row.created_at,
    startedAt: row.started_at ?? undefined,
    finishedAt: row.finished_at ?? undefined,
    traceId: row.trace_id ?? '',
    turns: row.turns ?? 0,
    toolCalls: row.tool_calls ?? 0,
    usage: {
      inputTokens: Number(row.input_tokens ?? 0),
      outputTokens: Number(row.output_tokens ?? 0),
      totalTokens: Number(row.total_tokens ?? 0),
    },
    replayOf: row.replay_of ?? '',
    replayFromStep: row.replay_from_step ?? 0,
    ...(row.protocol ? { protocol: row.protocol } : {}),
  };
}

/** A tenant's runs, newest first, filtered and paged by keyset on (created_at, run_id). */
export class RunListing {
  constructor(private readonly pool: pg.Pool) {}

  async list(query: RunListQuery): Promise<orchestratorV1.ListRunsResponse> {
    const { tenantId, filters, pageSize } = query;
    const after = decodeRunPageToken(query.pageToken, tenantId, filters);
    const { conditions, values } = whereOf(tenantId, filters);
    if (after) {
      values.push(after.createdMicros, after.runId);
      const [micros, runId] = [`$${values.length - 1}`, `$${values.length}`];
      conditions.push(
        `(created_at, run_id) < (timestamptz 'epoch' + ${micros}::bigint * interval '1 microsecond', ${runId}::text)`,
      );
    }
    values.push(pageSize + 1);
    // Built per request with only the filters given, so each listing is planned for its own
    // filters (an index fits `tenant_id = $1 AND conversation_id = $2`, not `$2 IS NULL OR ...`).
    const { rows } = await this.pool.query<ListedRow>(
      `SELECT run_id, conversation_id, status, stop_reason, (${SOURCE_SQL}) AS source, parent_run_id, profile,
         created_at, started_at, finished_at, trace_id, replay_of, replay_from_step, protocol,
         (result->>'turns')::int AS turns, jsonb_array_length(result->'toolCalls') AS tool_calls,
         result->'usage'->>'inputTokens' AS input_tokens, result->'usage'->>'outputTokens' AS output_tokens, result->'usage'->>'totalTokens' AS total_tokens,
         (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_micros
       FROM runs WHERE ${conditions.join(' AND ')}
       ORDER BY created_at DESC, run_id DESC
       LIMIT $${values.length}`,
      values,
    );
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    const nextPageToken =
      rows.length > pageSize && last
        ? encodeRunPageToken(tenantId, filters, { createdMicros: last.created_micros, runId: last.run_id })
        : '';
    return { runs: page.map(toItem), nextPageToken };
  }
}
