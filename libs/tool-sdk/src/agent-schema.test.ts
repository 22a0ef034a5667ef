// The model-facing schema of an agent-tool (seed 000, 4.3) and its field schema version (5.3).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { APPROVAL_NOTE, TASK_INSTRUCTION_DESCRIPTION } from './agent-schema.js';
import { defineAgentTool, type AgentFieldSpec } from './define-agent-tool.js';
import { emailAgent } from './test-support/email-agent.js';

describe('model-facing schema', () => {
  const agent = emailAgent([]);

  it('lists every field plus task_instruction, requires none, and forbids others', () => {
    expect(agent.inputJsonSchema).toEqual({
      type: 'object',
      properties: {
        recipient: {
          type: 'string',
          description:
            'Recipient email address (must contain @). Required: leave it out if the user has not given it, and the user will be asked.',
        },
        subject: {
          type: 'string',
          minLength: 1,
          description: 'Subject line. Required: leave it out if the user has not given it, and the user will be asked.',
        },
        body: { type: 'string', description: 'Message text. Optional; default "".' },
        priority: {
          type: 'string',
          enum: ['low', 'normal', 'high'],
          description: 'How urgent it is. Optional; default "normal".',
        },
        cc: { type: 'string', description: 'Someone to copy. Optional.' },
        task_instruction: { type: 'string', description: TASK_INSTRUCTION_DESCRIPTION },
      },
      additionalProperties: false,
    });
    expect(agent.inputJsonSchema).not.toHaveProperty('required');
  });

  it('explains task_instruction with an example', () => {
    expect(TASK_INSTRUCTION_DESCRIPTION).toMatch(/Example: .*task_instruction: "/);
  });

  it('notes the approval in the description when approval may be needed', () => {
    expect(agent.modelDescription).toBe(`Sends an email on behalf of the user. ${APPROVAL_NOTE}`);
    expect(APPROVAL_NOTE).toBe('[Requires user confirmation before execution]');
    expect(emailAgent([], { approval: true }).modelDescription).toContain(APPROVAL_NOTE);
    expect(emailAgent([], { approval: false }).modelDescription).toBe('Sends an email on behalf of the user.');
  });

  it('keeps the field schema zod generates, nested objects included', () => {
    const nested = defineAgentTool({
      name: 'book_flight',
      description: 'Books a flight.',
      fields: {
        seat: {
          schema: z.object({ row: z.number().int(), letter: z.enum(['A', 'B']) }),
          description: 'Seat',
          constraint: 'rows 1-40',
        },
      },
      run: async () => null,
    });
    expect(nested.inputJsonSchema).toMatchObject({
      properties: {
        seat: {
          type: 'object',
          required: ['row', 'letter'],
          properties: { row: { type: 'integer' } },
          description: expect.stringMatching(/^Seat \(rows 1-40\)\. Required/),
        },
      },
    });
  });
});

describe('schema version', () => {
  type Specs = Record<string, AgentFieldSpec>;
  const version = (fields: Specs): string =>
    defineAgentTool({ name: 'v', description: 'Versioned.', fields, run: async () => null }).schemaVersion;
  const base: Specs = {
    city: { schema: z.string(), description: 'City' },
    days: { schema: z.number().int(), description: 'Days', default: 3 },
  };

  it('is stable: same fields in any order, and descriptions, constraints and validators do not count', () => {
    const v = version(base);
    expect(v).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(version({ days: base['days']!, city: base['city']! })).toBe(v);
    expect(
      version({
        city: {
          schema: z.string().describe('changed'),
          description: 'The city',
          constraint: 'a real city',
          validate: () => undefined,
        },
        days: { ...base['days']!, description: 'How many days' },
      }),
    ).toBe(v);
  });

  it('changes when a field is added, removed, renamed or retyped', () => {
    const v = version(base);
    const changed = [
      version({ ...base, units: { schema: z.enum(['C', 'F']), description: 'Units', default: 'C' } }),
      version({ city: base['city']! }),
      version({ town: base['city']!, days: base['days']! }),
      version({ ...base, city: { schema: z.number(), description: 'City' } }),
      version({ ...base, days: { schema: z.number().int().max(7), description: 'Days', default: 3 } }),
    ];
    for (const other of changed) expect(other).not.toBe(v);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it('changes when required-ness or the default changes', () => {
    const v = version(base);
    expect(version({ ...base, days: { schema: z.number().int(), description: 'Days', default: 5 } })).not.toBe(v);
    expect(version({ ...base, days: { schema: z.number().int(), description: 'Days' } })).not.toBe(v);
    expect(version({ ...base, city: { schema: z.string().optional(), description: 'City' } })).not.toBe(v);
  });
});
