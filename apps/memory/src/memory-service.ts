import { ChatMessage, ConversationId, RunId, TenantId } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { errors, unaryHandler, type Logger } from '@platform/service-kit';
import { z } from 'zod';
import type { MemoryConfig } from './config.js';
import type { MessageStore } from './message-store.js';
import { ErrorCodes } from './error-codes.js';

type Limits = Pick<
  MemoryConfig,
  | 'MEMORY_PAGE_SIZE'
  | 'MEMORY_MAX_PAGE_SIZE'
  | 'MEMORY_MAX_PAGE_BYTES'
  | 'MEMORY_MAX_APPEND_MESSAGES'
  | 'MEMORY_MAX_MESSAGE_BYTES'
>;

const AppendId = z.string().min(1).max(200);

function parseOrReject<T>(schema: z.ZodType<T>, value: unknown, code: string, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw errors.invalidArgument(code, `${what}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}

function scope(request: { tenantId: string; conversationId: string }): { tenantId: string; conversationId: string } {
  return {
    tenantId: parseOrReject(TenantId, request.tenantId, ErrorCodes.INVALID_TENANT_ID, 'tenant_id'),
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
  limits: Limits,
  logger: Logger,
): Pick<memoryV1.MemoryServiceServer, 'appendMessages' | 'listMessages'> {
  return {
    appendMessages: unaryHandler<memoryV1.AppendMessagesRequest, memoryV1.AppendMessagesResponse>(
      logger,
      'AppendMessages',
      async (request) => {
        const { tenantId, conversationId } = scope(request);
        const runId = request.runId ? parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id') : null;
        const appendId = request.appendId
          ? parseOrReject(AppendId, request.appendId, ErrorCodes.INVALID_APPEND_ID, 'append_id')
          : null;
        if (request.messagesJson.length > limits.MEMORY_MAX_APPEND_MESSAGES) {
          throw errors.invalidArgument(
            ErrorCodes.TOO_MANY_MESSAGES,
            `at most ${limits.MEMORY_MAX_APPEND_MESSAGES} messages per append`,
          );
        }
        const messages = request.messagesJson.map((json, index) => {
          if (Buffer.byteLength(json, 'utf8') > limits.MEMORY_MAX_MESSAGE_BYTES) {
            throw errors.invalidArgument(
              ErrorCodes.MESSAGE_TOO_LARGE,
              `messages_json[${index}] is larger than ${limits.MEMORY_MAX_MESSAGE_BYTES} bytes`,
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
        if (request.limit < 0 || request.limit > limits.MEMORY_MAX_PAGE_SIZE) {
          throw errors.invalidArgument(
            ErrorCodes.INVALID_LIMIT,
            `limit must be between 0 and ${limits.MEMORY_MAX_PAGE_SIZE}`,
          );
        }
        if (request.afterSeq < 0)
          throw errors.invalidArgument(ErrorCodes.INVALID_AFTER_SEQ, 'after_seq must not be negative');
        if (request.maxBytes < 0 || request.maxBytes > limits.MEMORY_MAX_PAGE_BYTES) {
          throw errors.invalidArgument(
            ErrorCodes.INVALID_MAX_BYTES,
            `max_bytes must be between 0 and ${limits.MEMORY_MAX_PAGE_BYTES}`,
          );
        }
        const page = await store.list({
          tenantId,
          conversationId,
          afterSeq: request.afterSeq,
          limit: request.limit || limits.MEMORY_PAGE_SIZE,
          maxBytes: request.maxBytes || limits.MEMORY_MAX_PAGE_BYTES,
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
