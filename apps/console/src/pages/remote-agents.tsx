import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/api-error.js';
import type { RemoteAgent } from '../api/types.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { DataTable } from '../components/table.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';

/** Registers a remote agent by its card URL, naming the stored credential its calls carry (never a token). */
function AddRemoteAgent({ onAdded }: { onAdded: () => void }) {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const [service, account] = credential.trim().split('/');
    const auth = service ? { credentialService: service, ...(account ? { credentialAccount: account } : {}) } : null;
    api.createRemoteAgent({ name, url, description, auth }).then(() => {
      setName('');
      setUrl('');
      setDescription('');
      setCredential('');
      onAdded();
    }, setError);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Add a remote agent">
      <label>
        Name
        <input value={name} required placeholder="forecaster" onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Agent card URL
        <input
          value={url}
          required
          placeholder="https://agents.example.com/.well-known/agent-card.json"
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      <label>
        Description
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label>
        Credential (service or service/account; empty: none)
        <input value={credential} placeholder="partner-agents" onChange={(e) => setCredential(e.target.value)} />
      </label>
      <div className="actions">
        <button type="submit">Add remote agent</button>
      </div>
      {error && <ErrorState error={error} />}
    </form>
  );
}

function RemoteAgentRow({
  agent,
  canWrite,
  onChanged,
}: {
  agent: RemoteAgent;
  canWrite: boolean;
  onChanged: () => void;
}) {
  const { api } = useConsole();
  const [error, setError] = useState<ApiError | undefined>();
  const remove = () => {
    if (!window.confirm(`Delete the remote agent ${agent.name}? Agents delegating to it fail those tasks.`)) return;
    api.deleteRemoteAgent(agent.name).then(onChanged, setError);
  };
  return (
    <tr>
      <td>{agent.name}</td>
      <td>
        {agent.card.name}
        {agent.card.description && <div className="muted">{agent.card.description}</div>}
      </td>
      <td>{agent.card.skills.map((s) => s.name || s.id).join(', ') || 'none'}</td>
      <td>
        <code>{agent.url}</code>
      </td>
      <td>{agent.auth ? `${agent.auth.credentialService}/${agent.auth.credentialAccount ?? 'primary'}` : 'none'}</td>
      <td>{formatTime(agent.updatedAt)}</td>
      <td>
        {canWrite && (
          <button type="button" className="danger small" onClick={remove} aria-label={`Delete ${agent.name}`}>
            Delete
          </button>
        )}
        {error && <ErrorState error={error} />}
      </td>
    </tr>
  );
}

/** The tenant's remote A2A agents (docs/remote-agents.md): what their cards say, registered and deleted here. */
export function RemoteAgentsPage() {
  const { api, readOnly, can } = useConsole();
  const canWrite = !readOnly && can('admin');
  const loaded = useLoad(['remote-agents'], () => api.listRemoteAgents());
  return (
    <section aria-labelledby="remote-agents-title">
      <h1 id="remote-agents-title">Remote agents</h1>
      <LoadState loaded={loaded} what="remote agents">
        {({ remoteAgents }) =>
          remoteAgents.length === 0 ? (
            <EmptyState title="No remote agent yet.">
              Register an A2A agent by its card; an agent&apos;s delegate naming it (`remoteAgent`) hands it tasks.
            </EmptyState>
          ) : (
            <DataTable
              caption="Remote agents"
              captionHidden
              columns={[
                'Name',
                'Card',
                'Skills',
                'URL',
                'Credential',
                'Updated',
                <span key="actions" className="visually-hidden">
                  Actions
                </span>,
              ]}
            >
              {remoteAgents.map((a) => (
                <RemoteAgentRow key={a.name} agent={a} canWrite={canWrite} onChanged={loaded.reload} />
              ))}
            </DataTable>
          )
        }
      </LoadState>
      {canWrite && (
        <>
          <h2>Add a remote agent</h2>
          <AddRemoteAgent onAdded={loaded.reload} />
        </>
      )}
    </section>
  );
}
