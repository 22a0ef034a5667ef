import { describe, expect, it } from 'vitest';
import { compileEventFilter, DEFAULT_FILTER_LIMITS, FilterError } from './event-filter.js';
import { compileFilterRegex } from './filter-regex.js';

function failure(run: () => unknown): FilterError {
  try {
    run();
  } catch (err) {
    if (err instanceof FilterError) return err;
    throw err;
  }
  throw new Error('expected a FilterError');
}

describe('event filters', () => {
  it('matches over nested fields with comparisons, boolean logic and membership', () => {
    const filter = compileEventFilter(
      'price < 300 and sender.domain == "amazon.com" and category in ("books", "music")',
    );
    expect(filter({ price: 250, sender: { domain: 'amazon.com' }, category: 'books' })).toBe(true);
    expect(filter({ price: 350, sender: { domain: 'amazon.com' }, category: 'books' })).toBe(false);
    expect(filter({ price: 250, sender: { domain: 'ebay.com' }, category: 'books' })).toBe(false);
  });

  it('is false, never an error, when a compared field is missing or not an object', () => {
    const filter = compileEventFilter('sender.domain == "amazon.com"');
    expect(filter({})).toBe(false);
    expect(filter({ sender: null })).toBe(false);
    expect(filter({ sender: 'amazon.com' })).toBe(false);
  });

  it('cannot reach JavaScript: inherited properties are not visible', () => {
    expect(compileEventFilter('constructor')({})).toBe(false);
    expect(compileEventFilter('toString == 1')({})).toBe(false);
    expect(compileEventFilter('__proto__')({})).toBe(false);
  });

  it('refuses a malformed expression', () => {
    expect(failure(() => compileEventFilter('price <'))).toMatchObject({
      code: 'FILTER_SYNTAX',
      message: expect.stringMatching(/Parse error/),
    });
    expect(failure(() => compileEventFilter('price < 3)')).code).toBe('FILTER_SYNTAX');
  });

  it("resolves functions at creation: filtrex's own only, also behind a quoted name", () => {
    expect(compileEventFilter('max(a, b) > 1 and abs(c) == 2 and exists(d)')({ a: 0, b: 2, c: -2, d: 1 })).toBe(true);
    expect(failure(() => compileEventFilter('lower(subject) == "x"'))).toMatchObject({
      code: 'FILTER_UNKNOWN_FUNCTION',
      message: expect.stringContaining('"lower"'),
    });
    expect(failure(() => compileEventFilter('\'lower\'(subject) == "x"')).code).toBe('FILTER_UNKNOWN_FUNCTION');
    // Keywords before a parenthesis and strings that look like calls are not calls.
    expect(compileEventFilter('not (a == 1) and b in ("x(", "y") and c == "f(x)"')({ a: 2, b: 'x(', c: 'f(x)' })).toBe(
      true,
    );
  });

  it('compiles every ~= pattern at creation with RE2: inline flags work, lookarounds and backreferences are refused', () => {
    const newsletter = compileEventFilter('subject ~= "(?i)newsletter"');
    expect(newsletter({ subject: 'Your weekly NewsLetter' })).toBe(true);
    expect(newsletter({ subject: 'Invoice' })).toBe(false);
    expect(compileEventFilter('code ~= "^[A-Z]{3}-\\\\d+$"')({ code: 'ABC-42' })).toBe(true);
    expect(failure(() => compileEventFilter('subject ~= "(?=news)"')).code).toBe('FILTER_INVALID_PATTERN');
    expect(failure(() => compileEventFilter('subject ~= "(a)\\\\1"')).code).toBe('FILTER_INVALID_PATTERN');
    expect(failure(() => compileEventFilter('subject ~= "["')).code).toBe('FILTER_INVALID_PATTERN');
    expect(failure(() => compileEventFilter('subject ~= other')).code).toBe('FILTER_DYNAMIC_PATTERN');
    expect(failure(() => compileEventFilter('subject ~= "a" + other')).code).toBe('FILTER_DYNAMIC_PATTERN');
  });

  it("limits a pattern's length and program size, and the text one match reads", () => {
    const limits = { maxPatternChars: 20, maxPatternProgram: 50, maxInputChars: 100 };
    expect(failure(() => compileEventFilter(`x ~= "${'a'.repeat(21)}"`, limits)).code).toBe('FILTER_PATTERN_TOO_LARGE');
    // Seven characters, a hundred instructions: the program size, not the length, bounds the work.
    expect(failure(() => compileEventFilter('x ~= ".{100}"', limits))).toMatchObject({
      code: 'FILTER_PATTERN_TOO_LARGE',
      message: expect.stringMatching(/compiles to \d+ instructions, more than 50/),
    });
    const filter = compileEventFilter('x ~= "b$"', limits);
    expect(filter({ x: `${'a'.repeat(99)}b` })).toBe(true);
    expect(failure(() => filter({ x: `${'a'.repeat(100)}b` })).code).toBe('FILTER_INPUT_TOO_LONG');
  });

  it('reports an evaluation that fails on the event instead of answering false silently', () => {
    expect(failure(() => compileEventFilter('price < 300')({ price: 'cheap' })).code).toBe('FILTER_EVALUATION_FAILED');
    expect(failure(() => compileEventFilter('subject ~= "x"')({ subject: 42 })).code).toBe('FILTER_EVALUATION_FAILED');
  });

  it('matches the pathological (a+)+$ in linear time: a program of a few instructions over 256 KiB of input, where a backtracking engine needs 2^n steps', () => {
    const regex = compileFilterRegex('(a+)+$', DEFAULT_FILTER_LIMITS);
    // One match costs at most program size x input length steps: here a handful per character.
    expect(regex.programSize).toBeLessThan(20);
    // 28 characters took 9.2 s with the backtracking engine (3.6x per two more); this is 262,143 + 1.
    const filter = compileEventFilter('x ~= "(a+)+$"');
    expect(filter({ x: `${'a'.repeat(256 * 1024 - 1)}!` })).toBe(false);
    expect(filter({ x: 'a'.repeat(256 * 1024) })).toBe(true);
  });
});
