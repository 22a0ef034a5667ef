import {
  argumentsOfForm,
  fieldsOfSchema,
  type ArgumentsResult,
  type FormField,
  type FormValues,
} from './schema-form.js';

/** The part of the OpenAPI document the editor reads: the AgentSpec schema of the agent bodies. */
interface OpenApiDocumentLike {
  components?: { schemas?: Record<string, unknown> };
}

/** The AgentSpec JSON Schema in the api's OpenAPI document (what POST and PUT /v1/agents take). */
export function agentSpecSchema(document: OpenApiDocumentLike): unknown {
  const schema = document.components?.schemas?.['AgentSpec'];
  if (!schema) throw new Error('the OpenAPI document has no AgentSpec schema: is the api older than the console?');
  return schema;
}

/**
 * The editor's fields: one per AgentSpec property, plain ones (name, instructions, model, …) as
 * inputs, nested ones (labels, tools, delegates, loop, output schema, …) as JSON.
 */
export function agentFields(schema: unknown): FormField[] {
  // The persona is long text: a text area, not a one-line input.
  return fieldsOfSchema(schema).map((f) => (f.name === 'instructions' ? { ...f, control: 'longtext' as const } : f));
}

/** The form's values for an agent's spec (an empty spec: the schema's defaults). */
export function valuesOfSpec(fields: readonly FormField[], spec: Record<string, unknown> | null): FormValues {
  return Object.fromEntries(
    fields.map((field) => {
      const value = spec?.[field.name];
      if (value === undefined) return [field.name, field.defaultValue];
      if (field.control === 'json') return [field.name, JSON.stringify(value, null, 2)];
      const plain = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
      return [field.name, plain ? String(value) : JSON.stringify(value)];
    }),
  );
}

/** The AgentSpec the form holds, or what is wrong with each field (before the api is asked). */
export function specOfForm(fields: readonly FormField[], values: FormValues): ArgumentsResult {
  return argumentsOfForm(fields, values);
}

/** `{ field: message }` from the api's INVALID_AGENT_SPEC `details.issues` (`delegates.0.role` is shown on `delegates`). */
export function issuesByField(details: unknown): Record<string, string> {
  const issues = (details as { issues?: Array<{ field?: unknown; message?: unknown }> } | undefined)?.issues;
  const byField: Record<string, string> = {};
  for (const issue of issues ?? []) {
    if (typeof issue.field !== 'string' || typeof issue.message !== 'string') continue;
    const top = issue.field.split('.')[0]!;
    const where = issue.field === top ? '' : `${issue.field}: `;
    byField[top] = byField[top] ? `${byField[top]}; ${where}${issue.message}` : `${where}${issue.message}`;
  }
  return byField;
}
