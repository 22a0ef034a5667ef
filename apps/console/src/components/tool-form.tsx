import { useMemo, useState, type FormEvent } from 'react';
import type { CatalogTool } from '../api/types.js';
import { argumentsOfForm, fieldsOfSchema, type FormValues } from '../lib/schema-form.js';
import { FieldInput } from './field-input.js';

/** A tool's input schema as a form; submits the typed arguments. */
export function ToolForm({
  tool,
  disabled,
  onSubmit,
}: {
  tool: CatalogTool;
  disabled: boolean;
  onSubmit: (args: Record<string, unknown>) => void;
}) {
  const fields = useMemo(() => fieldsOfSchema(tool.inputSchema), [tool.inputSchema]);
  const [values, setValues] = useState<FormValues>(() =>
    Object.fromEntries(fields.map((f) => [f.name, f.defaultValue])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = argumentsOfForm(fields, values);
    if (!result.ok) return setErrors(result.errors);
    setErrors({});
    onSubmit(result.arguments);
  };
  return (
    <form className="tool-form" onSubmit={submit} aria-label={`Try ${tool.name}`} noValidate>
      {fields.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          id={`tool-${tool.name}-${field.name || 'args'}`}
          value={values[field.name] ?? ''}
          error={errors[field.name]}
          onChange={(v) => setValues((s) => ({ ...s, [field.name]: v }))}
        />
      ))}
      <button type="submit" disabled={disabled}>
        Run {tool.name}
      </button>
    </form>
  );
}
