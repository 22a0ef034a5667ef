import { CONVERSATION_LIMITS, ConversationId, findInexactNumber } from '@platform/contracts';
import type { conversationsV1 } from '@platform/proto';
import { z } from 'zod';
import { conversationCallerOf, type ConversationClient } from '../access/conversation-caller.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { jsonBodyText } from '../json-body.js';
import { NextPageToken, OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface ConversationResourceRoutesOptions {
  conversations: ConversationClient;
}

const ConversationPath = z.object({ conversationId: ConversationId });
const INVALID_CONVERSATION = { params: { code: ApiErrorCodes.INVALID_CONVERSATION_ID } } as const;

const Conversation = z
  .object({
    conversationId: z.string(),
    title: z.string().nullable(),
    labels: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    owner: z
      .string()
      .nullable()
      .meta({ description: "The end user (`sub`) who started it; null when no user did (a trigger task's)." }),
    shared: z.boolean().meta({ description: 'Whether every member of the tenant may read and write it.' }),
    agentId: z.string().nullable().meta({ description: 'The agent its latest run ran under.' }),
    agentName: z.string().nullable(),
    waitingForUser: z
      .boolean()
      .meta({ description: "Whether its latest run waits for the user (an agent-tool's question or an approval)." }),
    runCount: z.number().int(),
    createdAt: z.string(),
    lastActivityAt: z.string(),
    updatedAt: OptionalTimestamp.meta({
      description: 'When its title, labels, metadata, sharing or webhook URL were last written.',
    }),
    webhookUrl: z.string().nullable().meta({
      description:
        "Where a run's end is POSTed when its message names no webhook (before the tenant's default); its user name, password and query values redacted. Null: none.",
    }),
  })
  .meta({ id: 'Conversation' });

const CONVERSATION_EXAMPLE: z.infer<typeof Conversation> = {
  conversationId: 'conv-1',
  title: 'Refund for order 1042',
  labels: ['billing'],
  metadata: { crmTicket: 'T-88' },
  owner: 'alice',
  shared: false,
  agentId: 'builtin:default',
  agentName: 'default',
  waitingForUser: false,
  runCount: 3,
  createdAt: '2026-06-01T09:30:00.000Z',
  lastActivityAt: '2026-06-01T09:42:10.000Z',
  updatedAt: '2026-06-01T09:35:00.000Z',
  webhookUrl: 'https://hooks.example.com/runs?token=[redacted]',
};

/** `metadata=k=v` once or repeated. */
const MetadataFilters = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]))
  .pipe(z.array(z.string().min(3).max(400)).max(CONVERSATION_LIMITS.metadataFilters));

const ListQuery = z
  .object({
    agent: z.string().min(1).max(128).optional().meta({ description: 'The agent (id or name) of the latest run.' }),
    user: z.string().min(1).max(256).optional().meta({ description: 'The end user who started it.' }),
    label: z.string().min(1).max(CONVERSATION_LIMITS.labelChars).optional(),
    metadata: MetadataFilters.optional().meta({
      description: '`key=value`: metadata holding this string value; repeat for several (all must hold).',
    }),
    waitingForUser: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional(),
    search: z
      .string()
      .min(1)
      .max(CONVERSATION_LIMITS.searchChars)
      .optional()
      .meta({ description: 'Text the title contains (case-insensitive).' }),
    pageSize: z.coerce.number().int().min(1).max(200).optional(),
    pageToken: z.string().min(1).max(1_000).optional(),
  })
  .strict();

const PatchBody = z
  .object({
    title: z
      .string()
      .nullable()
      .optional()
      .meta({ description: `At most ${CONVERSATION_LIMITS.titleChars} characters; null or "" removes it.` }),
    labels: z
      .array(z.string())
      .max(CONVERSATION_LIMITS.labels)
      .optional()
      .meta({
        description: `Replaces the labels: at most ${CONVERSATION_LIMITS.labels}, each 1-${CONVERSATION_LIMITS.labelChars} letters, digits or "-_.:/".`,
      }),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description: `Replaces the metadata: a JSON object of at most ${CONVERSATION_LIMITS.metadataBytes} bytes.`,
      }),
    shared: z
      .boolean()
      .optional()
      .meta({ description: 'Share with every member of the tenant (its owner or an admin only).' }),
    webhookUrl: z.string().max(2048).nullable().optional().meta({
      description:
        "Where its runs' ends are POSTed when their message names no webhook: https, reaching a public address (the egress guard); null clears it.",
    }),
  })
  .strict()
  .meta({ id: 'UpdateConversationBody' });

const ConversationReply = {
  description: 'The conversation.',
  body: Conversation,
  examples: { one: CONVERSATION_EXAMPLE },
};

export const conversationResourceOperations = {
  listConversations: defineOperation({
    method: 'GET',
    path: '/v1/conversations',
    operationId: 'listConversations',
    summary: 'The conversations the caller may see, most recent activity first, with filters and title search',
    description:
      "A member sees their own conversations, shared ones and those no user started; a developer or admin sees all of the tenant's (docs/conversations.md).",
    tags: ['conversations'],
    access: 'tenant',
    role: 'viewer',
    query: ListQuery,
    responses: {
      200: {
        description: 'A page of conversations.',
        body: z.object({ conversations: z.array(Conversation), nextPageToken: NextPageToken }),
        examples: { page: { conversations: [CONVERSATION_EXAMPLE], nextPageToken: null } },
      },
    },
    errors: { 400: ['INVALID_PAGE_TOKEN', 'INVALID_CONVERSATION_FILTER'], 503: ['UNAVAILABLE'] },
  }),
  getConversation: defineOperation({
    method: 'GET',
    path: '/v1/conversations/{conversationId}',
    operationId: 'getConversation',
    summary: 'A conversation: its title, labels, metadata, owner, agent and whether it waits for the user',
    tags: ['conversations'],
    access: 'tenant',
    role: 'viewer',
    params: ConversationPath,
    invalid: INVALID_CONVERSATION,
    responses: { 200: ConversationReply },
    errors: { 404: ['CONVERSATION_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
  updateConversation: defineOperation({
    method: 'PATCH',
    path: '/v1/conversations/{conversationId}',
    operationId: 'updateConversation',
    summary: "Set a conversation's title, labels, metadata, sharing or webhook URL (the fields given; the others stay)",
    tags: ['conversations'],
    access: 'tenant',
    role: 'member',
    params: ConversationPath,
    body: PatchBody,
    invalid: INVALID_CONVERSATION,
    bodyExamples: {
      rename: { title: 'Refund for order 1042' },
      tag: { labels: ['billing', 'vip'], metadata: { crmTicket: 'T-88' } },
      share: { shared: true },
      webhook: { webhookUrl: 'https://hooks.example.com/runs' },
    },
    responses: { 200: ConversationReply },
    errors: {
      400: [
        'INVALID_CONVERSATION_TITLE',
        'INVALID_CONVERSATION_LABELS',
        'INVALID_CONVERSATION_METADATA',
        'INVALID_WEBHOOK_URL',
        'EGRESS_REFUSED',
      ],
      403: ['CONVERSATION_SHARE_FORBIDDEN'],
      404: ['CONVERSATION_NOT_FOUND'],
      503: ['UNAVAILABLE'],
    },
  }),
};

function conversationBody(c: conversationsV1.Conversation): z.infer<typeof Conversation> {
  return {
    conversationId: c.conversationId,
    title: c.title || null,
    labels: c.labels,
    metadata: JSON.parse(c.metadataJson) as Record<string, unknown>,
    owner: c.owner || null,
    shared: c.shared,
    agentId: c.agentId || null,
    agentName: c.agentName || null,
    waitingForUser: c.waitingForUser,
    runCount: c.runCount,
    createdAt: c.createdAt!.toISOString(),
    lastActivityAt: c.lastActivityAt!.toISOString(),
    updatedAt: c.updatedAt?.toISOString() ?? null,
    webhookUrl: c.webhookUrl || null,
  };
}

/** Conversations as resources: listing and search, reading one, and setting its title, labels, metadata and sharing. */
export function registerConversationResourceRoutes(
  router: OperationRouter,
  { conversations }: ConversationResourceRoutesOptions,
): void {
  router.add(conversationResourceOperations.listConversations, async ({ query, request }) => {
    const page = await conversations.listConversations({
      caller: conversationCallerOf(request),
      pageSize: query.pageSize ?? 0,
      pageToken: query.pageToken ?? '',
      agent: query.agent ?? '',
      owner: query.user ?? '',
      label: query.label ?? '',
      metadata: query.metadata ?? [],
      ...(query.waitingForUser !== undefined ? { waitingForUser: query.waitingForUser } : {}),
      search: query.search ?? '',
    });
    return {
      status: 200,
      body: { conversations: page.conversations.map(conversationBody), nextPageToken: page.nextPageToken || null },
    };
  });

  router.add(conversationResourceOperations.getConversation, async ({ params, request }) => {
    const { conversation } = await conversations.getConversation({
      caller: conversationCallerOf(request),
      conversationId: params.conversationId,
    });
    return { status: 200, body: conversationBody(conversation!) };
  });

  router.add(conversationResourceOperations.updateConversation, async ({ params, body, request }) => {
    // The parsed body holds numbers already rounded: the text says whether each was kept exactly.
    const inexact = body.metadata !== undefined ? findInexactNumber(jsonBodyText(request) ?? '') : undefined;
    if (inexact)
      throw new HttpError(
        400,
        ApiErrorCodes.INVALID_CONVERSATION_METADATA,
        `${inexact.path} is the number ${inexact.source}, which JSON readers cannot keep exactly (past ±2^53−1, out of range, or more digits than a double holds); send it as a string`,
        { path: inexact.path },
      );
    const { conversation } = await conversations.updateConversation({
      caller: conversationCallerOf(request),
      conversationId: params.conversationId,
      ...(body.title !== undefined ? { title: body.title ?? '' } : {}),
      setLabels: body.labels !== undefined,
      labels: body.labels ?? [],
      ...(body.metadata !== undefined ? { metadataJson: JSON.stringify(body.metadata) } : {}),
      ...(body.shared !== undefined ? { shared: body.shared } : {}),
      ...(body.webhookUrl !== undefined ? { webhookUrl: body.webhookUrl ?? '' } : {}),
    });
    return { status: 200, body: conversationBody(conversation!) };
  });
}
