import { describe, expect, it } from 'vitest';
import { bridgedInput } from './input-schema.js';

const echoSchema = {
  type: 'object',
  properties: { message: { type: 'string' }, times: { type: 'integer', minimum: 1, default: 1 } },
  required: ['message'],
  $schema: 'http://json-schema.org/draft-07/schema#',
};

describe('bridgedInput', () => {
  it('publishes the server schema without $schema', () => {
    const { published, fallbackReason } = bridgedInput(echoSchema);
    expect(published).toEqual({ type: 'object', properties: echoSchema.properties, required: ['message'] });
    expect(fallbackReason).toBeUndefined();
  });

  it('lists every problem with its path', () => {
    const result = bridgedInput(echoSchema).validator.safeParse({ times: 0.5 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['message', 'times']);
  });

  it('forwards valid arguments unchanged: no defaults added, unknown keys kept', () => {
    expect(bridgedInput(echoSchema).validator.parse({ message: 'hi', extra: true })).toEqual({
      message: 'hi',
      extra: true,
    });
  });

  it('falls back to any object when zod cannot convert the schema', () => {
    const exotic = { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } };
    const { validator, published, fallbackReason } = bridgedInput(exotic);
    expect(fallbackReason).toMatch(/missing/);
    expect(published).toEqual(exotic);
    expect(validator.parse({ a: 42 })).toEqual({ a: 42 });
    expect(validator.safeParse('not an object').success).toBe(false);
  });
});
