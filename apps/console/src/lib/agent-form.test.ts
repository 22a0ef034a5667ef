import { describe, expect, it } from 'vitest';
import { agentFields, agentSpecSchema, issuesByField, specOfForm, valuesOfSpec } from './agent-form.js';

// The AgentSpec schema as the api's document has it (trimmed).
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
    description: { type: 'string', default: '' },
    labels: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
    instructions: { type: 'string' },
    model: { type: 'string' },
    structuredOutput: { type: 'boolean', default: true },
    tools: { type: 'array', items: { type: 'string' }, default: ['*'] },
    strategy: { type: 'string', enum: ['react', 'plan-and-execute'], default: 'react' },
    loop: { type: 'object', properties: { maxTurns: { type: 'integer' } } },
  },
  required: ['name', 'instructions'],
};

describe('the agent editor form', () => {
  it("reads the AgentSpec schema from the api's document, and refuses a document without one", () => {
    expect(agentSpecSchema({ components: { schemas: { AgentSpec: schema } } })).toBe(schema);
    expect(() => agentSpecSchema({})).toThrow(/no AgentSpec/);
  });

  it('has plain fields as inputs and nested ones as JSON', () => {
    expect(agentFields(schema).map((f) => [f.name, f.control, f.required])).toEqual([
      ['name', 'text', true],
      ['description', 'text', false],
      ['labels', 'json', false],
      ['instructions', 'longtext', true],
      ['model', 'text', false],
      ['structuredOutput', 'checkbox', false],
      ['tools', 'json', false],
      ['strategy', 'select', false],
      ['loop', 'json', false],
    ]);
  });

  it('fills the form from a spec and gives the same spec back', () => {
    const fields = agentFields(schema);
    const spec = {
      name: 'support-bot',
      description: 'Billing',
      labels: { team: 'billing' },
      instructions: 'Be brief.\nAlways cite the invoice.',
      model: 'gpt-4o-mini',
      structuredOutput: false,
      tools: ['calculator'],
      strategy: 'react',
      loop: { maxTurns: 4 },
    };
    const values = valuesOfSpec(fields, spec);
    expect(values['instructions']).toBe('Be brief.\nAlways cite the invoice.');
    expect(values['labels']).toBe(JSON.stringify({ team: 'billing' }, null, 2));
    expect(specOfForm(fields, values)).toEqual({ ok: true, arguments: spec });
  });

  it('says what is wrong with a field before the api is asked', () => {
    const fields = agentFields(schema);
    const values = { ...valuesOfSpec(fields, null), name: 'x', instructions: '  ', tools: '[calculator' };
    const result = specOfForm(fields, values);
    expect(result).toEqual({
      ok: false,
      errors: { instructions: 'instructions is required', tools: 'tools is not valid JSON' },
    });
  });

  it("puts the api's issues on the fields they name", () => {
    expect(
      issuesByField({
        issues: [
          { field: 'name', message: 'must be 1-64 letters' },
          { field: 'delegates.0.role', message: 'listed twice' },
          { field: 'delegates.1.role', message: 'too long' },
        ],
      }),
    ).toEqual({
      name: 'must be 1-64 letters',
      delegates: 'delegates.0.role: listed twice; delegates.1.role: too long',
    });
    expect(issuesByField(undefined)).toEqual({});
  });
});
