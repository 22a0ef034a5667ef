import type pg from 'pg';

export interface NewMessage {
  role: string;
  json: string;
}

export interface StoredMessageRow {
  seq: number;
  json: string;
  runId: string | null;
  createdAt: Date;
}

export interface AppendResult {
  firstSeq: number;
  lastSeq: number;
  duplicate: boolean;
}

export interface ListQuery {
  tenantId: string;
  conversationId: string;
  afterSeq: number;
  limit: number;
  /** The page's message bytes at most; its first message is returned whatever its size. */
  maxBytes: number;
  latest: boolean;
}

/** How many forks may lie between a conversation and its root (documented in docs/conversations.md). */
export const MAX_FORK_DEPTH = 10;

/** Postgres error code of a unique-key violation. */
const UNIQUE_VIOLATION = '23505';

/** Postgres access for conversation history. Every query is scoped by tenant. */
export class MessageStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Appends messages in order, in one statement: the conversation row's upsert takes its lock and
   * advances its next sequence number, so concurrent appends to one conversation get consecutive,
   * gap-free numbers. A known append id returns the earlier result instead of appending again;
   * two appends racing with one new append id meet at the `appends` key, and the loser, retried,
   * finds the winner's result.
   */
  async append(
    tenantId: string,
    conversationId: string,
    messages: NewMessage[],
    runId: string | null,
    appendId: string | null,
  ): Promise<AppendResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.appendOnce(tenantId, conversationId, messages, runId, appendId);
      } catch (err) {
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION || attempt > 0) throw err;
      }
    }
  }

  private async appendOnce(
    tenantId: string,
    conversationId: string,
    messages: NewMessage[],
    runId: string | null,
    appendId: string | null,
  ): Promise<AppendResult> {
    const { rows } = await this.pool.query<{ first_seq: string; last_seq: string; duplicate: boolean }>({
      name: 'memory-append',
      text: `WITH dup AS (
               SELECT first_seq, last_seq FROM appends WHERE tenant_id = $1 AND conversation_id = $2 AND append_id = $3),
             n AS (SELECT CASE WHEN EXISTS (SELECT 1 FROM dup) THEN 0 ELSE cardinality($4::text[]) END AS count),
             conv AS (
               INSERT INTO conversations (tenant_id, conversation_id, next_seq) VALUES ($1, $2, 1 + (SELECT count FROM n))
               ON CONFLICT (tenant_id, conversation_id) DO UPDATE
                 SET updated_at = now(), next_seq = conversations.next_seq + (SELECT count FROM n)
               RETURNING next_seq - (SELECT count FROM n) AS first_seq),
             inserted AS (
               INSERT INTO messages (tenant_id, conversation_id, seq, role, message_json, run_id)
               SELECT $1, $2, conv.first_seq + ord - 1, role, json, $6
               FROM conv, unnest($4::text[], $5::text[]) WITH ORDINALITY AS m(role, json, ord)
               WHERE NOT EXISTS (SELECT 1 FROM dup)),
             recorded AS (
               INSERT INTO appends (tenant_id, conversation_id, append_id, first_seq, last_seq)
               SELECT $1, $2, $3, first_seq, first_seq + cardinality($4::text[]) - 1 FROM conv
               WHERE $3::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dup))
           SELECT first_seq, last_seq, true AS duplicate FROM dup
           UNION ALL
           SELECT first_seq, first_seq + cardinality($4::text[]) - 1, false FROM conv WHERE NOT EXISTS (SELECT 1 FROM dup)`,
      values: [tenantId, conversationId, appendId, messages.map((m) => m.role), messages.map((m) => m.json), runId],
    });
    const row = rows[0]!;
    return { firstSeq: Number(row.first_seq), lastSeq: Number(row.last_seq), duplicate: row.duplicate };
  }

  /**
   * A page of messages in ascending order; `latest` pages from the end instead of the start. The
   * page ends at `limit` messages or `maxBytes` bytes, whichever comes first (but holds at least
   * one message). Bytes are summed in Postgres, so messages past the budget are never read out.
   *
   * A fork's history is its ancestors' prefixes and then its own messages: the chain of parents
   * (at most MAX_FORK_DEPTH) gives one seq range per conversation, the ranges are disjoint, and
   * each range is read through the primary key with the page's limit, so a fork of a long
   * conversation reads no more rows than the page needs from each range (nothing is copied).
   */
  async list(query: ListQuery): Promise<{ messages: StoredMessageRow[]; hasMore: boolean }> {
    const order = query.latest ? 'DESC' : 'ASC';
    const { rows } = await this.pool.query<{
      seq: string;
      message_json: string | null;
      run_id: string | null;
      created_at: Date;
    }>({
      name: `memory-list-forks-${order}`,
      text: `WITH RECURSIVE chain AS (
               SELECT conversation_id, parent_conversation_id, parent_seq,
                      9223372036854775807::bigint AS hi, 0 AS depth
               FROM conversations WHERE tenant_id = $1 AND conversation_id = $2
               UNION ALL
               SELECT c.conversation_id, c.parent_conversation_id, c.parent_seq,
                      LEAST(chain.hi, chain.parent_seq), chain.depth + 1
               FROM chain JOIN conversations c
                 ON c.tenant_id = $1 AND c.conversation_id = chain.parent_conversation_id
               WHERE chain.depth < $6)
             SELECT seq, CASE WHEN fits THEN message_json END AS message_json, run_id, created_at FROM (
               SELECT seq, message_json, run_id, created_at,
                 row_number() OVER w = 1 OR sum(octet_length(message_json)) OVER w <= $5 AS fits
               FROM chain CROSS JOIN LATERAL (
                 SELECT m.seq, m.message_json, m.run_id, m.created_at FROM messages m
                 WHERE m.tenant_id = $1 AND m.conversation_id = chain.conversation_id
                   AND m.seq > $3 AND m.seq <= chain.hi
                 ORDER BY m.seq ${order} LIMIT $4) AS part
               WINDOW w AS (ORDER BY seq ${order} ROWS UNBOUNDED PRECEDING)
               ORDER BY seq ${order} LIMIT $4) AS page
             ORDER BY seq ${order}`,
      values: [query.tenantId, query.conversationId, query.afterSeq, query.limit + 1, query.maxBytes, MAX_FORK_DEPTH],
    });
    let taken = 0;
    while (taken < rows.length && taken < query.limit && rows[taken]!.message_json !== null) taken += 1;
    const page = rows
      .slice(0, taken)
      .map((r) => ({ seq: Number(r.seq), json: r.message_json!, runId: r.run_id, createdAt: r.created_at }));
    if (query.latest) page.reverse();
    return { messages: page, hasMore: rows.length > taken };
  }
}
