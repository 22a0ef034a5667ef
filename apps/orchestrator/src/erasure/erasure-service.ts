import { ConversationId } from '@platform/contracts';
import type { erasureV1 } from '@platform/proto';
import { errors, parseOrReject, PlatformError, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import { z } from 'zod';
import { readerOf } from '../conversations/conversation-access.js';
import { ErrorCodes } from '../error-codes.js';
import type { DeletionRefusal, DeletionRow, DeletionStore } from './deletion-store.js';

export interface ErasureServiceDependencies {
  store: DeletionStore;
  /** Starts the recorded jobs (the worker of this replica). */
  recorded: () => void;
  /** Deletes an end user's memory collections (`user:<subject>` and below). */
  deleteUserCollections: (
    tenantId: string,
    subject: string,
    actor: string,
  ) => Promise<{ facts: number; episodes: number }>;
  pool: { query: <R extends Record<string, unknown>>(text: string, values: unknown[]) => Promise<{ rows: R[] }> };
  logger: Logger;
}

const Subject = z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters');

function deletionToProto(row: DeletionRow): erasureV1.ConversationDeletion {
  return {
    deletionId: row.deletion_id,
    conversationId: row.conversation_id,
    status: row.status,
    reason: row.reason,
    step: row.step,
    createdAt: row.created_at,
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
    countsJson: JSON.stringify(row.counts),
    attempts: row.attempts,
    lastError: row.last_error,
  };
}

function refusalError(refused: DeletionRefusal, conversationId: string): Error {
  return refused === 'not_the_owner'
    ? new PlatformError(
        'permission_denied',
        ErrorCodes.CONVERSATION_DELETE_FORBIDDEN,
        "only its owner (or a developer or admin) may delete another user's shared conversation",
      )
    : errors.notFound(ErrorCodes.CONVERSATION_NOT_FOUND, `no conversation '${conversationId}'`);
}

/** The ErasureService (proto/orchestrator/v1/erasure.proto): records deletion jobs and reads them. */
export function erasureServiceImplementation(deps: ErasureServiceDependencies): erasureV1.ErasureServiceServer {
  const { store, logger } = deps;
  return {
    deleteConversation: unaryHandler<erasureV1.DeleteConversationRequest, erasureV1.DeleteConversationResponse>(
      logger,
      'DeleteConversation',
      async (request) => {
        const tenantId = tenantOf(request);
        const conversationId = parseOrReject(
          ConversationId,
          request.conversationId,
          ErrorCodes.INVALID_CONVERSATION_ID,
          'conversation_id',
        );
        const opened = await store.openAs(readerOf(tenantId, request.subject, request.role), {
          tenantId,
          conversationId,
          reason: 'request',
          actor: request.actor,
        });
        if ('refused' in opened) throw refusalError(opened.refused, conversationId);
        const { row, created } = opened;
        if (created) deps.recorded();
        logger.info({ tenantId, deletionId: row.deletion_id, created }, 'conversation deletion requested');
        return { deletion: deletionToProto(row), created };
      },
    ),

    getConversationDeletion: unaryHandler<
      erasureV1.GetConversationDeletionRequest,
      erasureV1.GetConversationDeletionResponse
    >(logger, 'GetConversationDeletion', async (request) => {
      const tenantId = tenantOf(request);
      const row = await store.get(tenantId, request.deletionId);
      if (!row) throw errors.notFound(ErrorCodes.DELETION_NOT_FOUND, `no conversation deletion ${request.deletionId}`);
      return { deletion: deletionToProto(row) };
    }),

    eraseEndUser: unaryHandler<erasureV1.EraseEndUserRequest, erasureV1.EraseEndUserResponse>(
      logger,
      'EraseEndUser',
      async (request) => {
        const tenantId = tenantOf(request);
        const subject = parseOrReject(Subject, request.subject, ErrorCodes.INVALID_SUBJECT, 'subject');
        const { rows } = await deps.pool.query<{ conversation_id: string }>(
          `SELECT DISTINCT conversation_id FROM runs WHERE tenant_id = $1 AND subject = $2 AND parent_run_id IS NULL`,
          [tenantId, subject],
        );
        const deletions: DeletionRow[] = [];
        for (const { conversation_id } of rows)
          deletions.push(
            (
              await store.open({
                tenantId,
                conversationId: conversation_id,
                reason: 'end_user_erasure',
                actor: request.actor,
              })
            ).row,
          );
        deps.recorded();
        const memory = await deps.deleteUserCollections(tenantId, subject, request.actor);
        logger.info({ tenantId, conversations: deletions.length, ...memory }, 'end user erasure requested');
        return {
          deletions: deletions.map(deletionToProto),
          factsDeleted: memory.facts,
          episodesDeleted: memory.episodes,
        };
      },
    ),
  };
}
