import { describe, expect, it } from 'vitest';
import { MemoryAnswerSchema, SessionSummarySchema } from '../test-support/memory-schemas.js';
import { answerFromMemory, questionOf, summariseSession } from './answer-from-memory.js';

describe('answerFromMemory', () => {
  const facts = [
    'FACTS:',
    '[f-berlin] user lives_in Berlin (since 2026-11-01)',
    '[f-jazz] user likes jazz',
    '- [e-1] The user planned a trip to Rome',
  ].join('\n');

  it('answers with the best-matching facts and cites exactly them', () => {
    const answer = answerFromMemory(`${facts}\n\nQUESTION: Where does the user live?`);
    expect(answer).toEqual({
      answer: 'From memory: user lives in Berlin (since 2026-11-01).',
      answered: true,
      citedIds: ['f-berlin'],
    });
    expect(MemoryAnswerSchema.safeParse(answer).success).toBe(true);
  });

  it('says it does not know when nothing relevant was offered', () => {
    const answer = answerFromMemory(`${facts}\n\nWhat is my favourite film?`);
    expect(answer).toEqual({ answer: 'Memory holds nothing about that.', answered: false, citedIds: [] });
  });

  it('accepts "id: text" lines and finds an unlabelled question', () => {
    expect(questionOf('blah\nWhere do I work?\nthanks')).toBe('Where do I work?');
    const answer = answerFromMemory('3f2b8c1e-aaaa-bbbb-cccc-000000000001: user works_at Acme\nWhere do I work?');
    expect(answer.citedIds).toEqual(['3f2b8c1e-aaaa-bbbb-cccc-000000000001']);
  });
});

describe('summariseSession', () => {
  it('summarises what the user said, with topic words', () => {
    const summary = summariseSession(
      '[seq 1] user: Planning a Berlin trip\n[seq 2] assistant: ok\n[seq 3] user: Berlin hotels please',
    );
    expect(summary.summary).toBe('Session summary: Planning a Berlin trip Berlin hotels please');
    expect(summary.topics[0]).toBe('berlin');
    expect(SessionSummarySchema.safeParse(summary).success).toBe(true);
  });
});
