import { describe, expect, it } from 'vitest';
import {
  CollectionName,
  collectionMatchesPrefix,
  memoryDeadLetterSubject,
  memoryIngestSubject,
  TurnFinished,
} from './memory-ingestion.js';

describe('memory ingestion contract', () => {
  it('names subjects per tenant, with dots escaped', () => {
    expect(memoryIngestSubject('acme.eu')).toBe('platform.memory.ingest.acme%2Eeu.turn');
    expect(memoryDeadLetterSubject('acme')).toBe('platform.memory.dead.acme.turn');
  });

  it('matches collection prefixes on whole segments', () => {
    expect(collectionMatchesPrefix('team:eng:alice', 'team:eng')).toBe(true);
    expect(collectionMatchesPrefix('team:eng', 'team:eng')).toBe(true);
    expect(collectionMatchesPrefix('team:engineering', 'team:eng')).toBe(false);
    expect(collectionMatchesPrefix('anything', '')).toBe(true);
  });

  it('accepts hierarchical collection names and refuses malformed ones', () => {
    expect(CollectionName.safeParse('team:eng:alice').success).toBe(true);
    for (const bad of ['', 'user:', ':x', 'a b', 'a::b', 'x'.repeat(65)])
      expect(CollectionName.safeParse(bad).success).toBe(false);
  });

  it('parses a finished turn with or without its messages', () => {
    const base = {
      type: 'memory.turn_finished',
      tenantId: 'acme',
      conversationId: 'c1',
      runId: 'run_1',
      firstSeq: 3,
      lastSeq: 4,
      finishedAt: new Date().toISOString(),
    };
    expect(TurnFinished.safeParse(base).success).toBe(true);
    const withMessages = {
      ...base,
      collection: 'user:alice',
      messages: [{ seq: 3, message: { role: 'user', content: 'I moved to Berlin' } }],
    };
    expect(TurnFinished.parse(withMessages).messages?.[0]?.seq).toBe(3);
    expect(TurnFinished.safeParse({ ...base, tenantId: 'bad tenant' }).success).toBe(false);
  });
});
