import { ChatMessage } from '@platform/contracts';
import { PlatformError, errors } from '@platform/service-kit';
import type pg from 'pg';
import { ErrorCodes } from './error-codes.js';
import { MAX_FORK_DEPTH, type MessageStore } from './message-store.js';

export interface ForkRequest {
  tenantId: string;
  conversationId: string;
  /** The parent's last message the fork keeps; 0 = the parent's latest. */
  atSeq: number;
  newConversationId: string;
}

export interface ForkResult {
  conversationId: string;
  parentConversationId: string;
  atSeq: number;
  depth: number;
}

/**
 * Whether a history that ends at `last` (followed by `next`, if any) would end inside a tool call:
 * an assistant message that asked for tools whose results come after it, or a tool result that
 * more results of the same call batch follow.
 */
function endsInsideToolCall(last: ChatMessage, next: ChatMessage | undefined): boolean {
  if (last.role === 'assistant' && (last.toolCalls?.length ?? 0) > 0) return true;
  return next?.role === 'tool';
}

/** Forks: a new conversation that starts with a prefix of another's history, which is never copied. */
export class ConversationForks {
  constructor(
    private readonly pool: pg.Pool,
    private readonly messages: MessageStore,
  ) {}

  async fork(request: ForkRequest): Promise<ForkResult> {
    const { tenantId, conversationId } = request;
    const { rows } = await this.pool.query<{ next_seq: string; fork_depth: number }>(
      'SELECT next_seq, fork_depth FROM conversations WHERE tenant_id = $1 AND conversation_id = $2',
      [tenantId, conversationId],
    );
    const parent = rows[0];
    if (!parent) throw errors.notFound(ErrorCodes.CONVERSATION_NOT_FOUND, 'no such conversation');
    const latest = Number(parent.next_seq) - 1;
    const atSeq = request.atSeq || latest;
    if (atSeq < 1 || atSeq > latest) {
      throw errors.notFound(
        ErrorCodes.MESSAGE_NOT_FOUND,
        latest === 0 ? 'the conversation has no messages to fork' : `no message ${atSeq}: the latest is ${latest}`,
        { details: { latestSeq: latest } },
      );
    }
    const depth = parent.fork_depth + 1;
    if (depth > MAX_FORK_DEPTH) {
      throw new PlatformError(
        'failed_precondition',
        ErrorCodes.FORK_TOO_DEEP,
        `a conversation may be forked from forks at most ${MAX_FORK_DEPTH} deep; fork an earlier conversation of the chain`,
        { details: { maxDepth: MAX_FORK_DEPTH } },
      );
    }
    const around = await this.messages.list({
      tenantId,
      conversationId,
      afterSeq: atSeq - 1,
      limit: 2,
      maxBytes: Number.MAX_SAFE_INTEGER,
      latest: false,
    });
    const [last, next] = around.messages.map((m) => ChatMessage.parse(JSON.parse(m.json)));
    if (!last) throw errors.internal(ErrorCodes.INTERNAL, `message ${atSeq} could not be read`);
    if (endsInsideToolCall(last, next)) {
      throw new PlatformError(
        'failed_precondition',
        ErrorCodes.FORK_INSIDE_TOOL_CALL,
        `message ${atSeq} lies inside a tool call and its results; fork before the assistant message that called the tools, or after its last result`,
      );
    }
    const inserted = await this.pool.query(
      `INSERT INTO conversations (tenant_id, conversation_id, next_seq, parent_conversation_id, parent_seq, fork_depth)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id, conversation_id) DO NOTHING`,
      [tenantId, request.newConversationId, atSeq + 1, conversationId, atSeq, depth],
    );
    if (inserted.rowCount !== 1) {
      throw new PlatformError('already_exists', ErrorCodes.CONVERSATION_EXISTS, 'the new conversation id is taken');
    }
    return { conversationId: request.newConversationId, parentConversationId: conversationId, atSeq, depth };
  }
}
