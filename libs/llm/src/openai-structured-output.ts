import { ModelError } from '@platform/agent-loop';
import { withChatSpan } from '@platform/telemetry';
import OpenAI from 'openai';
import { z } from 'zod';
import { classifyOpenAIError } from './openai-errors.js';
import { createPooledFetch, type FetchFunction } from './pooled-fetch.js';
import { LlmError } from './llm-error.js';

export interface OpenAIStructuredOutputOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  provider?: string;
  apiKeyName?: string;
  fetch?: FetchFunction;
}

/**
 * A zod schema as the JSON Schema sent in `response_format`, converted once per schema: the
 * conversion walks the whole schema, and redone on every call it was about a fifth of memory's
 * busy CPU while ingesting (the same extraction schema goes with every turn).
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let converted = jsonSchemas.get(schema);
  if (!converted) {
    converted = z.toJSONSchema(schema, { io: 'input' });
    jsonSchemas.set(schema, converted);
  }
  return converted;
}

export interface StructuredRequest<S extends z.ZodType> {
  /** Names the JSON Schema in `response_format` (letters, digits, "_" and "-"). */
  schemaName: string;
  schema: S;
  /**
   * The schema the model is shown, when it differs from the one the answer is validated with:
   * e.g. a lenient envelope validated here whose parts the caller validates one by one, while the
   * model is still shown the exact shape of every part. Defaults to `schema`.
   */
  wireSchema?: z.ZodType;
  system: string;
  user: string;
  signal?: AbortSignal;
  /** What was wrong with an earlier answer, so the model can correct itself. */
  feedback?: string;
}

/** The model answered, but not with JSON that the schema accepts ("model misbehaved"). */
export class StructuredOutputError extends LlmError {
  readonly code = 'INVALID_MODEL_OUTPUT';

  constructor(
    message: string,
    /** The model's raw answer (may be long; log it cut). */
    readonly raw: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/**
 * One Chat Completions call whose answer must be a JSON document matching a zod schema, asked for
 * with `response_format: json_schema` and validated here (a provider's own enforcement is never
 * trusted). Transport and provider failures are thrown as `ModelError` (see classifyOpenAIError);
 * an answer that does not validate as {@link StructuredOutputError}.
 */
export class OpenAIStructuredOutput {
  readonly provider: string;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly server: URL;
  private readonly options: OpenAIStructuredOutputOptions;

  constructor(options: OpenAIStructuredOutputOptions) {
    this.options = options;
    this.server = new URL(options.baseURL);
    this.provider = options.provider ?? 'openai';
    this.model = options.model;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey || 'unset',
      timeout: options.timeoutMs,
      maxRetries: 0,
      fetch: options.fetch ?? createPooledFetch(),
    });
  }

  async complete<S extends z.ZodType>(request: StructuredRequest<S>): Promise<z.output<S>> {
    const serverPort = Number(this.server.port || (this.server.protocol === 'https:' ? 443 : 80));
    return withChatSpan(
      { provider: this.provider, model: this.model, serverAddress: this.server.hostname, serverPort },
      async (chat) => {
        const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
          ...(request.feedback
            ? [
                {
                  role: 'user' as const,
                  content: `Your previous answer was invalid: ${request.feedback}. Answer again with JSON that matches the schema.`,
                },
              ]
            : []),
        ];
        let completion: OpenAI.Chat.Completions.ChatCompletion;
        try {
          completion = await this.client.chat.completions.create(
            {
              model: this.model,
              messages,
              response_format: {
                type: 'json_schema',
                json_schema: {
                  name: request.schemaName,
                  schema: jsonSchemaOf(request.wireSchema ?? request.schema),
                  strict: false,
                },
              },
            },
            { signal: request.signal },
          );
        } catch (error) {
          throw classifyOpenAIError(error, {
            provider: this.provider,
            model: this.model,
            signal: request.signal,
            timeoutMs: this.options.timeoutMs,
            baseURL: this.server.href,
            apiKeyName: this.options.apiKeyName,
            secrets: [this.options.apiKey],
          });
        }
        const choice = completion.choices[0];
        if (!choice)
          throw new ModelError('server', `${this.provider} returned no choices (model "${this.model}")`, {
            provider: this.provider,
            model: this.model,
          });
        chat.recordResponse({
          model: completion.model || this.model,
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
          finishReasons: [choice.finish_reason ?? 'other'],
        });
        return parseStructured(request.schema, choice.message.content ?? '');
      },
    );
  }
}

/** Parses a model's JSON answer against a schema; a fenced (```json) answer is accepted. */
export function parseStructured<S extends z.ZodType>(schema: S, raw: string): z.output<S> {
  const text = raw.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StructuredOutputError(`the answer is not JSON: ${(error as Error).message}`, raw, { cause: error });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new StructuredOutputError(
      `the answer does not match the schema: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      raw,
      { cause: result.error },
    );
  }
  return result.data;
}
