/** A deterministic synthetic corpus: facts about people built from a fixed vocabulary, so runs compare. */

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tor',
  'vi',
  'sa',
  'ne',
  'dru',
  'pel',
  'chi',
  'bo',
  'ma',
  'fen',
  'gu',
  'la',
  'zor',
  'ti',
  'wen',
  'ha',
];
const PREDICATES = [
  'lives_in',
  'works_at',
  'likes',
  'owns',
  'plays',
  'studies',
  'visited',
  'prefers_food',
  'speaks',
  'knows',
];

/** A seeded PRNG (mulberry32): the same corpus and queries every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function word(n: number): string {
  const a = SYLLABLES[n % SYLLABLES.length]!;
  const b = SYLLABLES[Math.floor(n / SYLLABLES.length) % SYLLABLES.length]!;
  const c = SYLLABLES[Math.floor(n / 400) % SYLLABLES.length]!;
  return `${a}${b}${c}`;
}

/** 8000 distinct words. */
const VOCABULARY = Array.from({ length: 8_000 }, (_, i) => word(i));

export interface SyntheticFact {
  subject: string;
  predicate: string;
  object: string;
}

export function syntheticFact(index: number, rnd: () => number): SyntheticFact {
  const pick = () => VOCABULARY[Math.floor(rnd() * VOCABULARY.length)]!;
  return {
    subject: `${pick()} ${pick()}`,
    predicate: PREDICATES[index % PREDICATES.length]!,
    object: `${pick()} ${pick()} ${pick()}`,
  };
}

/** A query like a user's message: a few corpus words among filler. */
export function syntheticQuery(rnd: () => number): string {
  const pick = () => VOCABULARY[Math.floor(rnd() * VOCABULARY.length)]!;
  return `what do you remember about ${pick()} and where does ${pick()} live ${pick()}`;
}
