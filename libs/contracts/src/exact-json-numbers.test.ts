import { describe, expect, it } from 'vitest';
import { findInexactNumber } from './exact-json-numbers.js';

describe('findInexactNumber', () => {
  it('passes numbers JavaScript keeps exactly, however they are spelled', () => {
    for (const json of [
      '{"a":1,"b":-2,"c":0,"d":-0}',
      '{"n":9007199254740991,"m":-9007199254740991}',
      '{"f":0.1,"g":12.5,"h":1.50,"i":1.0,"j":-3.25e-2,"k":1e21,"l":1E+300,"m":5e-324}',
      '{"deep":[[{"x":[0.30000000000000004]}]]}',
      '"no numbers"',
    ])
      expect(findInexactNumber(json), json).toBeUndefined();
  });

  it('names the first number that would be read back as another, with its path', () => {
    expect(findInexactNumber('{"metadata":{"orderId":12345678901234567890}}')).toEqual({
      path: '$.metadata.orderId',
      source: '12345678901234567890',
    });
    expect(findInexactNumber('{"n":9007199254740992}')).toEqual({ path: '$.n', source: '9007199254740992' });
    expect(findInexactNumber('{"n":-9007199254740993}')?.path).toBe('$.n');
    expect(findInexactNumber('{"ok":1,"list":[1,2,{"x y":1e400}]}')).toEqual({
      path: '$.list[2]["x y"]',
      source: '1e400',
    });
    expect(findInexactNumber('[1e-400]')).toEqual({ path: '$[0]', source: '1e-400' });
    expect(findInexactNumber('{"f":0.1000000000000000000001}')?.source).toBe('0.1000000000000000000001');
    // An integer past 2^53 written as a float is not kept either.
    expect(findInexactNumber('{"f":12345678901234567890.0}')?.path).toBe('$.f');
    // Document order: the first one written.
    expect(findInexactNumber('{"a":{"b":1e999},"c":1e999}')?.path).toBe('$.a.b');
    expect(findInexactNumber('{"n":1e400}', '$.metadata')?.path).toBe('$.metadata.n');
  });

  it('answers nothing for text that is not JSON (the caller refuses it)', () => {
    expect(findInexactNumber('{"a":')).toBeUndefined();
  });
});
