import type { FormField } from '../lib/schema-form.js';

/** One input of a form built from a JSON Schema, labelled, with its help text and its error. */
export function FieldInput({
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
    case 'longtext':
      input = <textarea {...common} rows={6} value={value} onChange={(e) => onChange(e.target.value)} />;
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
