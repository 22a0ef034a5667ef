/**
 * Deterministic text embeddings for tests: "feature hashing" of words and character trigrams into
 * a fixed number of dimensions, then L2 normalisation. Texts that share words (or, for typos and
 * inflections, trigrams) get a high cosine similarity; unrelated texts land near zero. The same text
 * always gives the same vector, across processes and runs.
 */

/** Weights of the two feature families; words dominate, trigrams catch typos and word forms. */
const EMBEDDING_FEATURE_WEIGHTS = { word: 1, trigram: 0.5 } as const;

// Any unit vector works for a text without features; a fixed feature keeps it deterministic and
// avoids the zero vector, whose cosine distance is undefined (NaN in pgvector).
const EMPTY_FEATURE = '\u0000empty';

/** Lower-cased words (letters and digits of any script). */
export function wordsOf(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Character trigrams of a word padded with one space on each side (`" pa"`, `"par"`, ...). */
export function trigramsOf(word: string): string[] {
  const chars = [...` ${word} `];
  const grams: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) grams.push(chars.slice(i, i + 3).join(''));
  return grams;
}

/** 32-bit FNV-1a over the UTF-16 code units of `text`, seeded so families do not collide. */
function fnv1a(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const index = fnv1a(feature, 0) % vector.length;
  // A second, independent hash picks the sign, so collisions cancel out on average instead of
  // piling up (the "hashing trick" with signed buckets).
  const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
  vector[index] = (vector[index] ?? 0) + sign * weight;
}

/** The unit-length embedding of `text` with `dimensions` components. */
export function embedText(text: string, dimensions: number): number[] {
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  const vector = new Float64Array(dimensions);
  const words = wordsOf(text);
  for (const word of words) {
    addFeature(vector, `w:${word}`, EMBEDDING_FEATURE_WEIGHTS.word);
    for (const gram of trigramsOf(word)) addFeature(vector, `t:${gram}`, EMBEDDING_FEATURE_WEIGHTS.trigram);
  }
  let norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (words.length === 0 || norm === 0) {
    vector.fill(0);
    addFeature(vector, EMPTY_FEATURE, 1);
    norm = 1;
  }
  return Array.from(vector, (value) => value / norm);
}

/** Cosine similarity of two vectors of equal length (for tests and diagnostics). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Little-endian float32 bytes, base64-encoded: OpenAI's `encoding_format: "base64"`. */
export function toBase64Float32(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}
