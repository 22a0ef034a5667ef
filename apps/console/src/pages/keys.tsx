import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/api-error.js';
import { CodeBlock } from '../components/badges.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { DataTable } from '../components/table.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import type { TenantRole } from '../lib/roles.js';

const ROLES: readonly TenantRole[] = ['viewer', 'member', 'developer', 'admin'];

/** Creates a key and shows its secret once. */
function CreateKey({ onCreated }: { onCreated: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [role, setRole] = useState<TenantRole>('member');
  const [secret, setSecret] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    api.createKey(name.trim(), role).then((created) => {
      setSecret(created.secret);
      setName('');
      onCreated();
    }, setError);
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <label>
        Key name
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={64} />
      </label>
      <label>
        Key role
        <select value={role} onChange={(e) => setRole(e.target.value as TenantRole)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Create key</button>
      {error && <ErrorState error={error} />}
      {secret && (
        <div className="notice ok" data-testid="new-key">
          <p>Copy the key now: it is shown only this once.</p>
          <CodeBlock label="The new key" text={secret} />
        </div>
      )}
    </form>
  );
}

/** API keys for servers (docs/access.md#api-keys): list, create (shown once), revoke. Admins only. */
export function KeysPage() {
  const { api } = useConsole();
  const loaded = useLoad(['api-keys'], () => api.listKeys());
  const [error, setError] = useState<ApiError | undefined>();
  const revoke = (keyId: string, name: string) => {
    if (!window.confirm(`Revoke the key "${name}"? Servers using it are refused at once.`)) return;
    api.revokeKey(keyId).then(loaded.reload, setError);
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <CreateKey onCreated={loaded.reload} />
      {error && <ErrorState error={error} />}
      <LoadState loaded={loaded} what="API keys">
        {({ keys }) =>
          keys.length === 0 ? (
            <EmptyState title="No key yet.">A server authenticates with a key instead of a user token.</EmptyState>
          ) : (
            <DataTable
              caption="API keys"
              captionHidden
              columns={['Name', 'Prefix', 'Role', 'Created', 'Last used', 'Expires', 'State', '']}
            >
              {keys.map((key) => (
                <tr key={key.keyId}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}</code>
                  </td>
                  <td>{key.role}</td>
                  <td>
                    {formatTime(key.createdAt)} <span className="muted">by {key.createdBy}</span>
                  </td>
                  <td>{key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'}</td>
                  <td>{key.expiresAt ? formatTime(key.expiresAt) : 'never'}</td>
                  <td>{key.revokedAt ? `revoked ${formatTime(key.revokedAt)}` : 'active'}</td>
                  <td>
                    {!key.revokedAt && (
                      <button type="button" className="danger small" onClick={() => revoke(key.keyId, key.name)}>
                        Revoke {key.name}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </LoadState>
    </section>
  );
}
