import { OutputSchema } from '@platform/contracts';
import { z } from 'zod';

/**
 * OpenAI's `response_format` of a chat completion request: `text` (the default), `json_object`
 * (any JSON object) or `json_schema` (JSON valid against `json_schema.schema`). The platform
 * checks the answer itself (ajv, draft 2020-12), whatever `strict` says, and asks the model again
 * once with the errors when it does not validate.
 */
/** The name of a JSON schema format (OpenAI's rule). */
export const FormatName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

export const FacadeResponseFormat = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text') }).strict(),
    z.object({ type: z.literal('json_object') }).strict(),
    z
      .object({
        type: z.literal('json_schema'),
        json_schema: z
          .object({
            name: FormatName,
            description: z.string().max(4096).optional(),
            schema: OutputSchema.optional(),
            strict: z.boolean().nullish(),
          })
          .strict(),
      })
      .strict(),
  ])
  .meta({
    description:
      '`text` (default), `json_object` (the answer is a JSON object) or `json_schema` (the answer is JSON valid against `json_schema.schema`, draft 2020-12). With a JSON format, `content` is the answer as JSON.',
  });
export type FacadeResponseFormat = z.infer<typeof FacadeResponseFormat>;

/** Any JSON object: what `json_object` asks for. */
const ANY_OBJECT = { type: 'object' };

/** The JSON schema of the document's structured examples (Chat Completions and Responses). */
export const SUM_SCHEMA_EXAMPLE = {
  type: 'object',
  properties: { sum: { type: 'number' } },
  required: ['sum'],
  additionalProperties: false,
};

/** The run's output schema for a `response_format`; undefined for `text` (and without one). */
export function outputSchemaOfFormat(
  format: FacadeResponseFormat | null | undefined,
): Record<string, unknown> | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return ANY_OBJECT;
  // No schema: any JSON value (OpenAI's `schema` is optional too).
  return format.json_schema.schema ?? {};
}
