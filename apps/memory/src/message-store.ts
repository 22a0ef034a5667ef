import { inTransaction } from '@platform/service-kit';
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
  latest: boolean;
}

/** Postgres access for conversation history. Every query is scoped by tenant. */
export class MessageStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Appends messages in order. The conversation row is locked for the append, so concurrent
   * appends to one conversation get consecutive, gap-free sequence numbers. A known append id
   * returns the earlier result instead of appending again.
   */
  append(tenantId: string, conversationId: string, messages: NewMessage[], runId: string | null, appendId: string | null): Promise<AppendResult> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ next_seq: string }>(
        `INSERT INTO conversations (tenant_id, conversation_id) VALUES ($1, $2)
         ON CONFLICT (tenant_id, conversation_id) DO UPDATE SET updated_at = now()
         RETURNING next_seq`,
        [tenantId, conversationId],
      );
      if (appendId) {
        const previous = await client.query<{ first_seq: string; last_seq: string }>(
          'SELECT first_seq, last_seq FROM appends WHERE tenant_id = $1 AND conversation_id = $2 AND append_id = $3',
          [tenantId, conversationId, appendId],
        );
        const row = previous.rows[0];
        if (row) return { firstSeq: Number(row.first_seq), lastSeq: Number(row.last_seq), duplicate: true };
      }
      const firstSeq = Number(rows[0]!.next_seq);
      const lastSeq = firstSeq + messages.length - 1;
      if (messages.length > 0) {
        await client.query(
          `INSERT INTO messages (tenant_id, conversation_id, seq, role, message_json, run_id)
           SELECT $1, $2, $3::bigint + ord - 1, role, json, $6
           FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS m(role, json, ord)`,
          [tenantId, conversationId, firstSeq, messages.map((m) => m.role), messages.map((m) => m.json), runId],
        );
        await client.query('UPDATE conversations SET next_seq = $3 WHERE tenant_id = $1 AND conversation_id = $2', [tenantId, conversationId, lastSeq + 1]);
      }
      if (appendId) {
        await client.query('INSERT INTO appends (tenant_id, conversation_id, append_id, first_seq, last_seq) VALUES ($1, $2, $3, $4, $5)', [
          tenantId,
          conversationId,
          appendId,
          firstSeq,
          lastSeq,
        ]);
      }
      return { firstSeq, lastSeq, duplicate: false };
    });
  }

  /** A page of messages in ascending order; `latest` pages from the end instead of the start. */
  async list(query: ListQuery): Promise<{ messages: StoredMessageRow[]; hasMore: boolean }> {
    const order = query.latest ? 'DESC' : 'ASC';
    const { rows } = await this.pool.query<{ seq: string; message_json: string; run_id: string | null; created_at: Date }>(
      `SELECT seq, message_json, run_id, created_at FROM messages
       WHERE tenant_id = $1 AND conversation_id = $2 AND seq > $3
       ORDER BY seq ${order} LIMIT $4`,
      [query.tenantId, query.conversationId, query.afterSeq, query.limit + 1],
    );
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit).map((r) => ({ seq: Number(r.seq), json: r.message_json, runId: r.run_id, createdAt: r.created_at }));
    if (query.latest) page.reverse();
    return { messages: page, hasMore };
  }
}
