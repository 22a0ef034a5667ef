import { z } from 'zod';

// The answers the memory service asks for, as its zod schemas (apps/memory/src/extraction/
// extraction-schema.ts) send them in `response_format.json_schema`. Apps cannot import apps, so
// the shape is restated here; test/e2e's memory suite proves the real service accepts the answers.

const Text = (max: number) => z.string().trim().min(1).max(max);

export const ExtractionSchema = z.object({
  entities: z
    .array(
      z.object({
        name: Text(200),
        type: Text(64),
        facets: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
        fromTool: z.boolean().default(false),
      }),
    )
    .max(100)
    .default([]),
  facts: z
    .array(
      z.object({
        subject: Text(200),
        predicate: z.string().regex(/^[a-z0-9_]{1,64}$/),
        object: Text(500),
        confidence: z.number().min(0).max(1),
        sourceSeq: z.number().int().positive(),
        singleValued: z.boolean().default(false),
        supersedes: z.array(z.string()).max(20).default([]),
      }),
    )
    .max(100)
    .default([]),
  preferences: z
    .array(
      z.object({
        subject: Text(200).default('user'),
        topic: Text(200),
        value: Text(500),
        confidence: z.number().min(0).max(1),
        sourceSeq: z.number().int().positive(),
        supersedes: z.array(z.string()).max(20).default([]),
      }),
    )
    .max(50)
    .default([]),
  topics: z.array(Text(64)).max(20).default([]),
  episodeSummary: z.string().trim().max(2_000).default(''),
});

/** The several-turn extraction answer: one entry per `### TURN <n>` section of the prompt. */
export const ExtractionBatchSchema = z.object({
  turns: z.array(ExtractionSchema.extend({ turn: z.string() })).max(64),
});

export const MemoryAnswerSchema = z.object({
  answer: Text(4_000),
  answered: z.boolean(),
  citedIds: z.array(z.string()).max(50).default([]),
});

export const SessionSummarySchema = z.object({ summary: Text(4_000), topics: z.array(Text(64)).max(20).default([]) });

/** A `response_format` as libs/llm's OpenAIStructuredOutput sends it. */
export function jsonSchemaFormat(name: string, schema: z.ZodType) {
  return {
    type: 'json_schema' as const,
    json_schema: { name, schema: z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>, strict: false },
  };
}
