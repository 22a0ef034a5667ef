import { useState } from 'react';
import type { ApiError } from '../api/api-error.js';
import type { Agent, AgentVersion, AgentVersionDiff } from '../api/types.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { StatusBadge } from './badges.js';
import { ErrorState } from './states.js';
import { DataTable } from './table.js';

function DiffView({ diff }: { diff: AgentVersionDiff }) {
  if (diff.changes.length === 0)
    return (
      <p className="muted">
        v{diff.from} and v{diff.to} hold the same spec.
      </p>
    );
  return (
    <DataTable caption={`What v${diff.to} changed from v${diff.from}`} columns={['Path', 'Change', 'Before', 'After']}>
      {diff.changes.map((change) => (
        <tr key={change.path} data-testid="diff-change">
          <td>
            <code>{change.path}</code>
          </td>
          <td>{change.op}</td>
          <td>{change.op === 'add' ? '' : <code>{JSON.stringify(change.before)}</code>}</td>
          <td>{change.op === 'remove' ? '' : <code>{JSON.stringify(change.after)}</code>}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** An agent's versions, newest first: publish one, roll back, compare two. */
export function AgentVersions({
  agentId,
  versions,
  builtIn,
  act,
}: {
  agentId: string;
  versions: readonly AgentVersion[];
  builtIn: boolean;
  /** Runs a write with the agent's current ETag (the page keeps it), then reloads. */
  act: (write: (etag: string) => Promise<{ body: Agent; etag: string }>) => Promise<void>;
}) {
  const { api, readOnly } = useConsole();
  const [from, setFrom] = useState(versions[1]?.version ?? versions[0]?.version ?? 1);
  const [to, setTo] = useState(versions[0]?.version ?? 1);
  const [diff, setDiff] = useState<AgentVersionDiff | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const writable = !readOnly && !builtIn;
  const run = (write: (etag: string) => Promise<{ body: Agent; etag: string }>) => () =>
    void act(write).then(
      () => setError(undefined),
      (err: ApiError) => setError(err),
    );
  const compare = () =>
    void api.diffVersions(agentId, to, from).then(
      (d) => {
        setDiff(d);
        setError(undefined);
      },
      (err: ApiError) => setError(err),
    );
  const picker = (label: string, value: number, set: (v: number) => void) => (
    <label>
      {label}{' '}
      <select aria-label={label} value={value} onChange={(e) => set(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      {writable && (
        <div className="actions">
          <button type="button" className="secondary" onClick={run((etag) => api.rollbackAgent(agentId, etag))}>
            Roll back
          </button>
        </div>
      )}
      {error && <ErrorState error={error} />}
      <DataTable caption="Versions, newest first" columns={['Version', 'Status', 'Written', 'By', 'Published', '']}>
        {versions.map((v) => (
          <tr key={v.version} data-testid="agent-version">
            <td>v{v.version}</td>
            <td>{v.active ? <StatusBadge status="active" /> : v.publishedAt ? 'earlier' : 'draft'}</td>
            <td>{formatTime(v.createdAt)}</td>
            <td>{v.createdBy ?? '—'}</td>
            <td>{formatTime(v.publishedAt)}</td>
            <td>
              {writable && !v.active && (
                <button
                  type="button"
                  className="secondary"
                  onClick={run((etag) => api.publishVersion(agentId, v.version, etag))}
                >
                  Publish v{v.version}
                </button>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {versions.length > 1 && (
        <div className="actions">
          {picker('Compare version', from, setFrom)}
          {picker('with version', to, setTo)}
          <button type="button" className="secondary" onClick={compare}>
            Show changes
          </button>
        </div>
      )}
      {diff && <DiffView diff={diff} />}
    </section>
  );
}
