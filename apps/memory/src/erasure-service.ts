import { CollectionName, ConversationId } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import { errors, parseOrReject, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import type { ConversationErasure } from './knowledge/conversation-erasure.js';
import { ErrorCodes } from './error-codes.js';

/** The erasure RPCs of MemoryService: a whole conversation, or whole collections (an end user's). */
export function erasureServiceImplementation(
  erasure: ConversationErasure,
  logger: Logger,
): Pick<memoryV1.MemoryServiceServer, 'deleteConversation' | 'deleteCollections'> {
  return {
    deleteConversation: unaryHandler<memoryV1.DeleteConversationRequest, memoryV1.DeleteConversationResponse>(
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
        const done = await erasure.deleteConversation(
          { tenantId, actor: request.actor || 'unknown', reason: request.reason },
          conversationId,
        );
        logger.info({ tenantId, conversationId, auditId: done.auditId }, 'conversation deleted from memory');
        return {
          messagesDeleted: done.messages,
          factsDeleted: done.factsDeleted,
          factsUnlinked: done.factsUnlinked,
          episodesDeleted: done.episodesDeleted,
          episodesUnlinked: done.episodesUnlinked,
          workingMemoryDeleted: done.workingMemory,
          auditId: done.auditId,
        };
      },
    ),
    deleteCollections: unaryHandler<memoryV1.DeleteCollectionsRequest, memoryV1.DeleteCollectionsResponse>(
      logger,
      'DeleteCollections',
      async (request) => {
        const tenantId = tenantOf(request);
        if (request.collectionPrefix === '')
          throw errors.invalidArgument(ErrorCodes.INVALID_COLLECTION, 'collection_prefix is required');
        const prefix = parseOrReject(
          CollectionName,
          request.collectionPrefix,
          ErrorCodes.INVALID_COLLECTION,
          'collection_prefix',
        );
        const done = await erasure.deleteCollections(
          { tenantId, actor: request.actor || 'unknown', reason: request.reason },
          prefix,
        );
        logger.info({ tenantId, auditId: done.auditId, facts: done.facts }, 'collections deleted from memory');
        return {
          factsDeleted: done.facts,
          entitiesDeleted: done.entities,
          episodesDeleted: done.episodes,
          auditId: done.auditId,
        };
      },
    ),
  };
}
