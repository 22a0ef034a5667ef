import type { ChatCompletionRequest } from './chat-request.js';
import { contentText } from './conversation.js';

// A crude ~4 characters per token: good enough for clients to exercise their context budgeting
// and trimming, and trivially predictable in tests.
const CHARS_PER_TOKEN = 4;

/** Estimated prompt tokens: message contents, tool-call arguments and tool schemas. */
export function estimatePromptTokens(request: ChatCompletionRequest): number {
  let chars = 0;
  for (const message of request.messages) {
    chars += contentText(message.content).length;
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) chars += call.function.arguments.length;
    }
  }
  for (const tool of request.tools ?? []) chars += JSON.stringify(tool.function).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Estimated tokens of a generated output of `chars` characters. */
export function estimateCompletionTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** OpenAI's `usage` object. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** Assembles a `usage` object. */
export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}
