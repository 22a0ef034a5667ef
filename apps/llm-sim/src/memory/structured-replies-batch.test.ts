import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { RequestLogEntry } from '../request-log.js';
import { ExtractionBatchSchema, ExtractionSchema, jsonSchemaFormat } from '../test-support/memory-schemas.js';
import { startSim, type RunningSim } from '../test-support/sim.js';

// The memory service's several-turn extraction request (`memory_extraction_batch`) at the wire.

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim();
  client = sim.client();
});
afterAll(() => sim.close());

const turn = (...lines: string[]) =>
  `CURRENT FACTS (id: subject predicate object):\nf-old: user lives_in Paris\n\nTURN:\n${lines.join('\n')}`;

async function ask(name: string, schema: z.ZodType, user: string): Promise<string> {
  const completion = await client.chat.completions.create({
    model: 'sim-1',
    messages: [
      { role: 'system', content: 'You extract long-term knowledge.' },
      { role: 'user', content: user },
    ],
    response_format: jsonSchemaFormat(name, schema),
  });
  return completion.choices[0]?.message.content ?? '';
}

const log = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: RequestLogEntry[] }).requests;

describe('several-turn extraction replies at the wire', () => {
  it('answers a several-turn extraction request with one entry per TURN section, breaking only the marked turn', async () => {
    const sections = [
      '### TURN 1\nCURRENT FACTS (id: subject predicate object):\nf-old: user lives_in Paris\n\nMESSAGES:\n[seq 5] user: I moved from Paris to Berlin.',
      '### TURN 2\nCURRENT FACTS (id: subject predicate object):\n(none)\n\nMESSAGES:\n[seq 2] user: I live in Oslo [memory-sim:invalid-in-batch]',
      '### TURN 3\nCURRENT FACTS (id: subject predicate object):\n(none)\n\nMESSAGES:\n[seq 7] user: I work at Initech.',
    ];
    const content = JSON.parse(await ask('memory_extraction_batch', ExtractionBatchSchema, sections.join('\n\n'))) as {
      turns: { turn: string }[];
    };
    expect(content.turns.map((t) => t.turn)).toEqual(['TURN 1', 'TURN 2', 'TURN 3']);
    expect(ExtractionSchema.parse(content.turns[0]).facts).toMatchObject([
      { object: 'Berlin', sourceSeq: 5, supersedes: ['f-old'] },
    ]);
    expect(ExtractionSchema.safeParse(content.turns[1]).success).toBe(false);
    expect(ExtractionSchema.parse(content.turns[2]).facts).toMatchObject([
      { predicate: 'works_at', object: 'Initech', sourceSeq: 7 },
    ]);
    expect((await log()).at(-1)).toMatchObject({ structuredReply: 'memory_extraction_batch', status: 200 });

    // The same turn asked alone is answered correctly; `malformed` still breaks the whole answer.
    const alone = ExtractionSchema.parse(
      JSON.parse(
        await ask(
          'memory_extraction',
          ExtractionSchema,
          turn('[seq 2] user: I live in Oslo [memory-sim:invalid-in-batch]'),
        ),
      ),
    );
    expect(alone.facts[0]?.object).toBe('Oslo');
    const malformed = await ask(
      'memory_extraction_batch',
      ExtractionBatchSchema,
      `${sections[0]}\n\n### TURN 2\nMESSAGES:\n[seq 1] user: hi [memory-sim:malformed]`,
    );
    expect(() => JSON.parse(malformed) as unknown).toThrow();
  });
});
