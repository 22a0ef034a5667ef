import { z } from 'zod';

/** Predicates are lower snake case so that "lives in" and "lives_in" are one predicate. */
const Predicate = z
  .string()
  .min(1)
  .max(64)
  .transform((p) =>
    p
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  )
  .pipe(z.string().regex(/^[a-z0-9_]{1,64}$/, 'must be words joined by "_"'));

const Text = (max: number) => z.string().trim().min(1).max(max);

const ExtractedEntity = z.object({
  name: Text(200),
  type: Text(64).describe('person, place, organisation, product, event, concept...'),
  facets: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .default({})
    .describe('attributes, e.g. {"role": "manager"}'),
  /** True when the entity was only seen in a tool result. */
  fromTool: z.boolean().default(false),
});
type ExtractedEntity = z.infer<typeof ExtractedEntity>;

const ExtractedFact = z.object({
  subject: Text(200).describe('who or what the fact is about; "user" for the person talking'),
  predicate: Predicate.describe('lower snake case relation, e.g. lives_in, works_at, likes'),
  object: Text(500),
  confidence: z.number().min(0).max(1),
  /** The seq of the message the fact was stated in (one of the turn's seqs). */
  sourceSeq: z.number().int().positive(),
  /** True when the subject holds one value of this predicate at a time (lives_in: yes; likes: no). */
  singleValued: z.boolean().default(false),
  /** Ids of candidate facts (given in the prompt) that this fact makes no longer true. */
  supersedes: z.array(z.string()).max(20).default([]),
});
type ExtractedFact = z.infer<typeof ExtractedFact>;

const ExtractedPreference = z.object({
  subject: Text(200).default('user'),
  /** What the preference is about, e.g. "seat", "language". */
  topic: Text(200),
  value: Text(500),
  confidence: z.number().min(0).max(1),
  sourceSeq: z.number().int().positive(),
  supersedes: z.array(z.string()).max(20).default([]),
});
type ExtractedPreference = z.infer<typeof ExtractedPreference>;

/** The whole answer of one extraction call. Validated before anything is stored. */
export const Extraction = z.object({
  entities: z.array(ExtractedEntity).max(100).default([]),
  facts: z.array(ExtractedFact).max(100).default([]),
  preferences: z.array(ExtractedPreference).max(50).default([]),
  topics: z.array(Text(64)).max(20).default([]),
  /** One or two sentences about what happened in the turn; empty when nothing worth keeping. */
  episodeSummary: z.string().trim().max(2_000).default(''),
});
export type Extraction = z.infer<typeof Extraction>;

/** The answer of a session summary call. */
export const SessionSummary = z.object({
  summary: Text(4_000),
  topics: z.array(Text(64)).max(20).default([]),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** The answer of a QueryMemory call: it may only cite ids it was given. */
export const MemoryAnswer = z.object({
  answer: Text(4_000),
  answered: z.boolean(),
  citedIds: z.array(z.string()).max(50).default([]),
});
export type MemoryAnswer = z.infer<typeof MemoryAnswer>;

/** The label a multi-turn extraction prompt gives its n-th turn (1-based), and the answer repeats. */
export const turnLabel = (n: number): string => `TURN ${n}`;

/**
 * The answer of one extraction call covering several turns of one tenant, as the model is shown it:
 * one entry per turn, each keyed by the turn's label.
 */
export const MultiTurnExtraction = z.object({
  turns: z
    .array(
      Extraction.extend({
        turn: z
          .string()
          .describe('the label of the turn this entry is about, exactly as the prompt gives it, e.g. "TURN 1"'),
      }),
    )
    .max(64),
});

/**
 * The same answer as it is validated first: only its envelope (an array of entries, each naming a
 * turn). Every entry is then validated on its own against {@link Extraction}, so one turn's invalid
 * part does not throw away the other turns' valid ones.
 */
export const MultiTurnEnvelope = z.object({
  turns: z.array(z.object({ turn: z.string() }).catchall(z.unknown())).max(64),
});
export type MultiTurnEnvelope = z.infer<typeof MultiTurnEnvelope>;
