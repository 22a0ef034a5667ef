import { OutputSchema } from '@platform/contracts';
import { z } from 'zod';
import { FormatName, outputSchemaOfFormat } from './chat-completions-format.js';

/**
 * `text.format` of a Responses request: `text` (the default), `json_object` or `json_schema`, the
 * Responses API's spelling of Chat Completions' `response_format` (the schema's fields sit on the
 * format itself). The platform checks the answer itself, as for `response_format`.
 */
export const ResponseTextFormat = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text') }).strict(),
    z.object({ type: z.literal('json_object') }).strict(),
    z
      .object({
        type: z.literal('json_schema'),
        name: FormatName,
        description: z.string().max(4096).optional(),
        schema: OutputSchema,
        strict: z.boolean().nullish(),
      })
      .strict(),
  ])
  .meta({
    description:
      '`text` (default), `json_object` (the answer is a JSON object) or `json_schema` (the answer is JSON valid against `schema`, draft 2020-12, checked by the platform). With a JSON format, the output text is the answer as JSON.',
  });
export type ResponseTextFormat = z.infer<typeof ResponseTextFormat>;

/** The run's output schema for a `text.format`: the one its Chat Completions `response_format` would give. */
export function outputSchemaOfTextFormat(format: ResponseTextFormat | undefined): Record<string, unknown> | undefined {
  if (format?.type !== 'json_schema') return outputSchemaOfFormat(format);
  return outputSchemaOfFormat({ type: 'json_schema', json_schema: { name: format.name, schema: format.schema } });
}
