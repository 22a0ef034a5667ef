import { conversationCallerOf } from '../access/conversation-caller.js';
import { ConversationId } from '@platform/contracts';
import type { erasureV1, memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';

export interface ConversationDeletionRoutesOptions {
  /** The orchestrator's ErasureService; absent: these routes answer 503. */
  erasure: PromiseClient<erasureV1.ErasureServiceClient> | undefined;
  memory: Pick<PromiseClient<memoryV1.MemoryServiceClient>, 'forgetSubject'>;
}

const ConversationDeletion = z
  .object({
    deletionId: z.string(),
    conversationId: z.string(),
    status: z.enum(['pending', 'running', 'completed']),
    reason: z.enum(['request', 'end_user_erasure', 'retention']),
    step: z
      .string()
      .meta({ description: 'The last step done (cancel_runs, agent_pool, memory, run_events, redis, orchestrator).' }),
    counts: z
      .record(z.string(), z.number())
      .meta({ description: 'What each step removed (numbers only, never content).' }),
    attempts: z.number().int(),
    lastError: z.string().nullable().meta({ description: 'Why the last attempt did not finish; it is tried again.' }),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'ConversationDeletion' });
type ConversationDeletion = z.infer<typeof ConversationDeletion>;

const DELETION_EXAMPLE: ConversationDeletion = {
  deletionId: 'del_5c0e5f8e-3c1e-4f4b-9a57-8d0c2b7d9e11',
  conversationId: 'conv-1',
  status: 'completed',
  reason: 'request',
  step: 'orchestrator',
  counts: { runsCancelled: 0, messages: 6, factsDeleted: 2, factsUnlinked: 1, runEvents: 42, runs: 3 },
  attempts: 1,
  lastError: null,
  createdAt: '2026-12-02T10:00:00.000Z',
  completedAt: '2026-12-02T10:00:01.000Z',
};

const Subject = z.string().min(1).max(256);

export const conversationDeletionOperations = {
  deleteConversation: defineOperation({
    method: 'DELETE',
    path: '/v1/conversations/{conversationId}',
    operationId: 'deleteConversation',
    summary: 'Delete a conversation everywhere (history, runs, events, knowledge learned from it): a durable job',
    tags: ['conversations'],
    access: 'tenant',
    role: 'member',
    params: z.object({ conversationId: ConversationId }),
    invalid: { params: { code: ApiErrorCodes.INVALID_CONVERSATION_ID } },
    responses: {
      202: {
        description:
          'The deletion job (new, or the one already under way or completed: deleting twice returns the same job). Follow it at `Location`.',
        body: ConversationDeletion,
        headers: z.object({
          Location: z.string().meta({ description: 'The deletion: `/v1/conversation-deletions/{deletionId}`.' }),
        }),
        examples: { accepted: { ...DELETION_EXAMPLE, status: 'pending', step: '', counts: {}, completedAt: null } },
      },
    },
    errors: { 403: ['CONVERSATION_DELETE_FORBIDDEN'], 404: ['CONVERSATION_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
  getConversationDeletion: defineOperation({
    method: 'GET',
    path: '/v1/conversation-deletions/{deletionId}',
    operationId: 'getConversationDeletion',
    summary: 'A conversation deletion: its status and what it removed',
    tags: ['conversations'],
    access: 'tenant',
    role: 'member',
    params: z.object({ deletionId: z.string().regex(/^del_[0-9a-f-]{36}$/) }),
    invalid: { params: { status: 404, code: ApiErrorCodes.DELETION_NOT_FOUND, message: 'no such deletion' } },
    responses: {
      200: { description: 'The deletion.', body: ConversationDeletion, examples: { done: DELETION_EXAMPLE } },
    },
    errors: { 404: ['DELETION_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
  eraseEndUser: defineOperation({
    method: 'POST',
    path: '/v1/end-users/{subject}/erasure',
    operationId: 'eraseEndUser',
    summary: "Erase an end user: every conversation of theirs (runs with their token's `sub`) and their memory",
    tags: ['conversations'],
    access: 'tenant',
    role: 'admin',
    params: z.object({ subject: Subject }),
    invalid: { params: { code: ApiErrorCodes.INVALID_SUBJECT } },
    responses: {
      202: {
        description:
          "The deletion jobs of the user's conversations, and what was deleted from memory at once: the user's collections (`user:<subject>`) and what memory knew about the subject (as ForgetSubject).",
        body: z.object({
          subject: z.string(),
          deletions: z.array(ConversationDeletion),
          factsDeleted: z.number().int(),
          episodesDeleted: z.number().int(),
        }),
        examples: {
          accepted: { subject: 'alice', deletions: [DELETION_EXAMPLE], factsDeleted: 4, episodesDeleted: 1 },
        },
      },
    },
    errors: { 503: ['UNAVAILABLE'] },
  }),
};

function deletionJson(d: erasureV1.ConversationDeletion): ConversationDeletion {
  return {
    deletionId: d.deletionId,
    conversationId: d.conversationId,
    status: d.status as ConversationDeletion['status'],
    reason: d.reason as ConversationDeletion['reason'],
    step: d.step,
    counts: JSON.parse(d.countsJson || '{}') as Record<string, number>,
    attempts: d.attempts,
    lastError: d.lastError || null,
    createdAt: (d.createdAt ?? new Date(0)).toISOString(),
    completedAt: d.completedAt ? d.completedAt.toISOString() : null,
  };
}

/** Deleting conversations and erasing end users (docs/conversations.md). */
export function registerConversationDeletionRoutes(
  router: OperationRouter,
  { erasure, memory }: ConversationDeletionRoutesOptions,
): void {
  const service = (): PromiseClient<erasureV1.ErasureServiceClient> => {
    if (!erasure) throw new HttpError(503, ApiErrorCodes.UNAVAILABLE, 'conversation deletion is not configured');
    return erasure;
  };

  // A member deletes their own conversations (and those no user started); developers and admins any
  // of the tenant's. The orchestrator decides, in the transaction that records the job.
  router.add(conversationDeletionOperations.deleteConversation, async ({ params, request, reply }) => {
    const { tenantId, subject, role } = conversationCallerOf(request);
    const { deletion } = await service().deleteConversation({
      tenantId,
      conversationId: params.conversationId,
      actor: subject || tenantId,
      role,
      subject,
    });
    void reply.header('location', `/v1/conversation-deletions/${deletion!.deletionId}`);
    return { status: 202, body: deletionJson(deletion!) };
  });

  router.add(conversationDeletionOperations.getConversationDeletion, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const { deletion } = await service().getConversationDeletion({ tenantId, deletionId: params.deletionId });
    return { status: 200, body: deletionJson(deletion!) };
  });

  router.add(conversationDeletionOperations.eraseEndUser, async ({ params, request }) => {
    const { tenantId, subject: actor } = principalOf(request);
    const erased = await service().eraseEndUser({ tenantId, subject: params.subject, actor: actor ?? tenantId });
    // What memory knows about the user by name, wherever it is kept (the memory erasure route's ForgetSubject).
    const forgotten = await memory.forgetSubject({
      tenantId,
      subject: params.subject,
      collectionPrefix: '',
      actor: actor ?? tenantId,
      reason: 'end user erasure',
    });
    return {
      status: 202,
      body: {
        subject: params.subject,
        deletions: erased.deletions.map(deletionJson),
        factsDeleted: erased.factsDeleted + forgotten.factsDeleted,
        episodesDeleted: erased.episodesDeleted + forgotten.episodesDeleted,
      },
    };
  });
}
