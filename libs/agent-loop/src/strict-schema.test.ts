import { describe, expect, it } from 'vitest';
import { allowsStrictMode } from './strict-schema.js';

describe('allowsStrictMode', () => {
  const closed = {
    type: 'object',
    properties: {
      a: { type: 'string' },
      b: {
        type: 'array',
        items: { type: 'object', properties: { c: { type: 'number' } }, required: ['c'], additionalProperties: false },
      },
    },
    required: ['a', 'b'],
    additionalProperties: false,
  };

  it('accepts a schema whose every object is closed with every property required', () => {
    expect(allowsStrictMode(closed)).toBe(true);
  });

  it('refuses an optional property, an open object, or a free-form record nested anywhere', () => {
    expect(allowsStrictMode({ ...closed, required: ['a'] })).toBe(false);
    expect(allowsStrictMode({ ...closed, additionalProperties: true })).toBe(false);
    const record = { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} };
    expect(
      allowsStrictMode({ ...closed, properties: { ...closed.properties, b: { type: 'array', items: record } } }),
    ).toBe(false);
    expect(allowsStrictMode({ anyOf: [closed, { type: 'object', properties: {}, additionalProperties: true }] })).toBe(
      false,
    );
  });
});
