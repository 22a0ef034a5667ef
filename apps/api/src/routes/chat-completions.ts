import type { RunEventEnvelope } from '@platform/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RunEvents } from '../events/run-event-reader.js';
import type { SseStream } from '../events/sse.js';
import { HttpError, parseInput } from '../http-errors.js';
import { principalOf } from '../principal.js';
import { streamTurn } from '../turns/streamed-turn.js';
import { clientGone } from '../turns/client-gone.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { facadeInput, finishReasonOf } from './chat-completions-input.js';

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
export type FacadeMessage = z.infer<typeof FacadeMessage>;

const ChatCompletionBody = z
  .object({
    model: z.string().min(1, 'name an agent profile as the model'),
    messages: z.array(FacadeMessage).min(1, 'send at least one message'),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
  })
  .passthrough();

function usageOf(result: { usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number } }): Record<string, number> {
  return { prompt_tokens: result.usage?.inputTokens ?? 0, completion_tokens: result.usage?.outputTokens ?? 0, total_tokens: result.usage?.totalTokens ?? 0 };
}

/**
 * The OpenAI-compatible facade: `model` names an agent profile, so any OpenAI chat client can talk
 * to an agent. Tools run on the platform; the client receives the final assistant message
 * (streamed as deltas when asked). The conversation is the `x-conversation-id` header when given
 * (history kept by the platform), else a new one per request made from the messages sent.
 */
export function registerChatCompletionRoutes(app: FastifyInstance, options: ChatCompletionRoutesOptions): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    const principal = principalOf(request);
    const body = parseInput(ChatCompletionBody, request.body, 'INVALID_BODY');
    const { conversationId, content } = facadeInput(body.messages, request.headers['x-conversation-id']);
    if (content.length > options.maxMessageChars) throw new HttpError(413, 'CONTENT_TOO_LONG', `the messages are longer than ${options.maxMessageChars} characters`);
    const runId = newRunId();
    const id = `chatcmpl-${runId.slice('run_'.length)}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;
    const turn = { tenantId: principal.tenantId, conversationId, content, requestId: request.id, profile: model, stream: body.stream === true, tier: principal.tier ?? '', timeZone: '' };
    const deadlineAt = Date.now() + options.turnWaitMs;
    void reply.header('x-run-id', runId).header('x-conversation-id', conversationId);

    if (!turn.stream) {
      const result = await options.turns.run(turn, runId, deadlineAt, clientGone(reply));
      return reply.send({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: result.response, refusal: null }, finish_reason: finishReasonOf(result.stopReason), logprobs: null }],
        usage: usageOf(result),
      });
    }

    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
      JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] });
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
      if (event.type === 'message_chunk' && typeof event.data['delta'] === 'string') held.push(event.data['delta']);
      if (event.type === 'message_end') {
        const message = event.data['message'] as { toolCalls?: unknown[] } | undefined;
        if (!message?.toolCalls?.length) {
          for (const delta of held) stream.sendData(chunk({ content: delta }));
          streamedText ||= held.length > 0;
        }
        held = [];
      }
      if (event.type !== 'execution_end') return;
      const result = (event.data['result'] ?? {}) as { response?: string; stopReason?: string; usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number } };
      // A resumed run replays without streaming, and a stopped run answers with a stop message: send it whole.
      if (!streamedText && result.response) stream.sendData(chunk({ content: result.response }));
      stream.sendData(chunk({}, finishReasonOf(result.stopReason ?? '')));
      if (body.stream_options?.include_usage) stream.sendData(JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(result) }));
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
    });
    return reply;
  });
}
