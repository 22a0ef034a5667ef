// Text that cannot be stored faithfully is found exactly where it is; well-formed text passes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findUnstorableText,
  firstInvalidUtf8Offset,
  firstLoneSurrogate,
  incompleteUtf8Tail,
  repairLoneSurrogates,
} from './well-formed-text.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('firstInvalidUtf8Offset', () => {
  it('accepts every well-formed string that Node encodes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => firstInvalidUtf8Offset(Buffer.from(text, 'utf8')) === -1),
    );
  });

  it.each([
    ['a stray continuation byte', bytes(0x61, 0x80), 1],
    ['C3 28 (a lead byte without its continuation)', bytes(0x22, 0xc3, 0x28, 0xff), 1],
    ['FF', bytes(0x61, 0x62, 0xff), 2],
    ['an overlong encoding of "/"', bytes(0xc0, 0xaf), 0],
    ['an overlong three-byte encoding', bytes(0xe0, 0x80, 0xaf), 0],
    ['an encoded surrogate (CESU-8)', bytes(0xed, 0xa0, 0x80), 0],
    ['a code point above U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ['a sequence cut by the end', bytes(0x61, 0xe2, 0x82), 1],
  ])('finds %s', (_what, input, offset) => {
    expect(firstInvalidUtf8Offset(input)).toBe(offset);
  });

  it('agrees with a fatal TextDecoder on arbitrary bytes', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (input) => {
        let valid = true;
        try {
          decoder.decode(input);
        } catch {
          valid = false;
        }
        return (firstInvalidUtf8Offset(input) === -1) === valid;
      }),
    );
  });
});

describe('firstLoneSurrogate and repairLoneSurrogates', () => {
  it('finds unpaired high and low surrogates and passes pairs', () => {
    expect(firstLoneSurrogate('ok \ud83d\ude00')).toBe(-1);
    expect(firstLoneSurrogate('ab\ud800')).toBe(2);
    expect(firstLoneSurrogate('\udc00x')).toBe(0);
    expect(firstLoneSurrogate('\ud83d\ude00\ude00')).toBe(2);
  });

  it('replaces exactly the unpaired ones and counts them', () => {
    expect(repairLoneSurrogates('a\ud800b\ud83d\ude00\udc00')).toEqual({
      text: 'a\ufffdb\ud83d\ude00\ufffd',
      replaced: 2,
    });
    expect(repairLoneSurrogates('fine')).toEqual({ text: 'fine', replaced: 0 });
  });

  it('always yields well-formed text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => firstLoneSurrogate(repairLoneSurrogates(text).text) === -1),
    );
  });
});

describe('findUnstorableText', () => {
  it('names the path of the first bad string or key, and the character', () => {
    expect(findUnstorableText({ content: 'fine', changes: { subject: 'x\ud800' } })).toEqual({
      path: '$.changes.subject',
      index: 1,
      character: 'surrogate',
    });
    expect(findUnstorableText({ messages: [{ content: 'a' }, { content: '\udc00' }] })).toEqual({
      path: '$.messages[1].content',
      index: 0,
      character: 'surrogate',
    });
    expect(findUnstorableText({ 'bad\ud800': 1 })).toEqual({
      path: '$["bad\\ud800"] (key)',
      index: 3,
      character: 'surrogate',
    });
    expect(findUnstorableText({ a: [1, true, null, 'ok'] })).toBeUndefined();
    expect(findUnstorableText({ name: 'ab\u0000c' })).toEqual({ path: '$.name', index: 2, character: 'nul' });
    expect(findUnstorableText({ tool: ['ok', 'x\u0000'] }, 'query')).toEqual({
      path: 'query.tool[1]',
      index: 1,
      character: 'nul',
    });
    expect(findUnstorableText('\ud800\u0000')).toEqual({ path: '$', index: 0, character: 'surrogate' });
  });

  it('walks any nesting without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findUnstorableText(deep)?.character).toBe('nul');
  });

  it('finds nothing in well-formed text without NUL', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => !JSON.stringify(v).includes('\\u0000')),
        (value) => findUnstorableText(value) === undefined,
      ),
    );
  });
});

describe('incompleteUtf8Tail', () => {
  it('counts the bytes of a character cut by the end, and nothing else', () => {
    const euro = Buffer.from('€'); // E2 82 AC
    const emoji = Buffer.from('😀'); // F0 9F 98 80
    expect(incompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
    expect(incompleteUtf8Tail(euro)).toBe(0);
    expect(incompleteUtf8Tail(euro.subarray(0, 1))).toBe(1);
    expect(incompleteUtf8Tail(euro.subarray(0, 2))).toBe(2);
    expect(incompleteUtf8Tail(emoji.subarray(0, 3))).toBe(3);
    expect(incompleteUtf8Tail(bytes(0x61, 0xff))).toBe(0);
  });

  it('splitting any well-formed text anywhere leaves a valid head once its tail is held back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), (text, at) => {
        const encoded = Buffer.from(text, 'utf8');
        const head = encoded.subarray(0, encoded.length ? at % (encoded.length + 1) : 0);
        return firstInvalidUtf8Offset(head.subarray(0, head.length - incompleteUtf8Tail(head))) === -1;
      }),
    );
  });
});
