import { describe, expect, it } from 'vitest';
import { ExtractionSchema } from '../test-support/memory-schemas.js';
import { extractKnowledge } from './extract-knowledge.js';

const prompt = (turn: string[], candidates: string[] = []) =>
  `CURRENT FACTS (id: subject predicate object):\n${candidates.join('\n') || '(none)'}\n\nTURN:\n${turn.join('\n')}`;

describe('extractKnowledge', () => {
  it('extracts names, homes, work, likes and preferences from the user, with the seq they came from', () => {
    const result = extractKnowledge(
      prompt([
        '[seq 1] user: Hi, my name is Alice. I live in Paris and I work at Acme Corp.',
        '[seq 2] assistant: Nice to meet you! I live in the cloud.',
        '[seq 3] user: I prefer window seats over aisle seats, and I love jazz. My favourite colour is green.',
      ]),
    );
    expect(ExtractionSchema.safeParse(result).success).toBe(true);
    expect(result.facts.map((f) => [f.subject, f.predicate, f.object, f.sourceSeq, f.singleValued])).toEqual([
      ['user', 'name', 'Alice', 1, true],
      ['user', 'lives_in', 'Paris', 1, true],
      ['user', 'works_at', 'Acme Corp', 1, true],
      ['user', 'likes', 'jazz', 3, false],
    ]);
    expect(result.preferences.map((p) => [p.topic, p.value, p.sourceSeq])).toEqual([
      ['colour', 'green', 3],
      ['seat', 'window seats', 3],
    ]);
    expect(result.entities.map((e) => [e.name, e.type])).toEqual([
      ['Alice', 'person'],
      ['Paris', 'place'],
      ['Acme Corp', 'organisation'],
    ]);
    expect(result.episodeSummary).toMatch(/^The user said: Hi, my name is Alice/);
    expect(result.topics).toContain('lives in');
  });

  it('supersedes the current single-valued fact a move replaces, and only that one', () => {
    const result = extractKnowledge(
      prompt(
        ['[seq 7] user: I moved from Paris to Berlin last month.'],
        ['f1: user lives_in Paris', 'f2: user likes jazz', 'f3: Bob lives_in Paris'],
      ),
    );
    expect(result.facts).toEqual([
      {
        subject: 'user',
        predicate: 'lives_in',
        object: 'Berlin',
        confidence: 0.9,
        sourceSeq: 7,
        singleValued: true,
        supersedes: ['f1'],
      },
    ]);
    expect(result.entities.map((e) => e.name)).toEqual(['Paris', 'Berlin']);
  });

  it('keeps third-person statements about a named subject, not about pronouns', () => {
    const result = extractKnowledge(
      prompt(['[seq 2] user: Alice lives in Berlin. We live in Rome. Bob works for Initech.']),
    );
    expect(result.facts.map((f) => [f.subject, f.predicate, f.object])).toEqual([
      ['Alice', 'lives_in', 'Berlin'],
      ['Bob', 'works_at', 'Initech'],
    ]);
  });

  it('takes entities from JSON tool results, marked fromTool, and ignores markers', () => {
    const result = extractKnowledge(
      prompt([
        '[seq 1] user: Book me a hotel [scenario:trip] [memory-sim:delay=5]',
        '[seq 3] tool result of hotel_search: {"results":[{"name":"Hotel Adlon","city":"Berlin"}]}',
      ]),
    );
    expect(result.entities).toEqual([
      { name: 'Hotel Adlon', type: 'entity', facets: {}, fromTool: true },
      { name: 'Berlin', type: 'place', facets: {}, fromTool: true },
    ]);
    expect(result.episodeSummary).toBe('The user said: Book me a hotel');
  });

  it('answers an empty (but valid) extraction when nothing matches', () => {
    const result = extractKnowledge(prompt(['[seq 1] user: What is 2 + 2?']));
    expect(result).toMatchObject({ facts: [], preferences: [], entities: [] });
    expect(ExtractionSchema.safeParse(extractKnowledge('no recognisable prompt at all')).success).toBe(true);
  });

  it('lets a new preference on the same topic replace the old one', () => {
    const result = extractKnowledge(
      prompt(
        ['[seq 4] user: Actually I prefer aisle seats.'],
        ['p1: user prefers_seat window seats', 'p2: user prefers_drink tea'],
      ),
    );
    expect(result.preferences).toEqual([
      { subject: 'user', topic: 'seat', value: 'aisle seats', confidence: 0.9, sourceSeq: 4, supersedes: ['p1'] },
    ]);
  });
});
