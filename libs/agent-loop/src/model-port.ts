import type { AssistantMessage, ChatMessage } from '@platform/contracts';

/** A tool as the model is offered it: name, description and JSON Schema of its arguments. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, totalTokens: a.totalTokens + b.totalTokens };
}

/** One model call. */
export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolSchema[];
  /** `none` forbids tool calls (e.g. the final summary after the turn limit). */
  toolChoice: 'auto' | 'none';
  /** Overrides the adapter's default model. */
  model?: string;
  signal?: AbortSignal;
  /** Receives text as it streams, when the adapter streams. */
  onTextDelta?: (delta: string) => void;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ModelResponse {
  /** The assistant message exactly as the provider produced it (provider fields preserved). */
  message: AssistantMessage;
  usage: TokenUsage;
  finishReason: FinishReason;
  /**
   * Set by text-protocol adapters when the reply broke the protocol: the observation to send
   * the model next (as a user message) so it can correct itself. The loop then continues.
   */
  protocolFeedback?: string;
  /**
   * What the adapter had to repair to read the reply (e.g. bytes that were not UTF-8, read as
   * U+FFFD); the loop records them with the step.
   */
  diagnostics?: string[];
}

/** The model port: what the loop needs from any model provider. */
export interface ModelPort {
  /** Provider family, e.g. `openai`; request views mask tool artifacts when it changes. */
  readonly provider: string;
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
