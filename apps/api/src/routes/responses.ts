import { randomUUID } from 'node:crypto';
import { RunId, type RunOverrides } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import type { RunEvents } from '../events/run-event-reader.js';
import { HttpError } from '../http-errors.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import type { StreamedResult } from '../turns/answer-stream.js';
import { clientGone } from '../turns/client-gone.js';
import { facadeTurn } from '../turns/facade-turn.js';
import {
  askedFingerprint,
  IdempotencyKeyHeader,
  idempotencyKeyOf,
  keyedConversationId,
} from '../turns/idempotency-key.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { facadeInput } from './chat-completions-input.js';
import { KEYED_TURN_ERRORS } from './conversations.js';
import { outputSchemaOfTextFormat, ResponseTextFormat } from './responses-format.js';
import { ResponseInputItem, responsesMessages } from './responses-input.js';
import { SUM_SCHEMA_EXAMPLE } from './chat-completions-format.js';
import { ResponseObject, responseObject, type ResponseFacts } from './responses-object.js';
import { protocolRequestJsonOf, responseRequestOf } from './responses-request.js';
import { responseEventRenderer } from './responses-stream.js';

export interface ResponseRoutesOptions {
  turns: TurnRunner;
  events: RunEvents;
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  maxMessageChars: number;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

const ResponseCreateBody = z
  .object({
    model: z.string().min(1, 'name an agent as the model').meta({
      description: 'The agent: an id (`agt_…`, `builtin:…`) or a name (a tenant agent wins over a built-in one).',
    }),
    input: z.union([z.string(), z.array(ResponseInputItem).min(1, 'send at least one input item')]),
    instructions: z.string().min(1).max(10_000).nullish().meta({
      description:
        "Appended to the agent's instructions for this run (the run's `overrides.instructions`); 400 OVERRIDE_NOT_ALLOWED when the agent allows none.",
    }),
    previous_response_id: z.string().nullish().meta({
      description:
        "Continue that response's conversation (the platform keeps its history): a response id of the token's tenant, else 404.",
    }),
    text: z.object({ format: ResponseTextFormat.optional() }).passthrough().nullish(),
    tools: z.array(z.unknown()).nullish().meta({
      description: "Must be empty: the agent's own tools run on the platform (400 CLIENT_TOOLS_NOT_SUPPORTED).",
    }),
    stream: z.boolean().nullish(),
  })
  .passthrough();
type ResponseCreateBody = z.infer<typeof ResponseCreateBody>;

const ResponsePath = z.object({ responseId: RunId });
const INVALID_RESPONSE_ID = { code: ApiErrorCodes.INVALID_RESPONSE_ID, message: 'the response id is invalid' };

/** The example of the document, built as every response is. */
const RESPONSE_EXAMPLE: ResponseObject = responseObject({
  runId: 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
  createdAt: 1780306200,
  model: 'default',
  runStatus: 'completed',
  result: { response: '4', stopReason: 'final_answer', usage: { inputTokens: 120, outputTokens: 2, totalTokens: 122 } },
  instructions: null,
  previousResponseId: null,
  format: undefined,
});

const ResponseStreamEvent = z
  .object({ type: z.string(), sequence_number: z.number().int().min(0) })
  .passthrough()
  .meta({
    id: 'ResponseStreamEvent',
    description:
      'One event of the stream (`event:` repeats `type`): response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta…, response.output_text.done, response.content_part.done, response.output_item.done, then response.completed (or response.failed / response.incomplete, which also ends a cancelled response: its status `cancelled`). A failed response has no output item events: its message is its `error`.',
  });

export const responseOperations = {
  createResponse: defineOperation({
    method: 'POST',
    path: '/v1/responses',
    operationId: 'createResponse',
    summary: 'OpenAI Responses API: create a response; `model` names an agent',
    description:
      "A run of the agent `model` names (docs/protocols.md#openai-responses-api). The agent's tools run on the platform; the response holds its final answer as one message. `previous_response_id` continues that response's conversation; `text.format` json_schema makes the answer structured. With `stream: true`, the Responses API's events.",
    tags: ['openai'],
    access: 'tenant',
    role: 'member',
    body: ResponseCreateBody,
    headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    bodyExamples: {
      oneShot: { model: 'default', input: 'What is 2 + 2?' },
      continued: {
        model: 'default',
        input: 'And times 3?',
        previous_response_id: 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
      },
      jsonSchema: {
        model: 'default',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is 2 + 2?' }] }],
        text: {
          format: {
            type: 'json_schema',
            name: 'sum',
            schema: SUM_SCHEMA_EXAMPLE,
            strict: true,
          },
        },
      },
    },
    responses: {
      200: {
        description: 'The response, or its events when `stream` is true.',
        body: ResponseObject,
        events: ResponseStreamEvent,
        headers: z.object({ 'x-run-id': z.string(), 'x-conversation-id': z.string() }),
        examples: { answered: RESPONSE_EXAMPLE },
      },
    },
    errors: {
      ...KEYED_TURN_ERRORS,
      400: [...KEYED_TURN_ERRORS[400], 'NO_USER_MESSAGE', 'UNSUPPORTED_INPUT_ITEM', 'CLIENT_TOOLS_NOT_SUPPORTED'],
      404: [...KEYED_TURN_ERRORS[404], 'RUN_NOT_FOUND'],
    },
  }),
  getResponse: defineOperation({
    method: 'GET',
    path: '/v1/responses/{responseId}',
    operationId: 'getResponse',
    summary: 'OpenAI Responses API: retrieve a response (its run, as far as it has got)',
    tags: ['openai'],
    access: 'tenant',
    role: 'viewer',
    params: ResponsePath,
    invalid: { params: INVALID_RESPONSE_ID },
    responses: {
      200: { description: 'The response.', body: ResponseObject, examples: { answered: RESPONSE_EXAMPLE } },
    },
    errors: { 404: ['RUN_NOT_FOUND'] },
  }),
  cancelResponse: defineOperation({
    method: 'POST',
    path: '/v1/responses/{responseId}/cancel',
    operationId: 'cancelResponse',
    summary: 'OpenAI Responses API: cancel a response (cancels its run)',
    tags: ['openai'],
    access: 'tenant',
    role: 'member',
    params: ResponsePath,
    invalid: { params: INVALID_RESPONSE_ID },
    responses: {
      200: {
        description: 'The response, `cancelled` (its run stops at its next step).',
        body: ResponseObject,
        examples: { cancelled: { ...RESPONSE_EXAMPLE, status: 'cancelled', output: [], usage: null } },
      },
    },
    errors: { 404: ['RUN_NOT_FOUND'], 409: ['RUN_FINISHED'] },
  }),
};

/** The instructions of a run's overrides, or null. */
function instructionsOf(overridesJson: string | undefined): string | null {
  return overridesJson ? ((JSON.parse(overridesJson) as RunOverrides).instructions ?? null) : null;
}

/** A run read with GET run as a response, with its request's `previous_response_id` and `text.format` as recorded. */
function runResponse(run: orchestratorV1.GetRunResponse, runStatus: string = run.status): ResponseObject {
  const result = JSON.parse(run.resultJson || 'null') as StreamedResult | null;
  return responseObject({
    runId: run.runId,
    createdAt: Math.floor((run.createdAt?.getTime() ?? Date.now()) / 1000),
    model: run.profile,
    runStatus,
    result: result ?? undefined,
    instructions: instructionsOf(run.overridesJson),
    ...responseRequestOf(run.protocolRequestJson),
  });
}

/** The conversation a request continues (its `previous_response_id`'s), looked up for the token's tenant only. */
async function continuedConversation(
  options: ResponseRoutesOptions,
  tenantId: string,
  previous: string | null | undefined,
): Promise<string | undefined> {
  if (!previous) return undefined;
  if (!RunId.safeParse(previous).success)
    throw new HttpError(400, ApiErrorCodes.INVALID_RESPONSE_ID, 'previous_response_id is not a response id', {
      field: 'previous_response_id',
    });
  return (await options.orchestrator.getRun({ tenantId, runId: previous })).conversationId;
}

function refuseClientTools(body: ResponseCreateBody): void {
  if (body.tools?.length)
    throw new HttpError(
      400,
      ApiErrorCodes.CLIENT_TOOLS_NOT_SUPPORTED,
      "tools: the agent's own tools run on the platform; a request cannot add tools (define them on the agent)",
      { field: 'tools' },
    );
}

/**
 * The OpenAI Responses API (docs/protocols.md#openai-responses-api): a response is a run of the
 * agent `model` names, its id the run id. The platform keeps the conversation, so
 * `previous_response_id` continues it; tools run on the platform; the answer is one message.
 */
export function registerResponseRoutes(router: OperationRouter, options: ResponseRoutesOptions): void {
  router.add(responseOperations.createResponse, async ({ body, request, reply }) => {
    refuseClientTools(body);
    const { tenantId } = principalOf(request);
    const idempotencyKey = idempotencyKeyOf(request);
    // What is asked, without how the answer is delivered (`stream`): streamed or not, a retry is the same request.
    const fingerprint = idempotencyKey ? askedFingerprint('createResponse', body, ['stream'], undefined) : undefined;
    const messages = responsesMessages(body.input);
    const previousConversation = await continuedConversation(options, tenantId, body.previous_response_id);
    const { conversationId, content } = facadeInput(
      messages,
      previousConversation,
      idempotencyKey && fingerprint ? keyedConversationId(idempotencyKey, fingerprint) : `responses-${randomUUID()}`,
    );
    const format = body.text?.format;
    const outputSchema = outputSchemaOfTextFormat(format);
    const turn = facadeTurn(request, {
      protocol: 'responses',
      conversationId,
      content,
      model: body.model,
      stream: body.stream === true,
      maxMessageChars: options.maxMessageChars,
      outputSchema,
      overridesJson: body.instructions ? JSON.stringify({ instructions: body.instructions }) : undefined,
      protocolRequestJson: protocolRequestJsonOf({ previousResponseId: body.previous_response_id ?? null, format }),
      idempotencyKey,
      fingerprint,
    });
    let runId = newRunId();
    const facts = (): Omit<ResponseFacts, 'runStatus' | 'result'> => ({
      runId,
      createdAt: Math.floor(Date.now() / 1000),
      model: body.model,
      instructions: body.instructions ?? null,
      previousResponseId: body.previous_response_id ?? null,
      format,
    });
    const created = facts().createdAt;
    const deadlineAt = Date.now() + options.turnWaitMs;
    void reply.header('x-run-id', runId).header('x-conversation-id', conversationId);

    if (!turn.stream) {
      const result = await options.turns.run(turn, runId, deadlineAt, clientGone(reply));
      // A keyed repeat is answered by the first send's run, and so with its response id.
      runId = result.runId || runId;
      void reply.header('x-run-id', runId);
      const answer: StreamedResult = {
        response: result.response,
        stopReason: result.stopReason,
        ...(result.outputJson ? { output: JSON.parse(result.outputJson) as unknown } : {}),
        ...(result.usage ? { usage: result.usage } : {}),
      };
      return {
        status: 200,
        body: responseObject({ ...facts(), createdAt: created, runStatus: result.status, result: answer }),
      };
    }

    await streamTurn(reply, {
      runner: options.turns,
      reader: options.events,
      request: turn,
      runId,
      deadlineAt,
      heartbeatMs: options.sseHeartbeatMs,
      render: responseEventRenderer(() => ({ ...facts(), createdAt: created }), outputSchema !== undefined),
      onRunId: (answering) => {
        runId = answering;
        void reply.header('x-run-id', answering);
      },
    });
    return STREAMED;
  });

  router.add(responseOperations.getResponse, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const run = await options.orchestrator.getRun({ tenantId, runId: params.responseId });
    return { status: 200, body: runResponse(run) };
  });

  router.add(responseOperations.cancelResponse, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const cancelled = await options.orchestrator.cancelRun({ tenantId, runId: params.responseId });
    if (!cancelled.accepted)
      throw new HttpError(409, ApiErrorCodes.RUN_FINISHED, `the response already finished (${cancelled.status})`, {
        status: cancelled.status,
      });
    // An accepted cancel ends the run cancelled (a running one at its next step).
    const run = await options.orchestrator.getRun({ tenantId, runId: cancelled.runId || params.responseId });
    return { status: 200, body: runResponse(run, 'cancelled') };
  });
}
