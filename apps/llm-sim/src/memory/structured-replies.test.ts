import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { RequestLogEntry } from '../request-log.js';
import {
  ExtractionSchema,
  jsonSchemaFormat,
  MemoryAnswerSchema,
  SessionSummarySchema,
} from '../test-support/memory-schemas.js';
import { startSim, type RunningSim } from '../test-support/sim.js';

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim();
  client = sim.client();
});
afterAll(() => sim.close());
beforeEach(() => fetch(`${sim.url}/_sim/reset`, { method: 'POST' }));

const turn = (...lines: string[]) =>
  `CURRENT FACTS (id: subject predicate object):\nf-old: user lives_in Paris\n\nTURN:\n${lines.join('\n')}`;

async function ask(name: string, schema: z.ZodType, user: string, feedback?: string, stream = false): Promise<string> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You extract long-term knowledge.' },
    { role: 'user', content: user },
    ...(feedback ? [{ role: 'user' as const, content: `Your previous answer was invalid: ${feedback}` }] : []),
  ];
  if (stream) {
    let text = '';
    for await (const chunk of await client.chat.completions.create({
      model: 'sim-1',
      messages,
      response_format: jsonSchemaFormat(name, schema),
      stream: true,
    })) {
      text += chunk.choices[0]?.delta.content ?? '';
    }
    return text;
  }
  const completion = await client.chat.completions.create({
    model: 'sim-1',
    messages,
    response_format: jsonSchemaFormat(name, schema),
  });
  return completion.choices[0]?.message.content ?? '';
}

const log = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: RequestLogEntry[] }).requests;

describe('structured memory replies at the wire', () => {
  it('answers a memory_extraction request with schema-valid knowledge, even when the turn quotes a scenario marker', async () => {
    const content = await ask(
      'memory_extraction',
      ExtractionSchema,
      turn('[seq 1] user: [scenario:calculator] I moved from Paris to Berlin. I prefer window seats.'),
    );
    const extraction = ExtractionSchema.parse(JSON.parse(content));
    expect(extraction.facts).toMatchObject([
      { subject: 'user', predicate: 'lives_in', object: 'Berlin', sourceSeq: 1, supersedes: ['f-old'] },
    ]);
    expect(extraction.preferences).toMatchObject([{ topic: 'seat', value: 'window seats' }]);
    expect((await log()).at(-1)).toMatchObject({ structuredReply: 'memory_extraction', scenario: null, status: 200 });
  });

  it('recognises the request by its schema when the name differs, and streams it too', async () => {
    const content = await ask('knowledge', ExtractionSchema, turn('[seq 2] user: I live in Lisbon.'), undefined, true);
    expect(ExtractionSchema.parse(JSON.parse(content)).facts[0]?.object).toBe('Lisbon');
  });

  it('answers memory questions with citations, and session summaries', async () => {
    const answer = MemoryAnswerSchema.parse(
      JSON.parse(
        await ask(
          'memory_answer',
          MemoryAnswerSchema,
          '[f1] Alice lives_in Berlin\n[f2] Alice likes tea\nQUESTION: Where does Alice live?',
        ),
      ),
    );
    expect(answer).toEqual({ answer: 'From memory: Alice lives in Berlin.', answered: true, citedIds: ['f1'] });
    const summary = SessionSummarySchema.parse(
      JSON.parse(await ask('session_summary', SessionSummarySchema, '[seq 1] user: Plan my Berlin trip')),
    );
    expect(summary.summary).toContain('Plan my Berlin trip');
  });

  it('misbehaves on request: not JSON, JSON against the schema, or not JSON only on the first attempt', async () => {
    const malformed = await ask(
      'memory_extraction',
      ExtractionSchema,
      turn('[seq 1] user: I live in Oslo [memory-sim:malformed]'),
      'not JSON',
    );
    expect(() => JSON.parse(malformed) as unknown).toThrow();

    const invalid = await ask(
      'memory_extraction',
      ExtractionSchema,
      turn('[seq 1] user: I live in Oslo [memory-sim:invalid]'),
    );
    expect(ExtractionSchema.safeParse(JSON.parse(invalid)).success).toBe(false);

    const once = turn('[seq 1] user: I live in Oslo [memory-sim:malformed-once]');
    const first = await ask('memory_extraction', ExtractionSchema, once);
    expect(() => JSON.parse(first) as unknown).toThrow();
    const retried = ExtractionSchema.parse(
      JSON.parse(await ask('memory_extraction', ExtractionSchema, once, 'the answer is not JSON')),
    );
    expect(retried.facts[0]?.object).toBe('Oslo');
  });

  it('delays on request, so a client deadline can expire', async () => {
    const slow = client.chat.completions.create(
      {
        model: 'sim-1',
        messages: [{ role: 'user', content: turn('[seq 1] user: hi [memory-sim:delay=5000]') }],
        response_format: jsonSchemaFormat('memory_extraction', ExtractionSchema),
      },
      { timeout: 100 },
    );
    await expect(slow).rejects.toThrow(/timed out/i);
  });

  it('leaves other json_schema requests to scenarios', async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:plain] hello' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'weather', schema: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    });
    expect((await log()).at(-1)).toMatchObject({ structuredReply: null, scenario: 'plain' });
    expect(completion.choices[0]?.message.content).toBeTruthy();
  });
});
