import type { AssistantMessage } from '@platform/contracts';
import type { ModelPort, ModelRequest, ModelResponse } from '../model-port.js';
import type { ModelError } from '../model-errors.js';

/** One scripted reply: an assistant message, an error to throw, or a function of the request. */
export type ScriptStep =
  | AssistantMessage
  | ModelError
  | ((request: ModelRequest, call: number) => ModelResponse | AssistantMessage | ModelError);

export interface ScriptedModelOptions {
  provider?: string;
  model?: string;
  /** Usage reported for each reply. */
  usage?: { inputTokens: number; outputTokens: number };
  /**
   * Text replies are streamed in pieces of this many characters through onTextDelta, and tool
   * calls' arguments through onToolCallDelta (each call first appears with none, as OpenAI streams).
   */
  chunkChars?: number;
}

/**
 * A deterministic model for tests: answers from a script, one step per call (the last step
 * repeats), and records every request it was sent.
 */
export class ScriptedModel implements ModelPort {
  readonly provider: string;
  readonly model: string;
  readonly requests: ModelRequest[] = [];

  constructor(
    private readonly script: ScriptStep[],
    private readonly options: ScriptedModelOptions = {},
  ) {
    this.provider = options.provider ?? 'scripted';
    this.model = options.model ?? 'script-1';
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    if (request.signal?.aborted) throw request.signal.reason as Error;
    const step = this.script[Math.min(this.requests.length - 1, this.script.length - 1)];
    if (step === undefined) throw new Error('the script is empty');
    const produced = typeof step === 'function' ? step(request, this.requests.length) : step;
    if (produced instanceof Error) throw produced;
    const usage = this.options.usage ?? { inputTokens: 10, outputTokens: 5 };
    const response: ModelResponse =
      'message' in produced
        ? produced
        : {
            message: { ...produced, provider: produced.provider ?? this.provider, model: produced.model ?? this.model },
            usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
            finishReason: produced.toolCalls?.length ? 'tool_calls' : 'stop',
          };
    const text = response.message.content;
    const size = this.options.chunkChars ?? 4;
    if (request.onTextDelta && text)
      for (let i = 0; i < text.length; i += size) request.onTextDelta(text.slice(i, i + size));
    if (request.onToolCallDelta)
      for (const [index, call] of (response.message.toolCalls ?? []).entries()) {
        request.onToolCallDelta({ index, id: call.id, name: call.name, arguments: '' });
        for (let i = 0; i < call.arguments.length; i += size)
          request.onToolCallDelta({
            index,
            id: call.id,
            name: call.name,
            arguments: call.arguments.slice(i, i + size),
          });
      }
    return response;
  }
}

/** Shorthands for scripts. */
export const reply = {
  text: (content: string): AssistantMessage => ({ role: 'assistant', content }),
  calls: (...calls: Array<[id: string, name: string, args: unknown]>): AssistantMessage => ({
    role: 'assistant',
    content: null,
    toolCalls: calls.map(([id, name, args]) => ({
      id,
      name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
    })),
  }),
};
