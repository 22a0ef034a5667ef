import { describe, expect, it } from 'vitest';
import { readAnswerJson } from './answer-json.js';
import { OutputSchemaError, OutputSchemas } from './output-schemas.js';

const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

describe('OutputSchemas', () => {
  it('checks values against a draft 2020-12 schema, with a JSON pointer and a message per issue', () => {
    const schema = new OutputSchemas().compile(weather);
    expect(schema.issuesOf({ city: 'Berlin', celsius: 21 })).toEqual([]);
    expect(schema.issuesOf({ city: 'Berlin', celsius: '21', wind: 3 })).toEqual([
      { path: '', message: '(root) must NOT have additional properties' },
      { path: '/celsius', message: '/celsius must be number' },
    ]);
    expect(schema.issuesOf([])).toEqual([{ path: '', message: '(root) must be object' }]);
  });

  it('speaks draft 2020-12 by default and draft-07 when $schema names it (what the openai zod helper writes)', () => {
    const schemas = new OutputSchemas();
    const tuple = { prefixItems: [{ type: 'string' }, { type: 'number' }], items: false };
    expect(schemas.compile(tuple).issuesOf(['a', 1])).toEqual([]);
    expect(schemas.compile(tuple).issuesOf(['a', 1, 2])).toHaveLength(1);
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', ...weather };
    expect(schemas.compile(draft07).issuesOf({ city: 'x', celsius: 1 })).toEqual([]);
    expect(() => schemas.compile({ $schema: 'http://json-schema.org/draft-04/schema#' })).toThrow(
      /draft-04.*not supported/,
    );
  });

  it.each([
    ['an unknown type', { type: 'strnig' }, /does not compile/],
    ['a reference to nowhere', { $ref: '#/$defs/missing' }, /does not compile/],
    [
      'a reference to another document (nothing is fetched)',
      { $ref: 'https://example.com/schema.json' },
      /does not compile/,
    ],
    ['an array', [{ type: 'string' }], /must be a JSON object/],
    ['a boolean schema', true, /must be a JSON object/],
  ])('refuses %s', (_label, schema, message) => {
    expect(() => new OutputSchemas().compile(schema)).toThrow(OutputSchemaError);
    expect(() => new OutputSchemas().compile(schema)).toThrow(message);
  });

  it('refuses JSON that is not JSON, and a schema over the size limit', () => {
    const schemas = new OutputSchemas({ maxChars: 100, cacheEntries: 4, maxIssues: 10 });
    expect(() => schemas.fromJson('{"type":')).toThrow(/not JSON/);
    expect(() => schemas.compile({ description: 'x'.repeat(100) })).toThrow(/at most 100/);
  });

  it('compiles each schema text once, keeps a bounded number, and lets two schemas share an $id', () => {
    const schemas = new OutputSchemas({ maxChars: 65_536, cacheEntries: 2, maxIssues: 10 });
    const a = schemas.compile({ $id: 'https://example.com/s', type: 'string' });
    expect(schemas.compile({ $id: 'https://example.com/s', type: 'string' })).toBe(a);
    const b = schemas.compile({ $id: 'https://example.com/s', type: 'number' });
    expect(b.issuesOf(1)).toEqual([]);
    expect(a.issuesOf(1)).toHaveLength(1);
    schemas.compile({ type: 'boolean' });
    // Past two entries the least recently used (`a`) went: compiled anew.
    expect(schemas.compile({ $id: 'https://example.com/s', type: 'string' })).not.toBe(a);
  });

  it('reports at most maxIssues issues of one answer', () => {
    const schemas = new OutputSchemas({ maxChars: 65_536, cacheEntries: 2, maxIssues: 2 });
    const many = schemas.compile({ type: 'array', items: { type: 'string' } });
    expect(many.issuesOf([1, 2, 3, 4])).toHaveLength(2);
  });
});

describe('readAnswerJson', () => {
  it('reads the whole answer, or the whole of one fenced block', () => {
    expect(readAnswerJson(' {"a": 1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(readAnswerJson('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(readAnswerJson('```\n[1, 2]\n```')).toEqual({ ok: true, value: [1, 2] });
    expect(readAnswerJson('"just a string"')).toEqual({ ok: true, value: 'just a string' });
  });

  it('refuses JSON with anything around it: nothing looser than one fence', () => {
    for (const answer of ['Here you go: {"a": 1}', '```json\n{"a": 1}\n``` done', '{"a": 1} {"b": 2}', '', 'sunny'])
      expect(readAnswerJson(answer)).toMatchObject({ ok: false, message: expect.stringContaining('not JSON') });
  });
});
