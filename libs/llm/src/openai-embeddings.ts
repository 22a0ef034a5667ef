import { ModelError } from '@platform/agent-loop';
import OpenAI from 'openai';
import { classifyOpenAIError } from './openai-errors.js';
import { createPooledFetch, type FetchFunction } from './pooled-fetch.js';

export interface OpenAIEmbeddingsOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Vector length; sent as `dimensions` and checked on every answer. */
  dimensions: number;
  timeoutMs: number;
  provider?: string;
  apiKeyName?: string;
  fetch?: FetchFunction;
}

/**
 * Embeddings over an OpenAI-compatible `/v1/embeddings` endpoint. Failures are thrown as
 * `ModelError` (unreachable, timeout, auth...), and an answer with the wrong count or length of
 * vectors as a `ModelError` of kind `server`.
 */
export class OpenAIEmbeddings {
  readonly model: string;
  readonly dimensions: number;
  readonly provider: string;
  private readonly client: OpenAI;
  private readonly options: OpenAIEmbeddingsOptions;

  constructor(options: OpenAIEmbeddingsOptions) {
    this.options = options;
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.provider = options.provider ?? 'openai';
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey || 'unset',
      timeout: options.timeoutMs,
      maxRetries: 0,
      fetch: options.fetch ?? createPooledFetch(),
    });
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return [];
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create(
        { model: this.model, input: [...texts], dimensions: this.dimensions, encoding_format: 'float' },
        { signal },
      );
    } catch (error) {
      throw classifyOpenAIError(error, {
        provider: this.provider,
        model: this.model,
        signal,
        timeoutMs: this.options.timeoutMs,
        baseURL: this.options.baseURL,
        apiKeyName: this.options.apiKeyName,
        secrets: [this.options.apiKey],
      });
    }
    const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    if (
      vectors.length !== texts.length ||
      vectors.some((v) => !Array.isArray(v) || v.length !== this.dimensions || v.some((x) => !Number.isFinite(x)))
    ) {
      throw new ModelError(
        'server',
        `embeddings from ${this.provider} (model "${this.model}") did not hold ${texts.length} vectors of ${this.dimensions} numbers`,
        { provider: this.provider, model: this.model },
      );
    }
    return vectors;
  }
}
