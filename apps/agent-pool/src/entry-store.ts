import { createHash } from 'node:crypto';
import type { ApprovalRequest, MissingField } from '@platform/contracts';
import { jsonbText, PlatformError } from '@platform/service-kit';
import type pg from 'pg';
import { ErrorCodes } from './error-codes.js';

const LIVE_STATUSES = ['waiting_for_input', 'waiting_for_approval', 'paused'] as const;
export type WaitingStatus = 'waiting_for_input' | 'waiting_for_approval';
export type LiveStatus = (typeof LIVE_STATUSES)[number];
export type EntryStatus = LiveStatus | 'completed' | 'cancelled' | 'expired' | 'error';
export type SourceKind = 'user' | 'trigger';
/**
 * `agent`: an agent-tool's call; `approval_gate`: a plain tool's call held for approval;
 * `user_decision`: a decision the platform asks the user for (nobody runs).
 */
export type EntryKind = 'agent' | 'approval_gate' | 'user_decision';

const LIVE_SQL = `('waiting_for_input', 'waiting_for_approval', 'paused')`;
const FINISHED_SQL = `('completed', 'cancelled', 'expired', 'error')`;

/** One row of `agent_pool.entries`, as pg returns it (jsonb parsed, timestamps as Date). */
export interface EntryRow {
  entry_id: string;
  tenant_id: string;
  conversation_id: string;
  run_id: string | null;
  call_id: string;
  agent_name: string;
  kind: EntryKind;
  status: EntryStatus;
  paused_from: WaitingStatus | null;
  schema_version: string;
  arguments: Record<string, unknown>;
  collected: Record<string, unknown>;
  prompt: string | null;
  missing: MissingField[] | null;
  approval_id: string | null;
  approval: ApprovalRequest | null;
  source_kind: SourceKind;
  source_task_id: string | null;
  result: unknown;
  error_code: string | null;
  error_message: string | null;
  step: number;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  event_pending: boolean;
  /** Who decided its approval (migrations/0006); null while it waits or when nobody did. */
  decided_by?: string | null;
}

/** A locked row, plus whether its wait ran out (by the database clock). */
export type LockedRow = EntryRow & { due: boolean };

/**
 * Changes to an entry. An absent key is left as it is; `null` clears the column.
 * `expires_in_ms` sets `expires_at` relative to the database clock.
 */
export interface EntryPatch {
  status?: EntryStatus;
  decided_by?: string | null;
  paused_from?: WaitingStatus | null;
  schema_version?: string;
  collected?: Record<string, unknown>;
  prompt?: string | null;
  missing?: MissingField[] | null;
  approval_id?: string | null;
  approval?: ApprovalRequest | null;
  result?: unknown;
  error_code?: string | null;
  error_message?: string | null;
  step?: number;
  expires_at?: null;
  expires_in_ms?: number;
}

export interface NewEntry {
  entry_id: string;
  tenant_id: string;
  conversation_id: string;
  run_id: string | null;
  call_id: string;
  agent_name: string;
  kind: EntryKind;
  arguments: Record<string, unknown>;
  source_kind: SourceKind;
  source_task_id: string | null;
}

const JSON_COLUMNS = new Set(['collected', 'missing', 'approval', 'result', 'arguments']);

/**
 * What makes a start the same start: the model's call id within its run (its conversation when the
 * caller names no run). Models do not promise call ids unique beyond one response (some number
 * them from `call_0`, a scripted or deterministic model repeats them for the same prompt), so the
 * id alone would hand one conversation's entry to another's call.
 */
export interface CallKey {
  tenantId: string;
  conversationId: string;
  runId: string | undefined;
  callId: string;
}

/**
 * The entry id of a call: deterministic, so a start retried after a crash or a lost answer sends
 * the runner the same step call ids. Formatted as an RFC 9562 version 8 UUID.
 */
export function deriveEntryId(key: CallKey): string {
  const bytes = createHash('sha256')
    .update(`agent-pool\0${key.tenantId}\0${key.conversationId}\0${key.runId ?? ''}\0${key.callId}`)
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The runner call id of an entry's step `n` (1 = start). The same step always gets the same id,
 * so a step retried after a timeout or a crash is answered by the runner's dedupe, not run twice.
 */
export function stepCallId(entryId: string, step: number): string {
  return `agent-pool:${entryId}:${step}`;
}

export function isLive(status: EntryStatus): status is LiveStatus {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}

/** jsonb columns get JSON text; `null` is SQL NULL (a JSON `null` result reads back the same). */
function sqlValue(column: string, value: unknown): unknown {
  return JSON_COLUMNS.has(column) && value !== null ? jsonbText(value) : value;
}

/** Marks an entry expired; the event goes out through the outbox (`event_pending`). */
const EXPIRE_SET = `
  status = 'expired',
  paused_from = NULL,
  event_pending = true,
  updated_at = now(),
  error_code = CASE status WHEN 'paused' THEN 'PAUSED_TIMEOUT' WHEN 'waiting_for_approval' THEN 'APPROVAL_TIMEOUT' ELSE 'INPUT_TIMEOUT' END,
  error_message = CASE status
    WHEN 'paused' THEN format('The paused agent ''%s'' was not resumed in time and expired; nothing was done.', agent_name)
    WHEN 'waiting_for_approval' THEN format('The approval request "%s" was not answered in time and expired; the action was not taken.', approval->>'actionSummary')
    ELSE format('The agent ''%s'' waited too long for the user''s input and expired; nothing was done.', agent_name)
  END`;

/** Postgres access for pool entries. Every query by a caller's id is scoped by tenant. */
export const entryStore = {
  /** The entry a call started, if any (the index `entries_call` of migration 0004). */
  async findByCall(db: pg.ClientBase | pg.Pool, key: CallKey): Promise<EntryRow | undefined> {
    const { rows } = await db.query<EntryRow>(
      "SELECT * FROM entries WHERE tenant_id = $1 AND conversation_id = $2 AND COALESCE(run_id, '') = $3 AND call_id = $4",
      [key.tenantId, key.conversationId, key.runId ?? '', key.callId],
    );
    return rows[0];
  },

  async get(db: pg.ClientBase | pg.Pool, tenantId: string, entryId: string): Promise<EntryRow | undefined> {
    const { rows } = await db.query<EntryRow>('SELECT * FROM entries WHERE tenant_id = $1 AND entry_id = $2', [
      tenantId,
      entryId,
    ]);
    return rows[0];
  },

  async getByApproval(
    db: pg.ClientBase | pg.Pool,
    tenantId: string,
    approvalId: string,
  ): Promise<EntryRow | undefined> {
    const { rows } = await db.query<EntryRow>('SELECT * FROM entries WHERE tenant_id = $1 AND approval_id = $2', [
      tenantId,
      approvalId,
    ]);
    return rows[0];
  },

  /**
   * Locks an entry for a change (one step at a time per entry). NOWAIT: when another call holds
   * the lock (a step is running), this one fails at once with STEP_IN_PROGRESS.
   */
  async lock(
    client: pg.ClientBase,
    tenantId: string,
    by: { entryId: string } | { approvalId: string },
  ): Promise<LockedRow | undefined> {
    const [column, value] = 'entryId' in by ? ['entry_id', by.entryId] : ['approval_id', by.approvalId];
    try {
      const { rows } = await client.query<LockedRow>(
        `SELECT *, (status IN ${LIVE_SQL} AND expires_at <= now()) AS due FROM entries WHERE tenant_id = $1 AND ${column} = $2 FOR UPDATE NOWAIT`,
        [tenantId, value],
      );
      return rows[0];
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') {
        throw new PlatformError(
          'failed_precondition',
          ErrorCodes.STEP_IN_PROGRESS,
          'another call is changing this agent entry right now; retry when it has finished',
          {
            cause: err,
            retryAfterSeconds: 1,
          },
        );
      }
      throw err;
    }
  },

  /** Serializes starts of one call until the transaction ends. */
  async lockStart(client: pg.ClientBase, key: CallKey): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(1, hashtext($1))', [deriveEntryId(key)]);
  },

  /** Serializes the final live-entry count of a tenant's starts until the transaction ends. */
  async lockTenantLimit(client: pg.ClientBase, tenantId: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(2, hashtext($1::text))', [tenantId]);
  },

  async countLive(db: pg.ClientBase | pg.Pool, tenantId: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM entries WHERE tenant_id = $1 AND status IN ${LIVE_SQL} AND expires_at > now()`,
      [tenantId],
    );
    return Number(rows[0]!.n);
  },

  async listLive(db: pg.Pool, tenantId: string, conversationId: string | undefined): Promise<EntryRow[]> {
    const { rows } = await db.query<EntryRow>(
      `SELECT * FROM entries WHERE tenant_id = $1 AND ($2::text IS NULL OR conversation_id = $2) AND status IN ${LIVE_SQL} AND expires_at > now()
       ORDER BY created_at, entry_id`,
      [tenantId, conversationId ?? null],
    );
    return rows;
  },

  async insert(
    client: pg.ClientBase,
    entry: NewEntry,
    state: EntryPatch & { status: EntryStatus; schema_version: string },
  ): Promise<EntryRow> {
    const values: Record<string, unknown> = { ...entry };
    for (const [key, value] of Object.entries(state))
      if (value !== undefined && key !== 'expires_in_ms' && key !== 'expires_at') values[key] = value;
    const columns = Object.keys(values);
    const params = columns.map((c) => sqlValue(c, values[c]));
    const placeholders = columns.map((c, i) => (JSON_COLUMNS.has(c) ? `$${i + 1}::jsonb` : `$${i + 1}`));
    if (state.expires_in_ms !== undefined) {
      columns.push('expires_at');
      params.push(state.expires_in_ms);
      placeholders.push(`now() + $${params.length} * interval '1 millisecond'`);
    }
    const { rows } = await client.query<EntryRow>(
      `INSERT INTO entries (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING *`,
      params,
    );
    return rows[0]!;
  },

  async update(client: pg.ClientBase, entryId: string, patch: EntryPatch): Promise<EntryRow> {
    const sets: string[] = ['updated_at = now()'];
    const params: unknown[] = [entryId];
    for (const [column, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      params.push(column === 'expires_in_ms' ? value : sqlValue(column, value));
      const p = `$${params.length}`;
      if (column === 'expires_in_ms') sets.push(`expires_at = now() + ${p} * interval '1 millisecond'`);
      else sets.push(`${column} = ${JSON_COLUMNS.has(column) ? `${p}::jsonb` : p}`);
    }
    const { rows } = await client.query<EntryRow>(
      `UPDATE entries SET ${sets.join(', ')} WHERE entry_id = $1 RETURNING *`,
      params,
    );
    return rows[0]!;
  },

  /** Expires one locked entry whose wait ran out. */
  async expire(client: pg.ClientBase, entryId: string): Promise<EntryRow> {
    const { rows } = await client.query<EntryRow>(`UPDATE entries SET ${EXPIRE_SET} WHERE entry_id = $1 RETURNING *`, [
      entryId,
    ]);
    return rows[0]!;
  },

  /**
   * Expires up to `limit` entries past their expiry in one statement. Rows another replica (or a
   * running step) holds are skipped, and a row another sweeper expired meanwhile no longer
   * matches, so no entry is expired twice.
   */
  async expireDue(db: pg.Pool, limit: number): Promise<EntryRow[]> {
    const { rows } = await db.query<EntryRow>(
      `UPDATE entries SET ${EXPIRE_SET}
       WHERE entry_id IN (
         SELECT entry_id FROM entries WHERE status IN ${LIVE_SQL} AND expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [limit],
    );
    return rows;
  },

  /** Locks up to `limit` entries whose expiry event is not yet published (skipping rows others hold). */
  async lockPendingEvents(client: pg.ClientBase, limit: number): Promise<EntryRow[]> {
    const { rows } = await client.query<EntryRow>(
      'SELECT * FROM entries WHERE event_pending ORDER BY updated_at LIMIT $1 FOR UPDATE SKIP LOCKED',
      [limit],
    );
    return rows;
  },

  async markEventsPublished(client: pg.ClientBase, entryIds: string[]): Promise<void> {
    if (entryIds.length)
      await client.query('UPDATE entries SET event_pending = false WHERE entry_id = ANY($1::text[])', [entryIds]);
  },

  /** Deletes up to `limit` finished entries untouched for `days` days; returns how many. */
  async purgeFinished(db: pg.Pool, days: number, limit: number): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM entries WHERE entry_id IN (
         SELECT entry_id FROM entries WHERE status IN ${FINISHED_SQL} AND NOT event_pending AND updated_at < now() - $1 * interval '1 day'
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [days, limit],
    );
    return rowCount ?? 0;
  },
};
