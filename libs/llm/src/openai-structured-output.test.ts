import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIEmbeddings } from './openai-embeddings.js';
import { OpenAIStructuredOutput, parseStructured, StructuredOutputError } from './openai-structured-output.js';
import { SIM_API_KEY, startLlmSim, type RunningLlmSim } from './test-support/llm-sim.js';
import { modelFailure } from './test-support/model-error.js';

const Answer = z.object({ answer: z.string().min(1), citedIds: z.array(z.string()).default([]) });

describe('parseStructured', () => {
  it('accepts JSON matching the schema, fenced or not', () => {
    expect(parseStructured(Answer, '{"answer":"Berlin"}')).toEqual({ answer: 'Berlin', citedIds: [] });
    expect(parseStructured(Answer, '```json\n{"answer":"Berlin","citedIds":["f1"]}\n```')).toEqual({
      answer: 'Berlin',
      citedIds: ['f1'],
    });
  });

  it('refuses text that is not JSON, or JSON the schema rejects, naming the problem', () => {
    expect(() => parseStructured(Answer, 'Sure! {answer:')).toThrow(StructuredOutputError);
    expect(() => parseStructured(Answer, '{"answer":""}')).toThrow(/answer/);
  });
});

describe('OpenAIEmbeddings against llm-sim', () => {
  let sim: RunningLlmSim;
  beforeAll(async () => {
    sim = await startLlmSim();
  }, 60_000);
  afterAll(() => sim.stop());

  it('returns one vector of the configured length per text, similar texts closer', async () => {
    const embeddings = new OpenAIEmbeddings({
      baseURL: sim.baseURL,
      apiKey: SIM_API_KEY,
      model: 'sim-embed-1',
      dimensions: 256,
      timeoutMs: 5_000,
    });
    const [a, b, c] = await embeddings.embed([
      'Alice lives in Berlin',
      'where does Alice live',
      'the cello is a string instrument',
    ]);
    const cosine = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(a).toHaveLength(256);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
  });

  it('shows the model the wire schema when one is given, and validates the answer with the other', async () => {
    const model = new OpenAIStructuredOutput({
      baseURL: sim.baseURL,
      apiKey: SIM_API_KEY,
      model: 'sim-1',
      timeoutMs: 5_000,
    });
    const Summary = z.object({
      summary: z.string().min(1).describe('what the session was about'),
      topics: z.array(z.string()).max(20),
    });
    const Envelope = z.object({ summary: z.string() }).catchall(z.unknown());
    const answer = await model.complete({
      schemaName: 'session_summary',
      schema: Envelope,
      wireSchema: Summary,
      system: 'Summarise.',
      user: '[seq 1] user: Plan my Berlin trip',
    });
    expect(answer.summary).toContain('Berlin');
    const { requests } = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as {
      requests: {
        body: {
          response_format: { json_schema: { schema: { properties: Record<string, { description?: string }> } } };
        };
      }[];
    };
    const sent = requests.at(-1)!.body.response_format.json_schema.schema;
    expect(Object.keys(sent.properties)).toEqual(['summary', 'topics']);
    expect(sent.properties['summary']?.description).toBe('what the session was about');
  });

  it('classifies an unreachable endpoint as a ModelError', async () => {
    const embeddings = new OpenAIEmbeddings({
      baseURL: 'http://127.0.0.1:1/v1',
      apiKey: 'k',
      model: 'sim-embed-1',
      dimensions: 256,
      timeoutMs: 2_000,
    });
    expect((await modelFailure(embeddings.embed(['x']))).kind).toBe('server');
  });
});
