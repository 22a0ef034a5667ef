import { ConversationId, type RunEventEnvelope } from '@platform/contracts';
import { z } from 'zod';
import type { RunEvents } from '../events/run-event-reader.js';
import type { SseStream } from '../events/sse.js';
import { HttpError } from '../http-errors.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { clientGone } from '../turns/client-gone.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { facadeInput, finishReasonOf } from './chat-completions-input.js';
import { FacadeResponseFormat, outputSchemaOfFormat } from './chat-completions-format.js';
import { KEYED_TURN_ERRORS } from './conversations.js';
import {
  idempotencyFields,
  IdempotencyKeyHeader,
  idempotencyKeyOf,
  keyedConversationId,
  requestFingerprint,
} from '../turns/idempotency-key.js';
import { ApiErrorCodes } from '../error-codes.js';

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
            schema: {
              type: 'object',
              properties: { sum: { type: 'number' } },
              required: ['sum'],
              additionalProperties: false,
            },
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

/** The fingerprint of a keyed completion: its body but `stream` and `stream_options`, and the conversation it names. */
function facadeFingerprint(body: z.infer<typeof ChatCompletionBody>, conversationHeader: unknown): string {
  const asked = Object.fromEntries(
    Object.entries(body).filter(([field]) => field !== 'stream' && field !== 'stream_options'),
  );
  const named = typeof conversationHeader === 'string' ? conversationHeader : '';
  return requestFingerprint('createChatCompletion', named, asked);
}

function usageOf(result: {
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
}): z.infer<typeof CompletionUsage> {
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
    const principal = principalOf(request);
    const idempotencyKey = idempotencyKeyOf(request);
    const conversationHeader = request.headers['x-conversation-id'];
    // What is asked, without how the answer is delivered (`stream`): streamed or not, a retry is the same request.
    const fingerprint = idempotencyKey ? facadeFingerprint(body, conversationHeader) : undefined;
    const { conversationId, content } = facadeInput(
      body.messages,
      conversationHeader,
      ...(idempotencyKey && fingerprint ? [keyedConversationId(idempotencyKey, fingerprint)] : []),
    );
    if (content.length > options.maxMessageChars)
      throw new HttpError(
        413,
        ApiErrorCodes.CONTENT_TOO_LONG,
        `the messages are longer than ${options.maxMessageChars} characters`,
      );
    const runId = newRunId();
    // A keyed repeat is answered by the first send's run, and so with its completion id.
    const completionId = (run: string): string => `chatcmpl-${run.slice('run_'.length)}`;
    let id = completionId(runId);
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;
    const outputSchema = outputSchemaOfFormat(body.response_format);
    const turn = {
      protocol: 'chat_completions' as const,
      tenantId: principal.tenantId,
      conversationId,
      content,
      requestId: request.id,
      profile: model,
      stream: body.stream === true,
      tier: principal.tier ?? '',
      // The end user (the token's sub, or the user a key acts for): the run records it, and only
      // that user (or an admin) decides the run's approvals (docs/access.md#approvals).
      subject: principal.subject ?? '',
      // Its role: the orchestrator lets a member send only to their own conversations and shared
      // ones, and a reply that reads as an approval decision decides only what the role may.
      role: principal.role,
      timeZone: '',
      ...(outputSchema ? { outputSchemaJson: JSON.stringify(outputSchema) } : {}),
      ...idempotencyFields(idempotencyKey, () => fingerprint ?? ''),
    };
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
    // A model message's text is held until the message ends: text written before tool calls is
    // the model thinking aloud, not the answer, a retried call's partial text is void, and the
    // streamed answer must equal the final one.
    let held: string[] = [];
    let streamedText = false;
    let started = false;
    const render = (stream: SseStream, event: RunEventEnvelope): void => {
      if (!started) {
        started = true;
        stream.sendData(chunk({ role: 'assistant', content: '' }));
      }
      // A model call retried (or moved to a fallback model) streams its message again from the start.
      if (event.type === 'state_change' && event.data['state'] === 'retrying_model') held = [];
      // A JSON response format's answer is sent whole at the end: the checked JSON, not the model's text.
      if (event.type === 'message_chunk' && !outputSchema && typeof event.data['delta'] === 'string')
        held.push(event.data['delta']);
      if (event.type === 'message_end') {
        const message = event.data['message'] as { toolCalls?: unknown[] } | undefined;
        if (!message?.toolCalls?.length) {
          for (const delta of held) stream.sendData(chunk({ content: delta }));
          streamedText ||= held.length > 0;
        }
        held = [];
      }
      if (event.type !== 'execution_end') return;
      const result = (event.data['result'] ?? {}) as {
        response?: string;
        output?: unknown;
        stopReason?: string;
        usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
      };
      // A resumed run replays without streaming, and a stopped run answers with a stop message: send it whole.
      const content = result.output !== undefined ? JSON.stringify(result.output) : result.response;
      if (!streamedText && content) stream.sendData(chunk({ content }));
      stream.sendData(chunk({}, finishReasonOf(result.stopReason ?? '')));
      if (body.stream_options?.include_usage)
        stream.sendData(
          JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(result) }),
        );
    };
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
