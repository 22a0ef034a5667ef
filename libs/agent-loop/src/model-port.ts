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
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/**
 * Asks for an answer that is one JSON document matching a JSON Schema (the provider's structured
 * output). Provider-neutral: each adapter maps it to its wire (OpenAI: `response_format:
 * json_schema`). The caller still validates the answer; a provider's enforcement is never trusted.
 */
export interface JsonSchemaResponseFormat {
  type: 'json_schema';
  /** Names the schema (1-64 letters, digits, "_" or "-"). */
  name: string;
  /** A JSON Schema whose root is an object. */
  schema: Record<string, unknown>;
  /**
   * Hold the model to the schema exactly (OpenAI's strict mode). Only for schemas that allow it:
   * every object closed (`additionalProperties: false`) with every property required; see
   * {@link allowsStrictMode}.
   */
  strict: boolean;
}

/** A piece of a tool call's arguments as the model writes them (see {@link ModelRequest.onToolCallDelta}). */
export interface ToolCallDelta {
  /** The call's position among the message's calls, as the provider numbers them. */
  index: number;
  /** The call's id as the provider gave it so far ('' when it gave none yet). */
  id: string;
  /** The tool's name as the provider gave it so far. */
  name: string;
  /** The next piece of the arguments' JSON text ('' when the call appeared without one). */
  arguments: string;
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
  /**
   * Receives each piece of a tool call's arguments as it streams, when the adapter streams native
   * tool calls: once when the call first appears (with the piece it came with, perhaps none), then
   * once per piece, in order. The pieces of a call add up to its arguments in the response.
   */
  onToolCallDelta?: (delta: ToolCallDelta) => void;
  /**
   * Structured output: the answer must be JSON matching this schema. An adapter whose provider
   * rejects it throws {@link ResponseFormatRejectedError} so the caller can ask in text instead.
   */
  responseFormat?: JsonSchemaResponseFormat;
  /** The agent's sampling settings (its `modelParameters`); what is absent is the provider's default. */
  sampling?: SamplingParameters;
}

/** Sampling settings an agent may set for its model calls. */
export interface SamplingParameters {
  temperature?: number;
  topP?: number;
  /** Most tokens of the model's answer (the provider's `max_completion_tokens`). */
  maxOutputTokens?: number;
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
