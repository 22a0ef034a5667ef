import { ConversationId } from '@platform/contracts';
import { z } from 'zod';
import type { RunEvents } from '../events/run-event-reader.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { answerStream, type StreamedResult } from '../turns/answer-stream.js';
import { facadeTurn } from '../turns/facade-turn.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { clientGone } from '../turns/client-gone.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { facadeInput, finishReasonOf } from './chat-completions-input.js';
import { FacadeResponseFormat, outputSchemaOfFormat, SUM_SCHEMA_EXAMPLE } from './chat-completions-format.js';
import { KEYED_TURN_ERRORS } from './conversations.js';
import {
  askedFingerprint,
  IdempotencyKeyHeader,
  idempotencyKeyOf,
  keyedConversationId,
} from '../turns/idempotency-key.js';

export interface ChatCompletionRoutesOptions {
  turns: TurnRunner;
  events: RunEvents;
  maxMessageChars: number;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

const ContentPart = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const FacadeMessage = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
  })
  .passthrough();
type FacadeMessage = z.infer<typeof FacadeMessage>;

const ChatCompletionBody = z
  .object({
    model: z.string().min(1, 'name an agent as the model').meta({
      description: 'The agent: an id (`agt_…`, `builtin:…`) or a name (a tenant agent wins over a built-in one).',
    }),
    messages: z.array(FacadeMessage).min(1, 'send at least one message'),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
    response_format: FacadeResponseFormat.nullish(),
  })
  .passthrough();

const CompletionUsage = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
});

const ChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        finish_reason: z.enum(['stop', 'length']),
        logprobs: z.null(),
      }),
    ),
    usage: CompletionUsage,
  })
  .meta({ id: 'ChatCompletion' });

const ChatCompletionChunk = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        finish_reason: z.enum(['stop', 'length']).nullable(),
        logprobs: z.null(),
      }),
    ),
    usage: CompletionUsage.optional(),
  })
  .meta({ id: 'ChatCompletionChunk', description: 'One `data:` line of the stream; the last line is `data: [DONE]`.' });

export const chatCompletionOperations = {
  createChatCompletion: defineOperation({
    method: 'POST',
    path: '/v1/chat/completions',
    operationId: 'createChatCompletion',
    summary: 'OpenAI-compatible chat completion: `model` names an agent',
    description:
      'Tools run on the platform; the client receives the final assistant message (streamed as deltas with `stream: true`; with a JSON `response_format`, the checked JSON in one delta at the end). The conversation is `x-conversation-id` when given (history kept by the platform), else a new one per request.',
    tags: ['openai'],
    access: 'tenant',
    role: 'member',
    body: ChatCompletionBody,
    headers: z.object({
      'x-conversation-id': ConversationId.optional().meta({
        description: 'Continue this conversation: only the latest user message is sent.',
      }),
      'idempotency-key': IdempotencyKeyHeader,
    }),
    bodyExamples: {
      oneShot: { model: 'default', messages: [{ role: 'user', content: 'What is 2 + 2?' }] },
      jsonSchema: {
        model: 'default',
        messages: [{ role: 'user', content: 'What is 2 + 2?' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'sum',
            schema: SUM_SCHEMA_EXAMPLE,
            strict: true,
          },
        },
      },
    },
    responses: {
      200: {
        description: 'The completion, or its chunks when `stream` is true.',
        body: ChatCompletion,
        events: ChatCompletionChunk,
        headers: z.object({ 'x-run-id': z.string(), 'x-conversation-id': z.string() }),
        examples: {
          answered: {
            id: 'chatcmpl-0b7c4c57',
            object: 'chat.completion',
            created: 1780306200,
            model: 'default',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: '4', refusal: null },
                finish_reason: 'stop',
                logprobs: null,
              },
            ],
            usage: { prompt_tokens: 120, completion_tokens: 2, total_tokens: 122 },
          },
        },
      },
    },
    errors: { ...KEYED_TURN_ERRORS, 400: [...KEYED_TURN_ERRORS[400], 'NO_USER_MESSAGE', 'INVALID_CONVERSATION_ID'] },
  }),
};

function usageOf(result: { usage?: StreamedResult['usage'] }): z.infer<typeof CompletionUsage> {
  return {
    prompt_tokens: result.usage?.inputTokens ?? 0,
    completion_tokens: result.usage?.outputTokens ?? 0,
    total_tokens: result.usage?.totalTokens ?? 0,
  };
}

/**
 * The OpenAI-compatible facade: `model` names an agent (an id or a name, a tenant's own or a
 * built-in one), so any OpenAI chat client can talk to it. Tools run on the platform; the client receives the final assistant message
 * (streamed as deltas when asked). The conversation is the `x-conversation-id` header when given
 * (history kept by the platform), else a new one per request made from the messages sent.
 */
export function registerChatCompletionRoutes(router: OperationRouter, options: ChatCompletionRoutesOptions): void {
  router.add(chatCompletionOperations.createChatCompletion, async ({ body, request, reply }) => {
    const idempotencyKey = idempotencyKeyOf(request);
    const conversationHeader = request.headers['x-conversation-id'];
    // What is asked, without how the answer is delivered (`stream`): streamed or not, a retry is the same request.
    const fingerprint = idempotencyKey
      ? askedFingerprint('createChatCompletion', body, ['stream', 'stream_options'], conversationHeader)
      : undefined;
    const { conversationId, content } = facadeInput(
      body.messages,
      conversationHeader,
      ...(idempotencyKey && fingerprint ? [keyedConversationId(idempotencyKey, fingerprint)] : []),
    );
    const runId = newRunId();
    // A keyed repeat is answered by the first send's run, and so with its completion id.
    const completionId = (run: string): string => `chatcmpl-${run.slice('run_'.length)}`;
    let id = completionId(runId);
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;
    const outputSchema = outputSchemaOfFormat(body.response_format);
    const turn = facadeTurn(request, {
      protocol: 'chat_completions',
      conversationId,
      content,
      model,
      stream: body.stream === true,
      maxMessageChars: options.maxMessageChars,
      outputSchema,
      idempotencyKey,
      fingerprint,
    });
    const deadlineAt = Date.now() + options.turnWaitMs;
    void reply.header('x-run-id', runId).header('x-conversation-id', conversationId);

    if (!turn.stream) {
      const result = await options.turns.run(turn, runId, deadlineAt, clientGone(reply));
      id = completionId(result.runId || runId);
      void reply.header('x-run-id', result.runId || runId);
      return {
        status: 200,
        body: {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              // A JSON response format: the answer as JSON (a fence the model put around it is gone).
              message: { role: 'assistant', content: result.outputJson || result.response, refusal: null },
              finish_reason: finishReasonOf(result.stopReason),
              logprobs: null,
            },
          ],
          usage: usageOf(result),
        },
      };
    }

    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      });
    const render = answerStream({
      structured: outputSchema !== undefined,
      start: (stream) => stream.sendData(chunk({ role: 'assistant', content: '' })),
      delta: (stream, text) => stream.sendData(chunk({ content: text })),
      end: (stream, result, rest) => {
        if (rest) stream.sendData(chunk({ content: rest }));
        stream.sendData(chunk({}, finishReasonOf(result.stopReason ?? '')));
        if (body.stream_options?.include_usage)
          stream.sendData(
            JSON.stringify({
              id,
              object: 'chat.completion.chunk',
              created,
              model,
              choices: [],
              usage: usageOf(result),
            }),
          );
      },
    });
    await streamTurn(reply, {
      runner: options.turns,
      reader: options.events,
      request: turn,
      runId,
      deadlineAt,
      heartbeatMs: options.sseHeartbeatMs,
      render,
      finish: (stream) => stream.sendData('[DONE]'),
      onRunId: (answering) => {
        id = completionId(answering);
        void reply.header('x-run-id', answering);
      },
    });
    return STREAMED;
  });
}
