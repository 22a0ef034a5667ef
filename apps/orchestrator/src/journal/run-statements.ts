import { jsonbText } from '@platform/service-kit';
import type { NewRun } from './run-types.js';

// The SQL pieces and values the runs table's writes share (run-records.ts).

/**
 * The CTE `fence` both claims start with: records the conversation token unless a higher one
 * claimed before, and returns a row only when it did (a claim goes ahead only then).
 */
export function fenceCte(tenantId: string, conversationId: string, token: string): string {
  return `fence AS (
         INSERT INTO conversation_fences (tenant_id, conversation_id, token) VALUES (${tenantId}, ${conversationId}, ${token})
         ON CONFLICT (tenant_id, conversation_id) DO UPDATE SET token = EXCLUDED.token
           WHERE conversation_fences.token <= EXCLUDED.token
         RETURNING token)`;
}

/**
 * The order a conversation's live runs are taken in: a run already running first (its holder may
 * have died mid-turn; it finishes before anything else starts), then arrival order.
 */
export const LIVE_ORDER = "ORDER BY status = 'running' DESC, created_at, arrival";

/**
 * Whether a write failed because its conversation has a running run already: the unique index
 * `runs_one_running` (migration 0004) refuses a second one even when the first is not committed
 * yet, which the statement's own check (a snapshot) cannot see.
 */
export function isSecondRunningRun(err: unknown): boolean {
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'runs_one_running';
}

/** The message's own columns, $1 to $10 of both statements that record a new run. */
export function messageValues(run: NewRun): unknown[] {
  return [
    run.runId,
    run.tenantId,
    run.conversationId,
    run.profile,
    run.content,
    run.tier,
    run.stream,
    run.timeZone,
    run.approval ? jsonbText(run.approval) : null,
    run.kind ?? 'message',
  ];
}

/** The agent, version, overrides, subject (migrations/0012) and sender role (0020) of a new run, in that order. */
export function agentValues(run: NewRun): unknown[] {
  return [
    run.agent?.id ?? null,
    run.agent?.version ?? null,
    run.overrides ? JSON.stringify(run.overrides) : null,
    run.subject || null,
    run.senderRole ?? null,
  ];
}

/**
 * Where a new run's message came from, in the order of the columns `replay_of`, `replay_from_step`
 * (migrations/0022: the run it replays and the step it goes live from), `protocol` (0025) and
 * `protocol_request` (0026).
 */
export function provenanceValues(run: NewRun): unknown[] {
  return [
    run.replay?.runId ?? null,
    run.replay?.fromStep ?? null,
    run.protocol ?? null,
    run.protocolRequest ? jsonbText(run.protocolRequest) : null,
  ];
}

/**
 * The CTE `keyed` of both statements that record a new run: records the run's Idempotency-Key
 * (migrations/0014) unless the tenant's key names a run already (an expired one is taken over).
 * `$runId`, `$tenantId`: the run's; the last three parameters are {@link idempotencyValues}. With
 * a key the run is recorded only when this returns a row ({@link KEYED_GUARD}).
 */
export function keyedCte(
  runId: string,
  tenantId: string,
  key: string,
  fingerprint: string,
  ttlMs: string,
  /** A further condition of recording the key (the conversation's gate: a run the sender may not record keeps no key). */
  when = 'true',
): string {
  return `keyed AS (
         INSERT INTO idempotency_keys (tenant_id, idempotency_key, fingerprint, run_id, created_at, expires_at)
         SELECT ${tenantId}, ${key}::text, ${fingerprint}::text, ${runId}, now(), now() + (${ttlMs}::bigint * interval '1 millisecond')
         WHERE ${key}::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs WHERE run_id = ${runId}) AND ${when}
         ON CONFLICT (tenant_id, idempotency_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
           run_id = EXCLUDED.run_id, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at <= now()
         RETURNING 1)`;
}

/** The condition a keyed run's insert is under: no key, or {@link keyedCte} recorded it. */
export function keyedGuard(key: string): string {
  return `(${key}::text IS NULL OR EXISTS (SELECT 1 FROM keyed))`;
}

/** The key, fingerprint and lifetime of {@link keyedCte}, all null without a key. */
export function idempotencyValues(run: NewRun): unknown[] {
  const claim = run.idempotency;
  return claim ? [claim.key, claim.fingerprint, claim.ttlMs] : [null, null, null];
}

/**
 * How many rows a tenant's token usage of a day is spread over (migration 0011): a finish adds to
 * the shard of its database session, so concurrent finishes of one tenant do not queue on one row.
 */
export const USAGE_SHARDS = 32;
