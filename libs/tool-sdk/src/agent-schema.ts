import { TASK_INSTRUCTION_PARAMETER } from '@platform/contracts';
import { z } from 'zod';
import { schemaHash } from './json-schema.js';

/** A field with its defaults resolved. */
export interface AgentField {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly description: string;
  readonly required: boolean;
  readonly hasDefault: boolean;
  readonly default: unknown;
  readonly validate: ((value: unknown) => string | undefined) | undefined;
  readonly constraint: string | undefined;
}

/** Appended to the description of an agent that may ask the user before acting (seed 000, 4.3). */
export const APPROVAL_NOTE = '[Requires user confirmation before execution]';

/** How the model is told to use `task_instruction`, with an example. */
export const TASK_INSTRUCTION_DESCRIPTION =
  'Optional context from the conversation that fits none of the other parameters, as a short instruction in plain language; ' +
  'leave out what the other parameters already say. Example: the user said "email the team that the review moved, and keep it short", ' +
  'so pass the recipient and subject as parameters and task_instruction: "keep the message short and friendly".';

/** The JSON Schema (draft 2020-12) of one field's value, as zod generates it. */
function fieldJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json['$schema'];
  return json;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The field's description with its constraint, as the user is shown it when the value is missing. */
export function fieldDescription(field: AgentField): string {
  return field.constraint ? `${field.description} (${field.constraint})` : field.description;
}

/** The parameter description the model reads: description, ` (constraint)`, and whether it is required. */
function modelFieldDescription(field: AgentField): string {
  const base = sentence(fieldDescription(field));
  if (field.required) return `${base} Required: leave it out if the user has not given it, and the user will be asked.`;
  if (field.hasDefault) return `${base} Optional; default ${JSON.stringify(field.default)}.`;
  return `${base} Optional.`;
}

/** The tool description the model reads, with the approval note when the agent may ask the user first. */
export function agentToolDescription(description: string, mayNeedApproval: boolean): string {
  return mayNeedApproval ? `${description.trim()} ${APPROVAL_NOTE}` : description.trim();
}

/**
 * The model-facing input schema of an agent-tool: one property per field (its zod JSON Schema with
 * the enhanced description) plus `task_instruction`. Nothing is `required`: the agent asks the
 * user for what the model could not fill in, so the model must never invent a value.
 */
export function agentInputJsonSchema(fields: readonly AgentField[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of fields)
    properties[field.name] = { ...fieldJsonSchema(field.schema), description: modelFieldDescription(field) };
  properties[TASK_INSTRUCTION_PARAMETER] = { type: 'string', description: TASK_INSTRUCTION_DESCRIPTION };
  return { type: 'object', properties, additionalProperties: false };
}

/**
 * The version of an agent's field schema: a hash over each field's name, value schema (its
 * JSON Schema without the field's own description), required flag and default. Descriptions,
 * constraints and validators do not count (collected values are re-validated on every step);
 * adding, removing or retyping a field changes it. Field order does not matter.
 */
export function agentSchemaVersion(fields: readonly AgentField[]): string {
  const shape = [...fields]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((field) => {
      const { description: _description, ...schema } = fieldJsonSchema(field.schema);
      return {
        name: field.name,
        schema,
        required: field.required,
        ...(field.hasDefault ? { default: field.default } : {}),
      };
    });
  return schemaHash({ agentFields: shape });
}
