import type { ChatMessage } from '@platform/contracts';

/** What one run of the loop starts from. */
export interface LoopInput {
  runId: string;
  /** The assembled input (see assembleTurnInput): system prompt, history, the new message. */
  messages: readonly ChatMessage[];
}
