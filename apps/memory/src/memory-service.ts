import { ChatMessage, ConversationId, RunId } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { errors, parseOrReject, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import { z } from 'zod';
import type { ConversationForks } from './conversation-forks.js';
import type { MessageStore } from './message-store.js';
import { ErrorCodes } from './error-codes.js';

/** What the history RPCs accept and return at most, compiled from the environment at boot (server.ts). */
export interface HistoryLimits {
  /** Messages one ListMessages call returns when the caller sets no limit, and the most it may ask for. */
  pageSize: number;
  maxPageSize: number;
  /** Message bytes one ListMessages page holds at most; also the most a caller may ask for. */
  maxPageBytes: number;
  /** Most messages one AppendMessages call may carry, and the largest single message in bytes. */
  maxAppendMessages: number;
  maxMessageBytes: number;
}

const AppendId = z.string().min(1).max(200);

function scope(request: { tenantId: string; conversationId: string }): { tenantId: string; conversationId: string } {
  return {
    tenantId: tenantOf(request),
    conversationId: parseOrReject(
      ConversationId,
      request.conversationId,
      ErrorCodes.INVALID_CONVERSATION_ID,
      'conversation_id',
    ),
  };
}

/** The history RPCs of MemoryService: validates at the edge, then stores raw messages verbatim. */
export function memoryServiceImplementation(
  store: MessageStore,
  forks: ConversationForks,
  limits: HistoryLimits,
  logger: Logger,
): Pick<memoryV1.MemoryServiceServer, 'appendMessages' | 'listMessages' | 'forkConversation'> {
  return {
    forkConversation: unaryHandler<memoryV1.ForkConversationRequest, memoryV1.ForkConversationResponse>(
      logger,
      'ForkConversation',
      async (request) => {
        const { tenantId, conversationId } = scope(request);
        const newConversationId = parseOrReject(
          ConversationId,
          request.newConversationId,
          ErrorCodes.INVALID_CONVERSATION_ID,
          'new_conversation_id',
        );
        if (request.atSeq < 0) throw errors.invalidArgument(ErrorCodes.INVALID_SEQ, 'at_seq must not be negative');
        return forks.fork({ tenantId, conversationId, atSeq: request.atSeq, newConversationId });
      },
    ),

    appendMessages: unaryHandler<memoryV1.AppendMessagesRequest, memoryV1.AppendMessagesResponse>(
      logger,
      'AppendMessages',
      async (request) => {
        const { tenantId, conversationId } = scope(request);
        const runId = request.runId ? parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id') : null;
        const appendId = request.appendId
          ? parseOrReject(AppendId, request.appendId, ErrorCodes.INVALID_APPEND_ID, 'append_id')
          : null;
        if (request.messagesJson.length > limits.maxAppendMessages) {
          throw errors.invalidArgument(
            ErrorCodes.TOO_MANY_MESSAGES,
            `at most ${limits.maxAppendMessages} messages per append`,
          );
        }
        const messages = request.messagesJson.map((json, index) => {
          if (Buffer.byteLength(json, 'utf8') > limits.maxMessageBytes) {
            throw errors.invalidArgument(
              'MESSAGE_TOO_LARGE',
              `messages_json[${index}] is larger than ${limits.maxMessageBytes} bytes`,
            );
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(json);
          } catch {
            throw errors.invalidArgument(ErrorCodes.INVALID_MESSAGE, `messages_json[${index}] is not valid JSON`);
          }
          const message = ChatMessage.safeParse(parsed);
          if (!message.success) {
            const issue = message.error.issues[0];
            throw errors.invalidArgument(
              ErrorCodes.INVALID_MESSAGE,
              `messages_json[${index}] is not a chat message: ${issue?.path.join('.') || '(root)'} ${issue?.message ?? ''}`.trim(),
            );
          }
          return { role: message.data.role, json };
        });
        return store.append(tenantId, conversationId, messages, runId, appendId);
      },
    ),

    listMessages: unaryHandler<memoryV1.ListMessagesRequest, memoryV1.ListMessagesResponse>(
      logger,
      'ListMessages',
      async (request) => {
        const { tenantId, conversationId } = scope(request);
        if (request.limit < 0 || request.limit > limits.maxPageSize) {
          throw errors.invalidArgument(ErrorCodes.INVALID_LIMIT, `limit must be between 0 and ${limits.maxPageSize}`);
        }
        if (request.afterSeq < 0)
          throw errors.invalidArgument(ErrorCodes.INVALID_AFTER_SEQ, 'after_seq must not be negative');
        if (request.maxBytes < 0 || request.maxBytes > limits.maxPageBytes) {
          throw errors.invalidArgument(
            ErrorCodes.INVALID_MAX_BYTES,
            `max_bytes must be between 0 and ${limits.maxPageBytes}`,
          );
        }
        const page = await store.list({
          tenantId,
          conversationId,
          afterSeq: request.afterSeq,
          limit: request.limit || limits.pageSize,
          maxBytes: request.maxBytes || limits.maxPageBytes,
          latest: request.latest,
        });
        return {
          messages: page.messages.map((m) => ({
            seq: m.seq,
            messageJson: m.json,
            runId: m.runId ?? '',
            createdAt: m.createdAt,
          })),
          hasMore: page.hasMore,
        };
      },
    ),
  };
}
