import { ChatMessage, ConversationId, MultitaskPolicy, OutputSchema } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RunEvents } from '../events/run-event-reader.js';
import { HttpError } from '../http-errors.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { agentTurnFields, AgentChoiceFields, runnerFor } from '../turns/agent-choice.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { clientGone } from '../turns/client-gone.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { TURN_RESPONSE_EXAMPLE, TurnResponse, turnResponseBody } from '../turns/turn-response.js';
import {
  IDEMPOTENCY_ERRORS,
  idempotencyFields,
  IdempotencyKeyHeader,
  idempotencyKeyOf,
  requestFingerprint,
} from '../turns/idempotency-key.js';
import { RunEvent } from './runs.js';
import { ApiErrorCodes } from '../error-codes.js';
import { requireHistoryAccess, type ConversationClient } from '../access/conversation-caller.js';

export interface ConversationRoutesOptions {
  turns: TurnRunner;
  events: RunEvents;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  conversations: ConversationClient;
  maxMessageChars: number;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/event-stream');
}

const PostMessageBody = z
  .object({
    content: z.string(),
    ...AgentChoiceFields,
    /** The user's IANA time zone, for the current time the agent is told. */
    timeZone: z.string().min(1).max(64).optional(),
    outputSchema: OutputSchema.optional().meta({
      description:
        "A JSON Schema (draft 2020-12) the answer must be valid against; the turn response's `output` is then the answer as JSON. Wins over the agent's own. One that does not compile is refused (400 INVALID_OUTPUT_SCHEMA).",
    }),
    multitask: MultitaskPolicy.optional().meta({
      description:
        "What this message does while a run of the conversation is in flight (docs/conversations.md): `enqueue` waits its turn, `reject` is refused (409 RUN_IN_PROGRESS naming the run), `interrupt` stops the run at its next step boundary and follows it, `rollback` withdraws the run (nothing of it stays in history) and takes its place, `steer` joins the running run before its next model call (the answer is that run's, with `steered: true` and `messageRunId`; a run that ends before taking it leaves the message to run as its own turn). Default: the agent's `multitask`, else `enqueue`.",
    }),
    webhook: z
      .object({ url: z.string().min(1).max(2048) })
      .strict()
      .optional()
      .meta({
        description:
          "Where the run's result goes when it ends (signed, retried; docs/conversations.md). https only; a URL that reaches inside is refused (400 EGRESS_REFUSED). Absent: the conversation's `webhookUrl`, else the tenant's default, if any.",
      }),
  })
  .strict();
const ListQuery = z.object({
  afterSeq: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** What running a turn may answer besides success (the orchestrator's refusals). */
export const TURN_ERRORS = {
  400: [
    'EMPTY_CONTENT',
    'INVALID_CONTENT',
    'INVALID_TIME_ZONE',
    'INVALID_OUTPUT_SCHEMA',
    'DELEGATION_CONVERSATION',
    'OVERRIDE_NOT_ALLOWED',
  ],
  404: ['PROFILE_NOT_FOUND', 'AGENT_NOT_FOUND', 'AGENT_VERSION_NOT_FOUND', 'CONVERSATION_NOT_FOUND'],
  410: ['AGENT_DELETED'],
  413: ['CONTENT_TOO_LONG'],
  429: ['RATE_LIMITED', 'TOKEN_BUDGET_EXCEEDED'],
  503: ['OVERLOADED', 'UNAVAILABLE'],
} as const;

/** A turn's answers when the send may carry an Idempotency-Key (sendMessage, the facade). */
export const KEYED_TURN_ERRORS = {
  ...TURN_ERRORS,
  400: [...TURN_ERRORS[400], ...IDEMPOTENCY_ERRORS[400]],
  422: IDEMPOTENCY_ERRORS[422],
} as const;

const ConversationPath = z.object({ conversationId: ConversationId });

const StoredMessage = z.object({
  seq: z.number().int().positive(),
  runId: z.string().nullable(),
  createdAt: OptionalTimestamp,
  message: ChatMessage,
});

export const conversationOperations = {
  sendMessage: defineOperation({
    method: 'POST',
    path: '/v1/conversations/{conversationId}/messages',
    operationId: 'sendMessage',
    summary: 'Send a message: runs a turn and answers with its result, or streams it (SSE)',
    description:
      'With `Accept: text/event-stream` the turn streams as run events (the last is `execution_end`, whose `data.result` is the turn response); otherwise the answer is the turn response. With an `Idempotency-Key` a retry is answered with the first send\'s run instead of starting another turn (docs/conversations.md, "Idempotent sends").',
    tags: ['conversations'],
    access: 'tenant',
    role: 'member',
    params: ConversationPath,
    body: PostMessageBody,
    headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    invalid: { params: { code: ApiErrorCodes.INVALID_CONVERSATION_ID } },
    bodyExamples: {
      question: { content: 'What is 2 + 2?' },
      withAgent: { content: 'Book a table for two', agent: 'concierge', timeZone: 'Europe/Berlin' },
      interrupt: { content: 'Actually, make it a table for three', multitask: 'interrupt' },
      steer: { content: 'Make it a window table', multitask: 'steer' },
      tryDraft: {
        content: 'Where is my invoice?',
        agent: 'support-bot',
        agentVersion: 3,
        overrides: { model: 'gpt-4o', maxTurns: 4 },
      },
      structured: {
        content: 'What is the weather in Berlin?',
        outputSchema: {
          type: 'object',
          properties: { city: { type: 'string' }, celsius: { type: 'number' } },
          required: ['city', 'celsius'],
          additionalProperties: false,
        },
      },
    },
    responses: {
      200: {
        description: "The turn's result, or its events when streamed.",
        body: TurnResponse,
        events: RunEvent,
        examples: { answered: TURN_RESPONSE_EXAMPLE },
        headers: z.object({ 'x-run-id': z.string().optional().meta({ description: 'Streamed turns: the run.' }) }),
      },
    },
    errors: {
      ...KEYED_TURN_ERRORS,
      400: [...KEYED_TURN_ERRORS[400], 'INVALID_WEBHOOK_URL', 'EGRESS_REFUSED'],
      409: ['RUN_IN_PROGRESS', 'CONVERSATION_DELETING'],
    },
  }),
  listMessages: defineOperation({
    method: 'GET',
    path: '/v1/conversations/{conversationId}/messages',
    operationId: 'listMessages',
    summary: "A conversation's stored history, oldest first, paged by seq",
    tags: ['conversations'],
    access: 'tenant',
    role: 'viewer',
    params: ConversationPath,
    query: ListQuery,
    invalid: { params: { code: ApiErrorCodes.INVALID_CONVERSATION_ID } },
    responses: {
      200: {
        description: 'A page of messages; `hasMore` says to ask again after the last `seq`.',
        body: z.object({ conversationId: z.string(), messages: z.array(StoredMessage), hasMore: z.boolean() }),
        examples: {
          history: {
            conversationId: 'conv-1',
            messages: [
              {
                seq: 1,
                runId: 'run_1',
                createdAt: '2026-06-01T09:30:00.000Z',
                message: { role: 'user', content: 'What is 2 + 2?' },
              },
            ],
            hasMore: false,
          },
        },
      },
    },
    errors: { 404: ['CONVERSATION_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
};

/** Sending a message (runs a turn) and reading a conversation's stored history. */
export function registerConversationRoutes(router: OperationRouter, options: ConversationRoutesOptions): void {
  router.add(conversationOperations.sendMessage, async ({ params, body, request, reply }) => {
    const principal = principalOf(request);
    const idempotencyKey = idempotencyKeyOf(request);
    const content = body.content;
    if (!content.trim()) throw new HttpError(400, ApiErrorCodes.EMPTY_CONTENT, 'content must not be empty');
    if (content.length > options.maxMessageChars) {
      throw new HttpError(
        413,
        ApiErrorCodes.CONTENT_TOO_LONG,
        `content is longer than ${options.maxMessageChars} characters`,
        {
          maxChars: options.maxMessageChars,
        },
      );
    }
    const turn = {
      protocol: 'rest' as const,
      tenantId: principal.tenantId,
      conversationId: params.conversationId,
      content,
      requestId: request.id,
      ...agentTurnFields(body),
      stream: wantsEventStream(request),
      tier: principal.tier ?? '',
      // The end user (the token's sub, or the user a key acts for): the run records it, and only
      // that user (or an admin) decides the run's approvals (docs/access.md#approvals).
      subject: principal.subject ?? '',
      // Its role: the orchestrator lets a member send only to their own conversations and shared
      // ones, and a reply that reads as an approval decision decides only what the role may.
      role: principal.role,
      timeZone: body.timeZone ?? '',
      ...(body.outputSchema ? { outputSchemaJson: JSON.stringify(body.outputSchema) } : {}),
      ...idempotencyFields(idempotencyKey, () => requestFingerprint('sendMessage', params.conversationId, body)),
      ...(body.multitask ? { multitask: body.multitask } : {}),
      ...(body.webhook ? { webhookUrl: body.webhook.url } : {}),
    };
    const runner = runnerFor(options.turns, body);
    const runId = newRunId();
    const deadlineAt = Date.now() + options.turnWaitMs;
    if (turn.stream) {
      await streamTurn(reply, {
        runner,
        reader: options.events,
        request: turn,
        runId,
        deadlineAt,
        heartbeatMs: options.sseHeartbeatMs,
        render: (stream, event) => stream.send(event.type, event, event.id),
      });
      return STREAMED;
    }
    const result = await runner.run(turn, runId, deadlineAt, clientGone(reply));
    return { status: 200, body: turnResponseBody(result, params.conversationId) };
  });

  router.add(conversationOperations.listMessages, async ({ params, query, request }) => {
    const { tenantId } = principalOf(request);
    await requireHistoryAccess(options.conversations, request, params.conversationId);
    // Memory ends a page at its byte limit too (hasMore then says to ask again after the last seq).
    const page = await options.memory.listMessages({
      tenantId,
      conversationId: params.conversationId,
      afterSeq: query.afterSeq,
      limit: query.limit,
      latest: false,
      maxBytes: 0,
    });
    return {
      status: 200,
      body: {
        conversationId: params.conversationId,
        messages: page.messages.map((m) => ({
          seq: m.seq,
          runId: m.runId || null,
          createdAt: m.createdAt?.toISOString() ?? null,
          message: ChatMessage.parse(JSON.parse(m.messageJson)),
        })),
        hasMore: page.hasMore,
      },
    };
  });
}
