import { describe, expect, it } from 'vitest';
import { cosineSimilarity, embedText, toBase64Float32, trigramsOf, wordsOf } from './embedding-vectors.js';

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('embedText', () => {
  it('is deterministic and unit length at any dimension', () => {
    for (const dims of [1, 8, 256, 1536]) {
      const a = embedText('Alice lives in Berlin', dims);
      expect(a).toHaveLength(dims);
      expect(norm(a)).toBeCloseTo(1, 10);
      expect(embedText('Alice lives in Berlin', dims)).toEqual(a);
    }
  });

  it('puts texts that share words or spellings closer than unrelated ones', () => {
    const base = embedText('I prefer window seats on long flights', 256);
    const similar = embedText('she prefers a window seat on flights', 256);
    const typo = embedText('I prefer windw seats on long flihgts', 256);
    const unrelated = embedText('quarterly revenue grew by twelve percent', 256);
    expect(cosineSimilarity(base, similar)).toBeGreaterThan(0.5);
    expect(cosineSimilarity(base, typo)).toBeGreaterThan(0.6);
    expect(Math.abs(cosineSimilarity(base, unrelated))).toBeLessThan(0.25);
    expect(cosineSimilarity(base, similar)).toBeGreaterThan(cosineSimilarity(base, unrelated) + 0.3);
  });

  it('ignores case and punctuation but not words', () => {
    expect(embedText('Berlin, GERMANY!', 64)).toEqual(embedText('berlin germany', 64));
    expect(embedText('Berlin', 64)).not.toEqual(embedText('Paris', 64));
  });

  it('gives a text without words a fixed unit vector, never the zero vector', () => {
    const empty = embedText('!!! ...', 32);
    expect(norm(empty)).toBeCloseTo(1, 10);
    expect(embedText('', 32)).toEqual(empty);
  });

  it('rejects a dimension that is not a positive integer', () => {
    expect(() => embedText('x', 0)).toThrow(RangeError);
    expect(() => embedText('x', 2.5)).toThrow(/positive integer/);
  });
});

describe('features', () => {
  it('splits words of any script and pads trigrams', () => {
    expect(wordsOf('Zoë moved to São Paulo in 2024.')).toEqual(['zoë', 'moved', 'to', 'são', 'paulo', 'in', '2024']);
    expect(trigramsOf('abc')).toEqual([' ab', 'abc', 'bc ']);
    expect(trigramsOf('a')).toEqual([' a ']);
  });
});

describe('toBase64Float32', () => {
  it('writes little-endian float32s', () => {
    const decoded = new Float32Array(copyOut(Buffer.from(toBase64Float32([0.5, -1, 0.25]), 'base64')));
    expect(Array.from(decoded)).toEqual([0.5, -1, 0.25]);
  });
});

/** The bytes of a (possibly pooled) Buffer as their own ArrayBuffer. */
function copyOut(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}
