import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The JSON Schema (draft 2020-12) of a tool's input, as published in discovery metadata. */
export function inputJsonSchema(input: z.ZodObject): Record<string, unknown> {
  const schema = z.toJSONSchema(input, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema['$schema'];
  return schema;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** A short, order-independent hash of a JSON Schema: equal hashes mean interchangeable inputs. */
export function schemaHash(schema: Record<string, unknown>): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(canonical(schema)))
    .digest('hex')
    .slice(0, 16)}`;
}
