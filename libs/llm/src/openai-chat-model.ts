import {
  ModelError,
  ResponseFormatRejectedError,
  type FinishReason,
  type ModelPort,
  type ModelRequest,
  type ModelResponse,
  type SamplingParameters,
} from '@platform/agent-loop';
import { withChatSpan } from '@platform/telemetry';
import OpenAI from 'openai';
import { classifyOpenAIError, rejectsResponseFormat, type OpenAIErrorContext } from './openai-errors.js';
import { fromOpenAIMessage, toOpenAIMessages, toOpenAITools } from './openai-messages.js';
import { readChatStream, type ChatChunkStream } from './openai-stream-reader.js';
import type { Dispatcher } from 'undici';
import { createPooledFetch, UTF8_WATCH_HEADER, type FetchFunction } from './pooled-fetch.js';

export interface OpenAIChatModelOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /**
   * Per-request timeout: until the response headers arrive, and when streaming also the longest
   * silence allowed between two chunks (the `openai` client's own timeout ends at the headers).
   */
  timeoutMs: number;
  /** Provider label recorded on messages (default `openai`; set it for other OpenAI-compatible providers). */
  provider?: string;
  /** Name of the setting holding the API key, quoted in authentication errors (default `OPENAI_API_KEY`). */
  apiKeyName?: string;
  /** The HTTP client under the `openai` client (default: {@link createPooledFetch}, a keep-alive pool). */
  fetch?: FetchFunction;
  /**
   * The connection pool under the default fetch (default: one shared keep-alive pool). A tenant's
   * own endpoint passes the egress guard's dispatcher, which vets every connection as it opens.
   */
  dispatcher?: Dispatcher;
}

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessage;

const finishReasons: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

/**
 * The model port over the official `openai` client (Chat Completions). Streams when the request
 * has `onTextDelta` or `onToolCallDelta`, and returns the same {@link ModelResponse} either way. Every failure is thrown
 * as a `ModelError` (see {@link classifyOpenAIError}).
 */
export class OpenAIChatModel implements ModelPort {
  readonly provider: string;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly server: URL;
  private readonly timeoutMs: number;
  private readonly apiKeyName: string | undefined;
  /** Kept only to scrub it from error messages. */
  private readonly apiKey: string;
  /** Offsets of the first bad byte of replies that were not UTF-8, by request, until the reply is read. */
  private readonly invalidUtf8 = new Map<string, number>();
  private requests = 0;

  constructor(options: OpenAIChatModelOptions) {
    this.server = new URL(options.baseURL);
    this.provider = options.provider ?? 'openai';
    this.model = options.model;
    this.timeoutMs = options.timeoutMs;
    this.apiKeyName = options.apiKeyName;
    this.apiKey = options.apiKey;
    // maxRetries 0: the loop engine (libs/agent-loop) is the single retry layer, deciding per
    // ModelError kind. Client retries underneath would multiply attempts and hide 429 retry-after.
    const fetch =
      options.fetch ??
      createPooledFetch(options.dispatcher, { onInvalidUtf8: (id, offset) => this.invalidUtf8.set(id, offset) });
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      timeout: options.timeoutMs,
      maxRetries: 0,
      fetch,
    });
  }

  /**
   * Runs one request with its reply's bytes checked: a reply that was not UTF-8 (read with U+FFFD
   * by the client) comes back with a diagnostic saying so, never silently repaired.
   */
  private async checked(run: (headers: Record<string, string>) => Promise<ModelResponse>): Promise<ModelResponse> {
    const id = String(++this.requests);
    try {
      const response = await run({ [UTF8_WATCH_HEADER]: id });
      const offset = this.invalidUtf8.get(id);
      if (offset === undefined) return response;
      return {
        ...response,
        diagnostics: [
          `the model's reply was not valid UTF-8 (first bad byte at offset ${offset} of the body); bad bytes were read as U+FFFD`,
        ],
      };
    } finally {
      this.invalidUtf8.delete(id);
    }
  }

  complete(request: ModelRequest): Promise<ModelResponse> {
    const model = request.model ?? this.model;
    const serverPort = Number(this.server.port || (this.server.protocol === 'https:' ? 443 : 80));
    return withChatSpan(
      { provider: this.provider, model, serverAddress: this.server.hostname, serverPort },
      async (chat) => {
        const streams = Boolean(request.onTextDelta || request.onToolCallDelta);
        const response = await this.checked((headers) =>
          streams ? this.stream(request, model, headers) : this.send(request, model, headers),
        );
        chat.recordResponse({
          model: response.message.model,
          inputTokens: response.usage.inputTokens,
          outputTokens: response.usage.outputTokens,
          finishReasons: [response.finishReason],
        });
        return response;
      },
    );
  }

  private params(request: ModelRequest, model: string): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
    return {
      model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length && request.toolChoice !== 'none'
        ? { tools: toOpenAITools(request.tools), tool_choice: request.toolChoice, parallel_tool_calls: true }
        : {}),
      ...(request.responseFormat
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: {
                name: request.responseFormat.name,
                schema: request.responseFormat.schema,
                strict: request.responseFormat.strict,
              },
            },
          }
        : {}),
      ...samplingParams(request.sampling),
    };
  }

  /** A provider error as a `ModelError`; a refused `response_format` as {@link ResponseFormatRejectedError}. */
  private classify(error: unknown, request: ModelRequest, context: OpenAIErrorContext): ModelError {
    const classified = classifyOpenAIError(error, context);
    if (!request.responseFormat || !rejectsResponseFormat(error)) return classified;
    return new ResponseFormatRejectedError(
      `${classified.message} (the request asked for structured output "${request.responseFormat.name}"; ask again without it)`,
      {
        cause: error,
        status: classified.status,
        provider: this.provider,
        model: context.model,
      },
    );
  }

  private errorContext(model: string, signal: AbortSignal | undefined): OpenAIErrorContext {
    return {
      provider: this.provider,
      model,
      signal,
      timeoutMs: this.timeoutMs,
      baseURL: this.server.href,
      apiKeyName: this.apiKeyName,
      secrets: [this.apiKey],
    };
  }

  private async send(request: ModelRequest, model: string, headers: Record<string, string>): Promise<ModelResponse> {
    const context = this.errorContext(model, request.signal);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(this.params(request, model), {
        signal: request.signal,
        headers,
      });
    } catch (error) {
      throw this.classify(error, request, context);
    }
    const choice = completion.choices[0];
    if (!choice)
      throw new ModelError('server', `${this.provider} returned no choices (model "${model}"); retry later.`, {
        provider: this.provider,
        model,
      });
    return this.toResponse(choice.message, choice.finish_reason, completion.usage, completion.model || model);
  }

  private async stream(request: ModelRequest, model: string, headers: Record<string, string>): Promise<ModelResponse> {
    const context = this.errorContext(model, request.signal);
    let stream: ChatChunkStream;
    try {
      stream = await this.client.chat.completions.create(
        // include_usage: without it a streamed answer carries no token counts at all.
        { ...this.params(request, model), stream: true, stream_options: { include_usage: true } },
        { signal: request.signal, headers },
      );
    } catch (error) {
      throw this.classify(error, request, context);
    }
    const assembled = await readChatStream(stream, {
      ...(request.onTextDelta ? { onTextDelta: request.onTextDelta } : {}),
      ...(request.onToolCallDelta ? { onToolCallDelta: request.onToolCallDelta } : {}),
      idleTimeoutMs: this.timeoutMs,
      signal: request.signal,
      toModelError: (error) => classifyOpenAIError(error, context),
    });
    return this.toResponse(assembled.message, assembled.finishReason, assembled.usage, assembled.model || model);
  }

  /** The one conversion both paths share, so streamed and non-streamed answers are identical. */
  private toResponse(
    message: WireMessage,
    finishReason: string | null,
    usage: OpenAI.CompletionUsage | undefined,
    model: string,
  ): ModelResponse {
    return {
      message: fromOpenAIMessage(message, this.provider, model),
      usage: {
        inputTokens: usage?.prompt_tokens ?? 0,
        outputTokens: usage?.completion_tokens ?? 0,
        totalTokens: usage?.total_tokens ?? 0,
      },
      finishReason: (finishReason && finishReasons[finishReason]) || 'other',
    };
  }
}

/** The agent's sampling settings as the Chat Completions fields; absent ones are left out (the provider's defaults). */
function samplingParams(
  sampling: SamplingParameters | undefined,
): Pick<
  OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
  'temperature' | 'top_p' | 'max_completion_tokens'
> {
  if (!sampling) return {};
  return {
    ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
    ...(sampling.topP !== undefined ? { top_p: sampling.topP } : {}),
    ...(sampling.maxOutputTokens !== undefined ? { max_completion_tokens: sampling.maxOutputTokens } : {}),
  };
}
