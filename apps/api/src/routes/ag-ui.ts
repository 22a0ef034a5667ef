import { EventEncoder } from '@ag-ui/encoder';
import type { BaseEvent } from '@ag-ui/core';
import { z } from 'zod';
import { conversationCallerOf, type ConversationClient } from '../access/conversation-caller.js';
import { AgentPath } from '../agents/agent-paths.js';
import { ApiErrorCodes } from '../error-codes.js';
import type { RunEvents } from '../events/run-event-reader.js';
import type { SseStream } from '../events/sse.js';
import { HttpError } from '../http-errors.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { AgUiEventTranslator } from './ag-ui-events.js';
import { agUiTurnInput, RunAgentInputBody } from './ag-ui-input.js';
import { TURN_ERRORS } from './conversations.js';

export interface AgUiRoutesOptions {
  turns: TurnRunner;
  events: RunEvents;
  conversations: Pick<ConversationClient, 'getConversation'>;
  maxMessageChars: number;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

const AgUiEvent = z
  .looseObject({
    type: z.enum([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'RUN_FINISHED',
      'RUN_ERROR',
    ]),
  })
  .meta({
    id: 'AgUiEvent',
    description:
      "One AG-UI event (@ag-ui/core's Event) per `data:` line; docs/protocols.md#ag-ui maps them from run events.",
  });

export const agUiOperations = {
  runAgUiAgent: defineOperation({
    method: 'POST',
    path: '/v1/agents/{agent}/ag-ui',
    operationId: 'runAgUiAgent',
    summary: 'Run an agent over AG-UI: a RunAgentInput in, the AG-UI event stream out',
    description:
      "The endpoint of an AG-UI `HttpAgent` for one agent. `threadId` is the conversation (the platform keeps its history, so only the last message, the user's, is sent); the agent's own tools run on the platform. Input refused before the run starts is a JSON error; a run that fails ends its stream with RUN_ERROR.",
    tags: ['ag-ui'],
    access: 'tenant',
    role: 'member',
    params: AgentPath,
    body: RunAgentInputBody,
    bodyExamples: {
      firstMessage: {
        threadId: 'thread-1',
        runId: 'b1f0c6a2-6f0e-4c1b-9a55-3f7d2f1e8c10',
        messages: [{ id: 'msg-1', role: 'user', content: 'What is 12 * (3 + 4)?' }],
        tools: [],
        context: [],
      },
    },
    responses: {
      200: {
        description: 'The AG-UI event stream (`text/event-stream`): RUN_STARTED first, RUN_FINISHED or RUN_ERROR last.',
        events: AgUiEvent,
        headers: z.object({ 'x-run-id': z.string(), 'x-conversation-id': z.string() }),
      },
    },
    errors: {
      ...TURN_ERRORS,
      400: [...TURN_ERRORS[400], 'NO_USER_MESSAGE', 'INVALID_CONVERSATION_ID', 'CLIENT_TOOLS_UNSUPPORTED'],
    },
  }),
};

/**
 * AG-UI (docs/protocols.md#ag-ui): a RunAgentInput runs as a turn of the path's agent, protocol
 * `ag_ui`, and its run events stream back translated into AG-UI events by {@link AgUiEventTranslator}.
 */
export function registerAgUiRoutes(router: OperationRouter, options: AgUiRoutesOptions): void {
  router.add(agUiOperations.runAgUiAgent, async ({ params, body, request, reply }) => {
    const principal = principalOf(request);
    const { conversationId, content, continues } = agUiTurnInput(body);
    if (content.length > options.maxMessageChars)
      throw new HttpError(
        413,
        ApiErrorCodes.CONTENT_TOO_LONG,
        `the message is longer than ${options.maxMessageChars} characters`,
      );
    // A thread with earlier answers is one of the caller's conversations: another tenant's (or
    // user's unshared) thread id is refused as unknown, not started afresh under the same id.
    if (continues)
      await options.conversations.getConversation({ caller: conversationCallerOf(request), conversationId });
    const runId = newRunId();
    const turn = {
      protocol: 'ag_ui' as const,
      tenantId: principal.tenantId,
      conversationId,
      content,
      requestId: request.id,
      profile: params.agent,
      stream: true,
      tier: principal.tier ?? '',
      subject: principal.subject ?? '',
      role: principal.role,
      timeZone: '',
    };
    const translator = new AgUiEventTranslator(
      { threadId: body.threadId, runId: body.runId, state: body.state },
      runId,
    );
    const encoder = new EventEncoder();
    const send = (stream: SseStream, events: BaseEvent[]): void => {
      for (const event of events) stream.write(encoder.encodeSSE(event));
    };
    void reply.header('x-run-id', runId).header('x-conversation-id', conversationId);
    await streamTurn(reply, {
      runner: options.turns,
      reader: options.events,
      request: turn,
      runId,
      deadlineAt: Date.now() + options.turnWaitMs,
      heartbeatMs: options.sseHeartbeatMs,
      render: (stream, event) => send(stream, translator.translate(event)),
      fail: (stream, error) => send(stream, translator.failed(error.error)),
      onRunId: (answering) => translator.answeredBy(answering),
    });
    return STREAMED;
  });
}
