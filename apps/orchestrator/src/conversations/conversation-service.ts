import { ConversationId, TenantId } from '@platform/contracts';
import { redactUrl } from '@platform/egress';
import type { conversationsV1 } from '@platform/proto';
import { errors, PlatformError, unaryHandler, type Logger } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';
import { readerOf, type ConversationReader } from './conversation-access.js';
import {
  checkedLabel,
  checkedLabels,
  checkedMetadata,
  checkedTitle,
  metadataFilterOf,
  searchPatternOf,
} from './conversation-input.js';
import { decodeConversationPageToken, encodeConversationPageToken } from './conversation-page-token.js';
import type { ConversationFilters, ConversationRecord, ConversationStore } from './conversation-store.js';
import type { RunWebhooks } from '../webhooks/run-webhooks.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

export interface ConversationServiceDependencies {
  store: ConversationStore;
  logger: Logger;
  /** Checks a run webhook URL as a tenant sets it, by the egress guard (webhooks/run-webhooks.ts). */
  webhooks: Pick<RunWebhooks, 'checkUrl'>;
}

function readerOfCaller(caller: conversationsV1.ConversationCaller | undefined): ConversationReader {
  if (!caller || !TenantId.safeParse(caller.tenantId).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'caller.tenant_id is invalid');
  // A caller of this service always names its role: an empty one is a viewer's reach, never all.
  return readerOf(caller.tenantId, caller.subject, caller.role || 'viewer');
}

function conversationIdOf(id: string): string {
  if (!ConversationId.safeParse(id).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id is invalid');
  return id;
}

function notFound(conversationId: string): Error {
  return errors.notFound(ErrorCodes.CONVERSATION_NOT_FOUND, `no conversation '${conversationId}'`);
}

/** A conversation as the service answers it. */
function conversationMessage(record: ConversationRecord): conversationsV1.Conversation {
  return {
    conversationId: record.conversationId,
    title: record.title ?? '',
    labels: record.labels,
    metadataJson: JSON.stringify(record.metadata),
    owner: record.owner,
    shared: record.shared,
    agentId: record.agentId ?? '',
    agentName: record.agentName ?? '',
    waitingForUser: record.waitingForUser,
    runCount: record.runCount,
    createdAt: record.createdAt,
    lastActivityAt: record.lastActivityAt,
    updatedAt: record.updatedAt ?? undefined,
    // Whoever reaches the conversation reads it: a token in its query is not shown.
    webhookUrl: record.webhookUrl ? redactUrl(record.webhookUrl) : '',
  };
}

function filtersOf(request: conversationsV1.ListConversationsRequest): ConversationFilters {
  const metadataJson = metadataFilterOf(request.metadata);
  const titlePattern = searchPatternOf(request.search);
  return {
    ...(request.agent ? { agent: request.agent } : {}),
    ...(request.owner ? { owner: request.owner } : {}),
    ...(request.label ? { label: checkedLabel(request.label, ErrorCodes.INVALID_CONVERSATION_FILTER) } : {}),
    ...(metadataJson ? { metadataJson } : {}),
    ...(request.waitingForUser !== undefined ? { waitingForUser: request.waitingForUser } : {}),
    ...(titlePattern ? { titlePattern } : {}),
  };
}

/**
 * The ConversationService (proto/orchestrator/v1/conversations.proto): a tenant's conversations
 * as resources, each reached by its owner, by everyone of the tenant once shared, and by
 * developers and admins (conversation-access.ts).
 */
export function conversationServiceImplementation(
  deps: ConversationServiceDependencies,
): conversationsV1.ConversationServiceServer {
  const { store, logger, webhooks } = deps;
  return {
    listConversations: unaryHandler(
      logger,
      'ListConversations',
      async (request: conversationsV1.ListConversationsRequest) => {
        const reader = readerOfCaller(request.caller);
        if (request.pageSize < 0 || request.pageSize > MAX_PAGE_SIZE)
          throw errors.invalidArgument(ErrorCodes.INVALID_PAGE_SIZE, `page_size must be 0-${MAX_PAGE_SIZE}`);
        const limit = request.pageSize || DEFAULT_PAGE_SIZE;
        const filters = filtersOf(request);
        // The token continues only this listing: the same filters, the same reach.
        const filtersKey = JSON.stringify([filters, reader.seesAll, reader.subject]);
        const after = decodeConversationPageToken(request.pageToken, reader.tenantId, filtersKey);
        const rows = await store.list(reader, filters, limit + 1, after);
        const page = rows.slice(0, limit);
        const last = page[page.length - 1];
        return {
          conversations: page.map(conversationMessage),
          nextPageToken:
            rows.length > limit && last
              ? encodeConversationPageToken(reader.tenantId, filtersKey, {
                  activityMicros: last.activityMicros,
                  conversationId: last.conversationId,
                })
              : '',
        };
      },
    ),

    getConversation: unaryHandler(
      logger,
      'GetConversation',
      async (request: conversationsV1.GetConversationRequest) => {
        const reader = readerOfCaller(request.caller);
        const conversationId = conversationIdOf(request.conversationId);
        const record = await store.get(reader, conversationId);
        if (!record) throw notFound(conversationId);
        return { conversation: conversationMessage(record) };
      },
    ),

    checkConversationAccess: unaryHandler(
      logger,
      'CheckConversationAccess',
      async (request: conversationsV1.CheckConversationAccessRequest) => {
        const reader = readerOfCaller(request.caller);
        return { allowed: await store.allows(reader, conversationIdOf(request.conversationId)) };
      },
    ),

    updateConversation: unaryHandler(
      logger,
      'UpdateConversation',
      async (request: conversationsV1.UpdateConversationRequest) => {
        const reader = readerOfCaller(request.caller);
        const conversationId = conversationIdOf(request.conversationId);
        const outcome = await store.update(reader, conversationId, {
          ...(request.title !== undefined ? { title: checkedTitle(request.title) } : {}),
          ...(request.setLabels ? { labels: checkedLabels(request.labels) } : {}),
          ...(request.metadataJson !== undefined ? { metadataJson: checkedMetadata(request.metadataJson) } : {}),
          ...(request.shared !== undefined ? { shared: request.shared } : {}),
          ...(request.webhookUrl !== undefined
            ? { webhookUrl: request.webhookUrl && (await webhooks.checkUrl(request.webhookUrl, 'webhookUrl')) }
            : {}),
        });
        if ('record' in outcome) return { conversation: conversationMessage(outcome.record) };
        if (outcome.refused === 'share_forbidden')
          throw new PlatformError(
            'permission_denied',
            ErrorCodes.CONVERSATION_SHARE_FORBIDDEN,
            `only the owner of conversation '${conversationId}' or a tenant admin may share or unshare it`,
          );
        throw notFound(conversationId);
      },
    ),
  };
}
