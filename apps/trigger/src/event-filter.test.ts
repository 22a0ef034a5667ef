import { describe, expect, it } from 'vitest';
import { compileEventFilter } from './event-filter.js';

describe('event filters', () => {
  it('matches over nested fields with comparisons, boolean logic and membership', () => {
    const filter = compileEventFilter('price < 300 and sender.domain == "amazon.com" and category in ("books", "music")');
    expect(filter({ price: 250, sender: { domain: 'amazon.com' }, category: 'books' })).toBe(true);
    expect(filter({ price: 350, sender: { domain: 'amazon.com' }, category: 'books' })).toBe(false);
    expect(filter({ price: 250, sender: { domain: 'ebay.com' }, category: 'books' })).toBe(false);
  });

  it('is false, never an error, when a field is missing or not an object', () => {
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
    expect(() => compileEventFilter('price <')).toThrow(/Parse error/);
    expect(() => compileEventFilter('price < 3)')).toThrow();
  });
});
