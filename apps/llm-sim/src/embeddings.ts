import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { bearerToken } from './auth.js';
import { abortableDelay, CLIENT_CLOSED_REQUEST, disconnectSignal } from './delay.js';
import { ArmedEmbeddingFaultSchema } from './embedding-faults.js';
import { embedText, toBase64Float32 } from './embedding-vectors.js';
import { faultError } from './faults.js';
import { invalidRequest, modelNotFound } from './openai-errors.js';
import { sendError, type LlmSimApp, type SimState } from './sim-state.js';
import { estimateCompletionTokens } from './usage.js';

/** Largest `dimensions` a request may ask for (pgvector's `vector` type stores up to 16,000). */
const MAX_EMBEDDING_DIMENSIONS = 16_000;
/** OpenAI's limit on inputs per request. */
const MAX_EMBEDDING_INPUTS = 2048;

const TokenIds = z.array(z.number().int().nonnegative()).min(1);

/** The OpenAI embeddings request body (unknown fields pass, as real clients send extras). */
const EmbeddingRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([
    z.string().min(1),
    z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS),
    TokenIds,
    z.array(TokenIds).min(1).max(MAX_EMBEDDING_INPUTS),
  ]),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.number().int().min(1).max(MAX_EMBEDDING_DIMENSIONS).nullish(),
  user: z.string().nullish(),
});

/** A validated embeddings request. */
type EmbeddingRequest = z.infer<typeof EmbeddingRequestSchema>;

/** Inputs as texts: token-id arrays are embedded as their ids joined by spaces (deterministic). */
function inputTexts(input: EmbeddingRequest['input']): string[] {
  if (typeof input === 'string') return [input];
  if (input.length === 0) return [];
  if (typeof input[0] === 'number') return [(input as number[]).join(' ')];
  return (input as Array<string | number[]>).map((item) => (typeof item === 'string' ? item : item.join(' ')));
}

/** Renders the OpenAI `list` of embeddings for one validated request. */
function renderEmbeddings(request: EmbeddingRequest, dimensions: number) {
  const texts = inputTexts(request.input);
  const data = texts.map((text, index) => {
    const vector = embedText(text, dimensions);
    return {
      object: 'embedding' as const,
      index,
      embedding: request.encoding_format === 'base64' ? toBase64Float32(vector) : vector,
    };
  });
  const promptTokens = texts.reduce((sum, text) => sum + estimateCompletionTokens(text.length), 0);
  return {
    object: 'list' as const,
    data,
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** Registers `POST /v1/embeddings` and its test-only fault and log endpoints under `/_sim/embeddings`. */
export function registerEmbeddings(app: LlmSimApp, state: SimState): void {
  app.post('/v1/embeddings', async (request: FastifyRequest, reply: FastifyReply) => {
    const entry = state.embeddingLog.record(request.body);
    const parsed = EmbeddingRequestSchema.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : null;
      const detail = parsed.error.issues
        .map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`)
        .join('; ');
      return sendError(reply, invalidRequest(`Invalid embeddings request: ${detail}`, param), entry);
    }
    const body = parsed.data;
    if (!state.embedding.models.includes(body.model)) return sendError(reply, modelNotFound(body.model), entry);

    const mishap = state.embeddingFaults.take();
    if (!(await abortableDelay(mishap.delayMs, disconnectSignal(reply)))) {
      entry.status = CLIENT_CLOSED_REQUEST;
      reply.hijack();
      reply.raw.destroy();
      return reply;
    }
    if (mishap.fault) {
      entry.fault = mishap.fault.kind;
      request.log.info({ fault: mishap.fault.kind }, 'injecting embeddings fault');
      if (mishap.fault.kind === 'stream_cut') {
        entry.status = 200;
        reply.hijack();
        reply.raw.destroy();
        return reply;
      }
      const error = faultError(
        { ...mishap.fault, kind: mishap.fault.kind },
        {
          model: body.model,
          promptTokens: 0,
          contextWindowTokens: undefined,
          apiKey: bearerToken(request.headers.authorization),
        },
      );
      return sendError(reply, error, entry);
    }
    entry.status = 200;
    state.counters.add('embeddings', Number(request.headers['content-length']), inputTexts(body.input).length);
    return reply.send(renderEmbeddings(body, body.dimensions ?? state.embedding.dimensions));
  });

  // Test-only: arm a fault for the next embeddings requests, disarm it, read what was received.
  app.post('/_sim/embeddings/faults', (request, reply) => {
    const parsed = ArmedEmbeddingFaultSchema.safeParse(request.body);
    if (!parsed.success) return sendError(reply, invalidRequest(`Invalid fault: ${z.prettifyError(parsed.error)}`));
    state.embeddingFaults.arm(parsed.data);
    return { status: 'ok', armed: parsed.data };
  });
  app.delete('/_sim/embeddings/faults', () => {
    state.embeddingFaults.clear();
    return { status: 'ok' };
  });
  app.get('/_sim/embeddings/requests', () => ({ requests: state.embeddingLog.list() }));
}
