// The one key encoding: injective over adversarial parts, NATS-valid, unchanged for stored subjects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentPoolEventSubject } from './agent-pool-events.js';
import { ID_PATTERN } from './ids.js';
import { compositeKey, decodeKeyToken, keyToken } from './key-encoding.js';
import { memoryDeadLetterSubject, memoryIngestMessageId, memoryIngestSubject } from './memory-ingestion.js';
import { runEndedSubject } from './run-events.js';
import { triggeredRunSubject, triggerEventSubject } from './trigger-events.js';

/** What nats-server accepts as one literal token of a subject one publishes on. */
const NATS_TOKEN = /^[\x21-\x7e]+$/;
const natsValidToken = (token: string): boolean => NATS_TOKEN.test(token) && !/[.*>]/.test(token);
const natsValidSubject = (subject: string): boolean => subject.split('.').every(natsValidToken);

// Parts built to collide: separators, escapes, empty strings, unicode (with lone surrogates) and
// parts that are prefixes of each other.
const SEPARATORS = [
  ':',
  '.',
  '/',
  '|',
  '*',
  '>',
  '%',
  '%2E',
  '%3A',
  '%u',
  '{',
  '}',
  ' ',
  '\t',
  '\u0000',
  '\u001f',
  '$',
];
const adversarialPart = fc.oneof(
  fc.constantFrom('', 'acme', 'acme:eu', 'eu:support', 'support', 'a', 'a.b', 'a%2Eb', ...SEPARATORS),
  fc.array(fc.constantFrom('a', 'b', 'eu', ...SEPARATORS), { maxLength: 6 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const tuple = fc.array(adversarialPart, { minLength: 1, maxLength: 4 });

describe('compositeKey', () => {
  it('gives distinct tuples distinct keys (injective), whatever the parts contain', () => {
    fc.assert(
      fc.property(tuple, tuple, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        expect(compositeKey(...a)).not.toBe(compositeKey(...b));
      }),
      { numRuns: 20_000 },
    );
  });

  it('decodes back to the parts: every token is its part, and "." only separates', () => {
    fc.assert(
      fc.property(tuple, (parts) => {
        expect(
          compositeKey(...parts)
            .split('.')
            .map(decodeKeyToken),
        ).toEqual(parts);
      }),
      { numRuns: 5_000 },
    );
  });

  it('makes every token a valid NATS subject token, and every subject builder a valid subject', () => {
    fc.assert(
      fc.property(tuple, adversarialPart, (parts, tenant) => {
        expect(
          compositeKey(...parts)
            .split('.')
            .every(natsValidToken),
        ).toBe(true);
        for (const subject of [
          agentPoolEventSubject(tenant, 'expired'),
          runEndedSubject(tenant),
          triggerEventSubject(tenant),
          triggeredRunSubject(tenant),
          memoryIngestSubject(tenant),
          memoryDeadLetterSubject(tenant),
        ])
          expect(natsValidSubject(subject), subject).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('cannot open or close a Redis Cluster hash tag', () => {
    fc.assert(fc.property(tuple, (parts) => !/[{}]/.test(compositeKey(...parts))));
  });

  it('separates the two tenants of the lease report, and their turns in the ingestion stream', () => {
    expect(compositeKey('acme', 'eu:support')).toBe('acme.eu:support');
    expect(compositeKey('acme:eu', 'support')).toBe('acme:eu.support');
    expect(memoryIngestMessageId('a', 'b:c')).not.toBe(memoryIngestMessageId('a:b', 'c'));
  });
});

describe('keyToken on the ids the api accepts', () => {
  it('is the id with "." written "%2E": subjects of data already stored do not change', () => {
    const id = fc.stringMatching(ID_PATTERN);
    fc.assert(
      fc.property(id, (tenant) => {
        expect(keyToken(tenant)).toBe(tenant.replaceAll('.', '%2E'));
        expect(memoryIngestSubject(tenant)).toBe(`platform.memory.ingest.${tenant.replaceAll('.', '%2E')}.turn`);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses text it never produces when decoding', () => {
    for (const token of ['%2', '%2e', '%41', '%u0041', '%u00E9', '%zz', 'a.b', ''])
      expect(decodeKeyToken(token), token).toBeUndefined();
    expect(decodeKeyToken('%u00E9')).toBeUndefined();
    expect(decodeKeyToken(keyToken('é'))).toBe('é');
  });
});
