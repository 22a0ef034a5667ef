/** One input of a form built from a tool's input JSON Schema. */
export interface FormField {
  name: string;
  label: string;
  description: string;
  required: boolean;
  /** `json`: anything the form cannot show as one input (objects, arrays, unions), typed as JSON; `longtext`: text of many lines. */
  control: 'text' | 'longtext' | 'number' | 'integer' | 'checkbox' | 'select' | 'json';
  options: string[];
  defaultValue: string;
}

/** Form values by field name: text for every control (checkboxes `"true"`/`"false"`). */
export type FormValues = Record<string, string>;

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
  title?: string;
  default?: unknown;
};

function controlOf(schema: JsonSchema): FormField['control'] {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'select';
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (type.length !== 1) return 'json';
  switch (type[0]) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'checkbox';
    default:
      return 'json';
  }
}

function defaultOf(schema: JsonSchema, control: FormField['control']): string {
  if (schema.default === undefined) return control === 'checkbox' ? 'false' : '';
  if (control === 'json') return JSON.stringify(schema.default, null, 2);
  const value = schema.default;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
}

/** The fields of a tool's input schema (an object schema); a schema that is not one gets a single JSON field. */
export function fieldsOfSchema(schema: unknown): FormField[] {
  const root = (schema ?? {}) as JsonSchema;
  if (!root.properties || typeof root.properties !== 'object') {
    return [
      {
        name: '',
        label: 'Arguments (JSON)',
        description: 'The whole arguments object.',
        required: true,
        control: 'json',
        options: [],
        defaultValue: '{}',
      },
    ];
  }
  const required = new Set(root.required ?? []);
  return Object.entries(root.properties).map(([name, property]) => {
    const control = controlOf(property);
    return {
      name,
      label: property.title ?? name,
      description: property.description ?? '',
      required: required.has(name),
      control,
      options: control === 'select' ? (property.enum as string[]) : [],
      defaultValue: defaultOf(property, control),
    };
  });
}

export type ArgumentsResult =
  { ok: true; arguments: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

/** The tool call's arguments from the form's values, or what is wrong with each field. */
export function argumentsOfForm(fields: readonly FormField[], values: FormValues): ArgumentsResult {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.name] ?? field.defaultValue;
    if (field.control === 'checkbox') {
      args[field.name] = raw === 'true';
      continue;
    }
    if (raw.trim() === '') {
      if (field.required) errors[field.name] = `${field.label} is required`;
      continue;
    }
    if (field.control === 'number' || field.control === 'integer') {
      const n = Number(raw);
      if (!Number.isFinite(n) || (field.control === 'integer' && !Number.isInteger(n)))
        errors[field.name] = `${field.label} must be ${field.control === 'integer' ? 'a whole number' : 'a number'}`;
      else args[field.name] = n;
      continue;
    }
    if (field.control === 'json') {
      try {
        const parsed = JSON.parse(raw) as unknown;
        if (field.name === '') {
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
            errors[field.name] = 'The arguments must be a JSON object';
          else Object.assign(args, parsed);
        } else args[field.name] = parsed;
      } catch {
        errors[field.name] = `${field.label} is not valid JSON`;
      }
      continue;
    }
    args[field.name] = raw;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, arguments: args };
}
