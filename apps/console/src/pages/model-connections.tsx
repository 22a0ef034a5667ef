import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/api-error.js';
import type { ModelConnection } from '../api/types.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { DataTable } from '../components/table.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';

const modelList = (text: string): string[] =>
  text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);

/** Registers a connection; the key field is a password field and is cleared once sent. */
function AddConnection({ onAdded }: { onAdded: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [models, setModels] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    api.createModelConnection({ name, baseUrl, apiKey, models: modelList(models) }).then(() => {
      setName('');
      setBaseUrl('');
      setApiKey('');
      setModels('');
      onAdded();
    }, setError);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Add a model connection">
      <label>
        Name
        <input value={name} required placeholder="acme-llm" onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Base URL
        <input
          value={baseUrl}
          required
          placeholder="https://llm.example.com/v1"
          onChange={(e) => setBaseUrl(e.target.value)}
        />
      </label>
      <label>
        API key
        <input type="password" autoComplete="off" value={apiKey} required onChange={(e) => setApiKey(e.target.value)} />
      </label>
      <label>
        Models (comma-separated; empty: any)
        <input value={models} onChange={(e) => setModels(e.target.value)} />
      </label>
      <div className="actions">
        <button type="submit">Add connection</button>
      </div>
      {error && <ErrorState error={error} />}
    </form>
  );
}

/** One connection: rotate its key (a new one, typed here) or delete it. */
function ConnectionRow({ connection, onChanged }: { connection: ModelConnection; onChanged: () => void }) {
  const { api, readOnly } = useConsole();
  const [rotating, setRotating] = useState(false);
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const rotate = (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    api
      .replaceModelConnection(connection.name, {
        baseUrl: connection.baseUrl,
        models: connection.models,
        apiKey,
        expectedVersion: connection.version,
      })
      .then(() => {
        setApiKey('');
        setRotating(false);
        onChanged();
      }, setError);
  };
  const remove = () => {
    if (!window.confirm(`Delete the model connection ${connection.name}? Agents naming it stop working.`)) return;
    api.deleteModelConnection(connection.name).then(onChanged, setError);
  };
  return (
    <tr>
      <td>{connection.name}</td>
      <td>
        <code>{connection.baseUrl}</code>
      </td>
      <td>{connection.models.length ? connection.models.join(', ') : 'any'}</td>
      <td>
        <code>{connection.keyPreview}</code>
      </td>
      <td>{connection.version}</td>
      <td>{formatTime(connection.updatedAt)}</td>
      <td>
        {!readOnly && !rotating && (
          <>
            <button type="button" className="secondary small" onClick={() => setRotating(true)}>
              Rotate key
            </button>{' '}
            <button type="button" className="danger small" onClick={remove} aria-label={`Delete ${connection.name}`}>
              Delete
            </button>
          </>
        )}
        {rotating && (
          <form onSubmit={rotate} aria-label={`Rotate the key of ${connection.name}`}>
            <label>
              New API key
              <input
                type="password"
                autoComplete="off"
                value={apiKey}
                required
                onChange={(e) => setApiKey(e.target.value)}
              />
            </label>
            <button type="submit" className="small">
              Save key
            </button>{' '}
            <button type="button" className="secondary small" onClick={() => setRotating(false)}>
              Cancel
            </button>
          </form>
        )}
        {error && <ErrorState error={error} />}
      </td>
    </tr>
  );
}

/** Models the tenant brings: its OpenAI-compatible endpoints for its agents (the api never returns a key). */
export function ModelConnectionsPage() {
  const { api, readOnly } = useConsole();
  const loaded = useLoad(['model-connections'], () => api.listModelConnections());
  return (
    <section aria-labelledby="model-connections-title">
      <h1 id="model-connections-title">Model connections</h1>
      <LoadState loaded={loaded} what="model connections">
        {({ connections }) =>
          connections.length === 0 ? (
            <EmptyState title="No model connection yet.">
              Agents use the platform&apos;s model unless they name a connection (`modelConnection`, docs/models.md).
            </EmptyState>
          ) : (
            <DataTable
              caption="Model connections"
              captionHidden
              columns={[
                'Name',
                'Base URL',
                'Models',
                'Key',
                'Version',
                'Updated',
                <span key="actions" className="visually-hidden">
                  Actions
                </span>,
              ]}
            >
              {connections.map((c) => (
                <ConnectionRow key={c.name} connection={c} onChanged={loaded.reload} />
              ))}
            </DataTable>
          )
        }
      </LoadState>
      {!readOnly && (
        <>
          <h2>Add a connection</h2>
          <AddConnection onAdded={loaded.reload} />
        </>
      )}
    </section>
  );
}
