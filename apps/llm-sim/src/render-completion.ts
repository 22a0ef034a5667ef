import type { AssistantReply } from './assistant-reply.js';
import type { Usage } from './usage.js';

/** Fields shared by a completion and all of its stream chunks. */
export interface CompletionMeta {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

/** Reported on every completion; real responses carry one, some clients log it. */
export const SYSTEM_FINGERPRINT = 'fp_llm_sim';

/** The non-streaming `chat.completion` body. */
export function renderCompletion(reply: AssistantReply, meta: CompletionMeta, usage: Usage) {
  const message = {
    role: 'assistant' as const,
    content: reply.content,
    refusal: null,
    ...(reply.toolCalls.length > 0
      ? {
          tool_calls: reply.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
  return {
    id: meta.id,
    object: 'chat.completion' as const,
    created: meta.created,
    model: meta.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage,
  };
}
