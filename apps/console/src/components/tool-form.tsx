import { useMemo, useState, type FormEvent } from 'react';
import type { CatalogTool } from '../api/types.js';
import { argumentsOfForm, fieldsOfSchema, type FormField, type FormValues } from '../lib/schema-form.js';

function FieldInput({
  field,
  id,
  value,
  error,
  onChange,
}: {
  field: FormField;
  id: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const described =
    [field.description ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    'aria-describedby': described,
    'aria-invalid': error ? true : undefined,
    required: field.required && field.control !== 'checkbox',
  };
  let input;
  switch (field.control) {
    case 'checkbox':
      input = (
        <input
          {...common}
          type="checkbox"
          checked={value === 'true'}
          onChange={(e) => onChange(String(e.target.checked))}
        />
      );
      break;
    case 'select':
      input = (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">choose…</option>
          {field.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
      break;
    case 'json':
      input = (
        <textarea {...common} rows={4} value={value} spellCheck={false} onChange={(e) => onChange(e.target.value)} />
      );
      break;
    default:
      input = (
        <input
          {...common}
          type={field.control === 'text' ? 'text' : 'number'}
          step={field.control === 'integer' ? 1 : 'any'}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        <span>
          {field.label}
          {field.required && <span aria-hidden="true"> *</span>}
          {field.control === 'json' && <span className="muted"> (JSON)</span>}
        </span>
      </label>
      {input}
      {field.description && (
        <p id={`${id}-help`} className="muted">
          {field.description}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

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
