import { ChatMessage, ConversationId } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RunEvents } from '../events/run-event-reader.js';
import { HttpError, parseInput } from '../http-errors.js';
import { principalOf } from '../principal.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { clientGone } from '../turns/client-gone.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { turnResponseBody } from '../turns/turn-response.js';

export interface ConversationRoutesOptions {
  turns: TurnRunner;
  events: RunEvents;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  maxMessageChars: number;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

export function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/event-stream');
}

const PostMessageBody = z
  .object({
    content: z.string(),
    /** The agent profile to talk to; omitted = the default profile. */
    profile: z.string().min(1).max(64).optional(),
    /** The user's IANA time zone, for the current time the agent is told. */
    timeZone: z.string().min(1).max(64).optional(),
  })
  .strict();
const ListQuery = z.object({
  afterSeq: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

function conversationIdOf(params: unknown): string {
  const parsed = ConversationId.safeParse((params as { conversationId?: unknown }).conversationId);
  if (!parsed.success) throw new HttpError(400, 'INVALID_CONVERSATION_ID', `conversationId ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return parsed.data;
}

/** Sending a message (runs a turn) and reading a conversation's stored history. */
export function registerConversationRoutes(app: FastifyInstance, options: ConversationRoutesOptions): void {
  app.post('/v1/conversations/:conversationId/messages', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const conversationId = conversationIdOf(request.params);
    const body = parseInput(PostMessageBody, request.body, 'INVALID_BODY');
    const content = body.content;
    if (!content.trim()) throw new HttpError(400, 'EMPTY_CONTENT', 'content must not be empty');
    if (content.length > options.maxMessageChars) {
      throw new HttpError(413, 'CONTENT_TOO_LONG', `content is longer than ${options.maxMessageChars} characters`, { maxChars: options.maxMessageChars });
    }
    const principal = principalOf(request);
    const turn = {
      tenantId,
      conversationId,
      content,
      requestId: request.id,
      profile: body.profile ?? '',
      stream: wantsEventStream(request),
      tier: principal.tier ?? '',
      timeZone: body.timeZone ?? '',
    };
    const runId = newRunId();
    const deadlineAt = Date.now() + options.turnWaitMs;
    if (turn.stream) {
      await streamTurn(reply, {
        runner: options.turns,
        reader: options.events,
        request: turn,
        runId,
        deadlineAt,
        heartbeatMs: options.sseHeartbeatMs,
        render: (stream, event) => stream.send(event.type, event, event.id),
      });
      return reply;
    }
    const result = await options.turns.run(turn, runId, deadlineAt, clientGone(reply));
    return reply.send(turnResponseBody(result, conversationId));
  });

  app.get('/v1/conversations/:conversationId/messages', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const conversationId = conversationIdOf(request.params);
    const query = parseInput(ListQuery, request.query, 'INVALID_QUERY');
    // Memory ends a page at its byte limit too (hasMore then says to ask again after the last seq).
    const page = await options.memory.listMessages({ tenantId, conversationId, afterSeq: query.afterSeq, limit: query.limit, latest: false, maxBytes: 0 });
    return reply.send({
      conversationId,
      messages: page.messages.map((m) => ({
        seq: m.seq,
        runId: m.runId || null,
        createdAt: m.createdAt?.toISOString() ?? null,
        message: ChatMessage.parse(JSON.parse(m.messageJson)),
      })),
      hasMore: page.hasMore,
    });
  });
}
