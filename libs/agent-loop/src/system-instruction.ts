import type { ChatMessage } from '@platform/contracts';

/**
 * A request's messages with an instruction added to its system prompt (the first message, when it
 * is one; otherwise a system message of its own before the rest). Only the request view changes:
 * the run's history is never rewritten.
 */
export function withSystemInstruction(messages: readonly ChatMessage[], instruction: string): ChatMessage[] {
  const [first, ...rest] = messages;
  if (first?.role === 'system' && typeof first.content === 'string')
    return [{ ...first, content: `${first.content}\n\n${instruction}` }, ...rest];
  return [{ role: 'system', content: instruction }, ...messages];
}
