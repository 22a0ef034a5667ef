import { jsonbText } from '@platform/service-kit';
import type pg from 'pg';

/** `running` until the call ends, then its outcome as the loop's tool results have it (`invalid`: the runner refused the arguments). */
type ToolCallStatus = 'running' | 'success' | 'failed' | 'invalid' | 'timeout' | 'denied' | 'cancelled';

/** A tool call a client tried directly (CallTool), as journaled. */
export interface ToolCallRecord {
  tenantId: string;
  callId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  subject: string;
  status: ToolCallStatus;
  runner: string;
  /** A successful call's output (undefined until then). */
  output: unknown;
  truncated: boolean;
  errorCode: string;
  errorMessage: string;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date | null;
}

export type NewToolCall = Pick<ToolCallRecord, 'tenantId' | 'callId' | 'toolName' | 'arguments' | 'subject' | 'runner'>;
export type ToolCallOutcome = Pick<
  ToolCallRecord,
  'status' | 'output' | 'truncated' | 'errorCode' | 'errorMessage' | 'durationMs'
>;

interface ToolCallRow {
  tenant_id: string;
  call_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  subject: string;
  status: ToolCallStatus;
  runner: string;
  output: unknown;
  truncated: boolean;
  error_code: string;
  error_message: string;
  duration_ms: number;
  started_at: Date;
  finished_at: Date | null;
}

function toRecord(row: ToolCallRow): ToolCallRecord {
  return {
    tenantId: row.tenant_id,
    callId: row.call_id,
    toolName: row.tool_name,
    arguments: row.arguments,
    subject: row.subject,
    status: row.status,
    runner: row.runner,
    output: row.output ?? undefined,
    truncated: row.truncated,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    durationMs: row.duration_ms,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** The journal of tried tool calls (migration 0009); every read is scoped by tenant. */
export class ToolCallRecords {
  constructor(private readonly pool: pg.Pool) {}

  /** Records a call before it is sent; when the tenant already has a call with this id, that one is returned (`created` false). */
  async start(call: NewToolCall): Promise<{ created: boolean; record: ToolCallRecord }> {
    const { rows } = await this.pool.query<ToolCallRow>({
      name: 'tool-calls-start',
      text: `INSERT INTO tool_calls (tenant_id, call_id, tool_name, arguments, subject, runner) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (tenant_id, call_id) DO NOTHING RETURNING *`,
      values: [call.tenantId, call.callId, call.toolName, jsonbText(call.arguments), call.subject, call.runner],
    });
    if (rows[0]) return { created: true, record: toRecord(rows[0]) };
    const existing = await this.get(call.tenantId, call.callId);
    if (!existing) throw new Error(`tool call ${call.callId} neither inserted nor found`);
    return { created: false, record: existing };
  }

  /** Records a started call's outcome. */
  async finish(tenantId: string, callId: string, outcome: ToolCallOutcome): Promise<ToolCallRecord> {
    const { rows } = await this.pool.query<ToolCallRow>({
      name: 'tool-calls-finish',
      text: `UPDATE tool_calls SET status = $3, output = $4, truncated = $5, error_code = $6, error_message = $7, duration_ms = $8, finished_at = clock_timestamp()
             WHERE tenant_id = $1 AND call_id = $2 RETURNING *`,
      values: [
        tenantId,
        callId,
        outcome.status,
        outcome.output === undefined ? null : jsonbText(outcome.output),
        outcome.truncated,
        outcome.errorCode,
        outcome.errorMessage,
        Math.round(outcome.durationMs),
      ],
    });
    if (!rows[0]) throw new Error(`tool call ${callId} was not recorded before it finished`);
    return toRecord(rows[0]);
  }

  /**
   * Ends a call still `running` after `olderThanMs` (its orchestrator stopped before the tool
   * answered) as failed with `INTERRUPTED`; undefined when it is not, or no longer, running that long.
   */
  async interrupt(tenantId: string, callId: string, olderThanMs: number): Promise<ToolCallRecord | undefined> {
    const { rows } = await this.pool.query<ToolCallRow>({
      name: 'tool-calls-interrupt',
      text: `UPDATE tool_calls SET status = 'failed', error_code = 'INTERRUPTED',
               error_message = 'the orchestrator that ran the call stopped before the tool answered; the tool may or may not have run (runners dedupe on the call id)',
               duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::integer, finished_at = clock_timestamp()
             WHERE tenant_id = $1 AND call_id = $2 AND status = 'running' AND started_at < clock_timestamp() - ($3 * interval '1 millisecond') RETURNING *`,
      values: [tenantId, callId, olderThanMs],
    });
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async get(tenantId: string, callId: string): Promise<ToolCallRecord | undefined> {
    const { rows } = await this.pool.query<ToolCallRow>({
      name: 'tool-calls-get',
      text: 'SELECT * FROM tool_calls WHERE tenant_id = $1 AND call_id = $2',
      values: [tenantId, callId],
    });
    return rows[0] ? toRecord(rows[0]) : undefined;
  }
}
