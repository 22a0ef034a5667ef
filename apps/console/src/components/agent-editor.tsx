import { useMemo, useState, type FormEvent } from 'react';
import { ApiError } from '../api/api-error.js';
import { agentFields, issuesByField, specOfForm, valuesOfSpec } from '../lib/agent-form.js';
import type { FormValues } from '../lib/schema-form.js';
import { FieldInput } from './field-input.js';
import { ErrorState } from './states.js';

/**
 * An agent's spec as a form built from the AgentSpec JSON Schema: plain fields as inputs, nested
 * ones as JSON. Saving writes a new version, published or as a draft; the api's refusals show on
 * the fields they name.
 */
export function AgentEditor({
  schema,
  spec,
  disabled,
  onSave,
}: {
  schema: unknown;
  spec: Record<string, unknown> | null;
  disabled: boolean;
  onSave: (spec: Record<string, unknown>, draft: boolean) => Promise<unknown>;
}) {
  const fields = useMemo(() => agentFields(schema), [schema]);
  const [values, setValues] = useState<FormValues>(() => valuesOfSpec(fields, spec));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const save = (draft: boolean) => async (event?: FormEvent) => {
    event?.preventDefault();
    const result = specOfForm(fields, values);
    if (!result.ok) return setErrors(result.errors);
    setBusy(true);
    try {
      await onSave(result.arguments, draft);
      setErrors({});
      setFailure(undefined);
    } catch (err) {
      const error = err instanceof ApiError ? err : new ApiError(0, 'CLIENT', (err as Error).message);
      setFailure(error);
      setErrors(issuesByField(error.details));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="agent-editor" aria-label="Agent spec" onSubmit={(e) => void save(false)(e)} noValidate>
      {fields.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          id={`agent-${field.name}`}
          value={values[field.name] ?? ''}
          error={errors[field.name]}
          onChange={(v) => setValues((s) => ({ ...s, [field.name]: v }))}
        />
      ))}
      {failure && <ErrorState error={failure} />}
      <div className="actions">
        <button type="submit" disabled={disabled || busy}>
          Save and publish
        </button>
        <button type="button" className="secondary" disabled={disabled || busy} onClick={() => void save(true)()}>
          Save as draft
        </button>
      </div>
    </form>
  );
}
