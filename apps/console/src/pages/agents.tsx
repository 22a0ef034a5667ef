import { useState } from 'react';
import { Link } from 'wouter';
import { StatusBadge } from '../components/badges.js';
import { EmptyState, LoadState } from '../components/states.js';
import { DataTable } from '../components/table.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';

const labelsOf = (spec: Record<string, unknown> | null): string =>
  Object.entries((spec?.['labels'] as Record<string, string> | undefined) ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** The tenant's agents and the built-in ones it may use: versions, labels, and a way to a new one. */
export function AgentsPage() {
  const { api, readOnly } = useConsole();
  const [withDeleted, setWithDeleted] = useState(false);
  const loaded = useLoad(['agents', withDeleted], () => api.listAgents(withDeleted));
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <div className="actions">
        {!readOnly && <Link href="/agents/new">New agent</Link>}
        <label>
          <input type="checkbox" checked={withDeleted} onChange={(e) => setWithDeleted(e.target.checked)} /> Show
          deleted agents
        </label>
      </div>
      <LoadState loaded={loaded} what="agents">
        {({ agents }) =>
          agents.length === 0 ? (
            <EmptyState title="No agents yet.">
              Create one with “New agent” or POST /v1/agents (docs/agents.md).
            </EmptyState>
          ) : (
            <DataTable
              caption="Agents, by name"
              columns={['Name', 'Active version', 'Latest', 'Labels', 'Updated', '']}
            >
              {agents.map((agent) => (
                <tr key={agent.id}>
                  <td>
                    <Link href={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link>
                  </td>
                  <td>{agent.activeVersion === null ? '—' : `v${agent.activeVersion}`}</td>
                  <td>{agent.latestVersion === null ? '—' : `v${agent.latestVersion}`}</td>
                  <td>{labelsOf(agent.spec)}</td>
                  <td>{formatTime(agent.updatedAt)}</td>
                  <td>
                    {agent.builtIn && <StatusBadge status="built-in" />}
                    {agent.deletedAt && <StatusBadge status="deleted" />}
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
