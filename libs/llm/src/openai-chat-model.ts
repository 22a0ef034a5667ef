import type { FinishReason, ModelPort, ModelRequest, ModelResponse } from '@platform/agent-loop';
import { withChatSpan } from '@platform/telemetry';
import OpenAI from 'openai';
import { fromOpenAIMessage, toOpenAIMessages, toOpenAITools } from './openai-messages.js';

export interface OpenAIChatModelOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-request timeout. */
  timeoutMs: number;
  /** Provider label recorded on messages (default `openai`; set it for other OpenAI-compatible providers). */
  provider?: string;
}

const finishReasons: Record<string, FinishReason> = { stop: 'stop', tool_calls: 'tool_calls', length: 'length', content_filter: 'content_filter' };

/** The model port over the official `openai` client (Chat Completions). */
export class OpenAIChatModel implements ModelPort {
  readonly provider: string;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly server: URL;

  constructor(options: OpenAIChatModelOptions) {
    this.server = new URL(options.baseURL);
    this.provider = options.provider ?? 'openai';
    this.model = options.model;
    // The loop owns retries (one retry layer); the client must not retry on its own.
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, timeout: options.timeoutMs, maxRetries: 0 });
  }

  complete(request: ModelRequest): Promise<ModelResponse> {
    const model = request.model ?? this.model;
    const serverPort = Number(this.server.port || (this.server.protocol === 'https:' ? 443 : 80));
    return withChatSpan({ provider: this.provider, model, serverAddress: this.server.hostname, serverPort }, async (chat) => {
      const response = await this.send(request, model);
      chat.recordResponse({ model: response.message.model, inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens, finishReasons: [response.finishReason] });
      return response;
    });
  }

  private async send(request: ModelRequest, model: string): Promise<ModelResponse> {
    const completion = await this.client.chat.completions.create(
      {
        model,
        messages: toOpenAIMessages(request.messages),
        ...(request.tools.length && request.toolChoice !== 'none' ? { tools: toOpenAITools(request.tools), tool_choice: request.toolChoice, parallel_tool_calls: true } : {}),
      },
      { signal: request.signal },
    );
    const choice = completion.choices[0];
    if (!choice) throw new Error('the model returned no choices');
    const usage = completion.usage;
    return {
      message: fromOpenAIMessage(choice.message, this.provider, completion.model || model),
      usage: {
        inputTokens: usage?.prompt_tokens ?? 0,
        outputTokens: usage?.completion_tokens ?? 0,
        totalTokens: usage?.total_tokens ?? 0,
      },
      finishReason: finishReasons[choice.finish_reason] ?? 'other',
    };
  }
}
