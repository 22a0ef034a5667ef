import { randomUUID } from 'node:crypto';
import { RunId } from '@platform/contracts';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import type { RunEvents } from '../events/run-event-reader.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { clientGone } from '../turns/client-gone.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { TURN_RESPONSE_EXAMPLE, TurnResponse, turnResponseBody } from '../turns/turn-response.js';
import { TURN_ERRORS } from './conversations.js';
import { RunEvent } from './runs.js';

export interface RunReplayRoutesOptions {
  turns: Pick<TurnRunner, 'run'>;
  events: RunEvents;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

const RunPath = z.object({ runId: RunId });

const ReplayBody = z
  .object({
    fromStep: z.number().int().min(0).max(100_000).meta({
      description:
        "The first step that runs live (0: the first model call). The steps before it (model responses with their tool calls' results) are answered from the original run's journal: the model is not asked and no tool runs for them.",
    }),
    agentVersion: z.number().int().min(1).max(2_147_483_647).optional().meta({
      description: "Run under this version of the run's agent (a draft included); omitted: the run's own version.",
    }),
    model: z.string().min(1).max(200).optional().meta({
      description:
        "Ask this model from `fromStep` on (the run's overrides' `model`); the tier must permit it (403 NOT_PERMITTED_BY_TIER) and the agent allow it (400 OVERRIDE_NOT_ALLOWED).",
    }),
    stream: z
      .boolean()
      .optional()
      .meta({ description: "Stream the replay's events (SSE) instead of waiting for its result." }),
  })
  .strict()
  .meta({ id: 'ReplayRunBody' });

const Replay = TurnResponse.extend({
  replayOf: z.string().meta({ description: 'The run replayed.' }),
  replayFromStep: z.number().int().min(0),
}).meta({ id: 'RunReplay' });

export const runReplayOperations = {
  replayRun: defineOperation({
    method: 'POST',
    path: '/v1/runs/{runId}/replays',
    operationId: 'replayRun',
    summary: 'Replay a finished run from one of its steps, with another agent version or model, as a new run',
    description:
      "A new run in a new conversation forked from the run's before its user message (the original run and conversation are unchanged): its steps before `fromStep` are the original's, answered from the original's journal; from `fromStep` on it runs live (every tool call through the tool gate). With `stream: true` (or `Accept: text/event-stream`) the replay streams as run events. See docs/conversations.md#replaying-a-run.",
    tags: ['runs'],
    access: 'tenant',
    role: 'developer',
    params: RunPath,
    body: ReplayBody,
    invalid: { params: { code: ApiErrorCodes.INVALID_RUN_ID, message: 'runId is invalid' } },
    bodyExamples: {
      otherModel: { fromStep: 1, model: 'gpt-4o' },
      otherVersion: { fromStep: 0, agentVersion: 3 },
    },
    responses: {
      201: {
        description: "The replay's result (its run and conversation), or its events when streamed.",
        body: Replay,
        events: RunEvent,
        examples: {
          replayed: {
            ...TURN_RESPONSE_EXAMPLE,
            conversationId: 'conv_6f1c2a4e-1b2c-4d3e-8f90-123456789abc',
            replayOf: 'run_1',
            replayFromStep: 1,
          },
        },
        headers: z.object({ 'x-run-id': z.string().optional().meta({ description: 'Streamed replays: the run.' }) }),
      },
    },
    errors: {
      ...TURN_ERRORS,
      400: [...TURN_ERRORS[400], 'INVALID_FROM_STEP'],
      403: ['NOT_PERMITTED_BY_TIER'],
      404: ['RUN_NOT_FOUND', ...TURN_ERRORS[404]],
      409: ['RUN_NOT_FINISHED', 'REPLAY_UNSUPPORTED', 'FORK_TOO_DEEP'],
    },
  }),
};

/** Replaying a run (docs/conversations.md#replaying-a-run): a message of the orchestrator's with `replayOf`. */
export function registerRunReplayRoutes(router: OperationRouter, options: RunReplayRoutesOptions): void {
  router.add(runReplayOperations.replayRun, async ({ params, body, request, reply }) => {
    const principal = principalOf(request);
    // The replay's conversation: forked by the orchestrator once every check passed.
    const conversationId = `conv_${randomUUID()}`;
    const turn = {
      protocol: 'rest' as const,
      tenantId: principal.tenantId,
      conversationId,
      // The orchestrator gives the replay the original's message and agent.
      content: '',
      profile: '',
      requestId: request.id,
      stream: body.stream ?? (request.headers.accept ?? '').includes('text/event-stream'),
      tier: principal.tier ?? '',
      subject: principal.subject ?? '',
      role: principal.role,
      timeZone: '',
      replayOf: params.runId,
      replayFromStep: body.fromStep,
      ...(body.agentVersion !== undefined ? { agentVersion: body.agentVersion } : {}),
      ...(body.model ? { overridesJson: JSON.stringify({ model: body.model }) } : {}),
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
      return STREAMED;
    }
    const result = await options.turns.run(turn, runId, deadlineAt, clientGone(reply));
    return {
      status: 201,
      body: { ...turnResponseBody(result, conversationId), replayOf: params.runId, replayFromStep: body.fromStep },
    };
  });
}
