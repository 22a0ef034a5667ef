import { describe, expect, it } from 'vitest';
import { argumentsOfForm, fieldsOfSchema } from './schema-form.js';

const archiveSchema = {
  type: 'object',
  properties: {
    region: { type: 'string', enum: ['emea', 'amer'], description: 'Where' },
    olderThanDays: { type: 'integer', default: 90 },
    dryRun: { type: 'boolean' },
    ratio: { type: ['number', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    note: { type: 'string' },
  },
  required: ['region', 'olderThanDays'],
};

describe('a form from a JSON Schema', () => {
  it('has an input per property, of the right kind', () => {
    const fields = fieldsOfSchema(archiveSchema);
    expect(fields.map((f) => [f.name, f.control, f.required])).toEqual([
      ['region', 'select', true],
      ['olderThanDays', 'integer', true],
      ['dryRun', 'checkbox', false],
      ['ratio', 'number', false],
      ['tags', 'json', false],
      ['note', 'text', false],
    ]);
    expect(fields[0]).toMatchObject({ options: ['emea', 'amer'], description: 'Where' });
    expect(fields[1]!.defaultValue).toBe('90');
  });

  it('turns the values into typed arguments, leaving out empty optional ones', () => {
    const fields = fieldsOfSchema(archiveSchema);
    expect(
      argumentsOfForm(fields, { region: 'emea', olderThanDays: '30', dryRun: 'true', tags: '["a"]', note: '' }),
    ).toEqual({
      ok: true,
      arguments: { region: 'emea', olderThanDays: 30, dryRun: true, tags: ['a'] },
    });
  });

  it('says what is wrong with each field', () => {
    const fields = fieldsOfSchema(archiveSchema);
    const result = argumentsOfForm(fields, { region: '', olderThanDays: '1.5', ratio: 'x', tags: '[' });
    expect(result).toEqual({
      ok: false,
      errors: {
        region: 'region is required',
        olderThanDays: 'olderThanDays must be a whole number',
        ratio: 'ratio must be a number',
        tags: 'tags is not valid JSON',
      },
    });
  });

  it('falls back to one JSON object field for a schema without properties', () => {
    const fields = fieldsOfSchema({ anyOf: [] });
    expect(fields).toHaveLength(1);
    expect(argumentsOfForm(fields, { '': '{"x":1}' })).toEqual({ ok: true, arguments: { x: 1 } });
    expect(argumentsOfForm(fields, { '': '[1]' })).toEqual({
      ok: false,
      errors: { '': 'The arguments must be a JSON object' },
    });
  });
});
