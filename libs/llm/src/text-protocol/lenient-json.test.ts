import { describe, expect, it } from 'vitest';
import { findBalancedEnd } from './json-scan.js';
import { parseLenientJson } from './lenient-json.js';

describe('parseLenientJson', () => {
  it('reads strict JSON exactly and says it needed no repair', () => {
    expect(parseLenientJson('{"a": [1, 2.5, "x"], "b": null}')).toEqual({
      ok: true,
      value: { a: [1, 2.5, 'x'], b: null },
      repaired: false,
    });
  });

  it.each([
    ['single quotes', "{'a': 'b'}", { a: 'b' }],
    ['unquoted keys and bare words', '{a: hello world, b: 2}', { a: 'hello world', b: 2 }],
    ['trailing commas', '{"a": [1, 2,], "b": 3,}', { a: [1, 2], b: 3 }],
    ['Python literals', "{'t': True, 'f': False, 'n': None}", { t: true, f: false, n: null }],
    ['missing closing braces', '{"a": {"b": [1, 2', { a: { b: [1, 2] } }],
    ['a forgotten bracket before a brace', '{"a": [1, 2}', { a: [1, 2] }],
    ['smart quotes', '{“a”: “b”}', { a: 'b' }],
    ['missing commas', '{"a": 1 "b": 2}', { a: 1, b: 2 }],
    ['comments', '{"a": 1 /* note */, // more\n"b": 2}', { a: 1, b: 2 }],
    ['an apostrophe inside single quotes', "{'q': 'it's'}", { q: "it's" }],
    ['an unterminated string', '{"q": "cut off', { q: 'cut off' }],
    ['keyword-call arguments', '{query="x", limit=3}', { query: 'x', limit: 3 }],
  ])('repairs %s', (_name, text, value) => {
    expect(parseLenientJson(text)).toEqual({ ok: true, value, repaired: true });
  });

  it('keeps a "__proto__" key as data', () => {
    const parsed = parseLenientJson("{'__proto__': {'polluted': 1}}");
    expect(parsed.ok && Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([['{{{'], ['{tool search}'], ['{: :}'], ['{"a": '], ['']])('rejects %j', (text) => {
    expect(parseLenientJson(text).ok).toBe(false);
  });
});

describe('findBalancedEnd', () => {
  it('skips braces inside strings, including single-quoted ones', () => {
    const text = `{"a": "}{", 'b': '}'} tail`;
    expect(text.slice(0, findBalancedEnd(text, 0))).toBe(`{"a": "}{", 'b': '}'}`);
  });

  it('returns -1 for an object that never closes', () => {
    expect(findBalancedEnd('{"a": {"b": 1}', 0)).toBe(-1);
  });
});
