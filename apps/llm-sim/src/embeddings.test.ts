import {
  APIConnectionError,
  APIConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cosineSimilarity, embedText } from './embedding-vectors.js';
import type { RequestLogEntry } from './request-log.js';
import { startSim, type RunningSim } from './test-support/sim.js';

let sim: RunningSim;

beforeAll(async () => {
  sim = await startSim({ embeddingModels: ['sim-embed-1', 'text-embedding-3-small'], embeddingDimensions: 64 });
});
afterAll(() => sim.close());
beforeEach(() => fetch(`${sim.url}/_sim/reset`, { method: 'POST' }));

const armFault = (fault: object) =>
  fetch(`${sim.url}/_sim/embeddings/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
const rawEmbeddings = (body: object) =>
  fetch(`${sim.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  });

describe('POST /v1/embeddings', () => {
  it('answers the official client (which asks for base64) with the deterministic vectors', async () => {
    const result = await sim
      .client()
      .embeddings.create({ model: 'sim-embed-1', input: ['Alice lives in Berlin', 'Bob likes tea'] });
    expect(result.object).toBe('list');
    expect(result.model).toBe('sim-embed-1');
    expect(result.data.map((d) => d.index)).toEqual([0, 1]);
    const first = result.data[0]?.embedding ?? [];
    expect(first).toHaveLength(64);
    const expected = embedText('Alice lives in Berlin', 64);
    first.forEach((value, i) => expect(value).toBeCloseTo(expected[i] ?? NaN, 6));
    expect(result.usage.prompt_tokens).toBe(Math.ceil(21 / 4) + Math.ceil(13 / 4));
  });

  it('answers float and base64 encodings with the same numbers', async () => {
    const float = (await (
      await rawEmbeddings({ model: 'sim-embed-1', input: 'hello world', encoding_format: 'float' })
    ).json()) as {
      data: Array<{ embedding: number[] }>;
    };
    const base64 = (await (
      await rawEmbeddings({ model: 'sim-embed-1', input: 'hello world', encoding_format: 'base64' })
    ).json()) as {
      data: Array<{ embedding: string }>;
    };
    const decoded = Array.from(new Float32Array(copyOut(Buffer.from(base64.data[0]?.embedding ?? '', 'base64'))));
    expect(decoded).toEqual(Array.from(new Float32Array(float.data[0]?.embedding ?? [])));
  });

  it('honours dimensions and accepts token-id inputs', async () => {
    const client = sim.client();
    const short = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x y z', dimensions: 8 });
    expect(short.data[0]?.embedding).toHaveLength(8);
    const tokens = await client.embeddings.create({ model: 'sim-embed-1', input: [[1, 2, 3], [4]] });
    expect(tokens.data).toHaveLength(2);
  });

  it('makes a query close to the fact it is about', async () => {
    const result = await sim.client().embeddings.create({
      model: 'sim-embed-1',
      input: ['Where does Alice live?', 'Alice lives in Berlin', 'The invoice is overdue'],
    });
    const [query, fact, other] = result.data.map((d) => d.embedding);
    expect(cosineSimilarity(query ?? [], fact ?? [])).toBeGreaterThan(cosineSimilarity(query ?? [], other ?? []));
  });

  it('rejects bad bodies and unknown models like OpenAI', async () => {
    const empty = await rawEmbeddings({ model: 'sim-embed-1', input: '' });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { param: string } }).error.param).toBe('input');
    expect((await rawEmbeddings({ model: 'sim-embed-1', input: [] })).status).toBe(400);
    expect((await rawEmbeddings({ model: 'sim-embed-1', input: 'x', dimensions: 0 })).status).toBe(400);
    expect((await rawEmbeddings({ model: 'sim-embed-1', input: 'x', encoding_format: 'int8' })).status).toBe(400);
    const unknown = await sim
      .client()
      .embeddings.create({ model: 'sim-1', input: 'x' })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    const noAuth = await fetch(`${sim.url}/v1/embeddings`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(noAuth.status).toBe(401);
  });

  it('lists embedding models beside chat models', async () => {
    const ids = [];
    for await (const model of sim.client().models.list()) ids.push(model.id);
    expect(ids).toEqual(['sim-1', 'sim-large', 'sim-embed-1', 'text-embedding-3-small']);
  });
});

describe('embeddings faults', () => {
  it('fires an armed fault for the next requests, then answers normally', async () => {
    expect((await armFault({ kind: 'server_error', times: 2 })).status).toBe(200);
    const client = sim.client();
    expect(
      await client.embeddings.create({ model: 'sim-embed-1', input: 'a' }).catch((e: unknown) => e),
    ).toBeInstanceOf(InternalServerError);
    expect(
      await client.embeddings.create({ model: 'sim-embed-1', input: 'b' }).catch((e: unknown) => e),
    ).toBeInstanceOf(InternalServerError);
    expect((await client.embeddings.create({ model: 'sim-embed-1', input: 'c' })).data).toHaveLength(1);
    const log = ((await (await fetch(`${sim.url}/_sim/embeddings/requests`)).json()) as { requests: RequestLogEntry[] })
      .requests;
    expect(log.map((e) => [e.status, e.fault])).toEqual([
      [500, 'server_error'],
      [500, 'server_error'],
      [200, null],
    ]);
  });

  it('rate limits with retry-after, drops connections, and stays armed with times "always" until disarmed', async () => {
    const client = sim.client();
    await armFault({ kind: 'rate_limit', retryAfterSeconds: 2 });
    const limited = await client.embeddings.create({ model: 'sim-embed-1', input: 'a' }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).headers?.get('retry-after')).toBe('2');

    await armFault({ kind: 'stream_cut', times: 'always' });
    for (let i = 0; i < 2; i++) {
      expect(
        await client.embeddings.create({ model: 'sim-embed-1', input: 'a' }).catch((e: unknown) => e),
      ).toBeInstanceOf(APIConnectionError);
    }
    await fetch(`${sim.url}/_sim/embeddings/faults`, { method: 'DELETE' });
    expect((await client.embeddings.create({ model: 'sim-embed-1', input: 'a' })).data).toHaveLength(1);
  });

  it('delays answers (a slow provider) so clients can hit their deadline', async () => {
    await armFault({ delayMs: 5_000 });
    const error = await sim
      .client()
      .embeddings.create({ model: 'sim-embed-1', input: 'a' }, { timeout: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('rejects an invalid fault', async () => {
    expect((await armFault({ times: 1 })).status).toBe(400);
    expect((await armFault({ kind: 'nope' })).status).toBe(400);
    const ok = await sim.client().embeddings.create({ model: 'sim-embed-1', input: 'a' });
    expect(ok.data).toHaveLength(1);
  });
});

/** The bytes of a (possibly pooled) Buffer as their own ArrayBuffer. */
function copyOut(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}
