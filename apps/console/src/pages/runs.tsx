import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { RUN_PROTOCOLS, RUN_SOURCES, RUN_STATUSES, STOP_REASONS, type RunSummary } from '../api/types.js';
import { StatusBadge } from '../components/badges.js';
import { EmptyState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatCount, formatProtocol, formatTime } from '../lib/format.js';
import { filtersFromSearch, NO_FILTERS, runListQuery, searchOfFilters, type RunFilters } from '../lib/run-filters.js';
import { DataTable } from '../components/table.js';

function FilterForm({ initial, onApply }: { initial: RunFilters; onApply: (filters: RunFilters) => void }) {
  const [filters, setFilters] = useState(initial);
  const set = <K extends keyof RunFilters>(name: K, value: RunFilters[K]) =>
    setFilters((f) => ({ ...f, [name]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(filters);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter runs">
      <label>
        Conversation
        <input value={filters.conversationId} onChange={(e) => set('conversationId', e.target.value)} />
      </label>
      <fieldset>
        <legend>Status</legend>
        {RUN_STATUSES.map((status) => (
          <label key={status} className="inline">
            <input
              type="checkbox"
              checked={filters.status.includes(status)}
              onChange={(e) =>
                set(
                  'status',
                  e.target.checked ? [...filters.status, status] : filters.status.filter((s) => s !== status),
                )
              }
            />
            {status}
          </label>
        ))}
      </fieldset>
      <label>
        Stop reason
        <select value={filters.stopReason} onChange={(e) => set('stopReason', e.target.value)}>
          <option value="">any</option>
          {STOP_REASONS.map((reason) => (
            <option key={reason}>{reason}</option>
          ))}
        </select>
      </label>
      <label>
        Tool called
        <input value={filters.tool} onChange={(e) => set('tool', e.target.value)} placeholder="calculator" />
      </label>
      <label>
        Source
        <select value={filters.source} onChange={(e) => set('source', e.target.value)}>
          <option value="">any</option>
          {RUN_SOURCES.map((source) => (
            <option key={source}>{source}</option>
          ))}
        </select>
      </label>
      <label>
        Protocol
        <select value={filters.protocol} onChange={(e) => set('protocol', e.target.value)}>
          <option value="">any</option>
          {RUN_PROTOCOLS.map((protocol) => (
            <option key={protocol} value={protocol}>
              {formatProtocol(protocol)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Created after
        <input
          type="datetime-local"
          value={filters.createdAfter}
          onChange={(e) => set('createdAfter', e.target.value)}
        />
      </label>
      <label>
        Created before
        <input
          type="datetime-local"
          value={filters.createdBefore}
          onChange={(e) => set('createdBefore', e.target.value)}
        />
      </label>
      <div className="actions">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={() => onApply(NO_FILTERS)}>
          Clear
        </button>
      </div>
    </form>
  );
}

function RunTable({ runs }: { runs: readonly RunSummary[] }) {
  return (
    <DataTable
      caption="Runs, newest first"
      captionHidden
      columns={[
        'Run',
        'Status',
        'Stop reason',
        'Conversation',
        'Source',
        'Protocol',
        'Created',
        'Turns',
        'Tool calls',
        'Tokens',
      ]}
    >
      {runs.map((run) => (
        <tr key={run.runId}>
          <td>
            <Link href={`/runs/${run.runId}`}>{run.runId}</Link>
          </td>
          <td>
            <StatusBadge status={run.status} />
          </td>
          <td>{run.stopReason ?? '—'}</td>
          <td>
            <Link href={`/conversations/${encodeURIComponent(run.conversationId)}`}>{run.conversationId}</Link>
          </td>
          <td>{run.source}</td>
          <td>{formatProtocol(run.protocol)}</td>
          <td>{formatTime(run.createdAt)}</td>
          <td>{run.turns}</td>
          <td>{run.toolCalls}</td>
          <td>{formatCount(run.usage.totalTokens)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** The run list: filters in the URL, pages by the api's page token. */
export function RunsPage() {
  const { api } = useConsole();
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = filtersFromSearch(search);
  const [pages, setPages] = useState<string[]>([]);
  const pageToken = pages[pages.length - 1];
  const loaded = useLoad(['runs', search, pageToken], () => api.listRuns(runListQuery(filters, pageToken)));
  const apply = (next: RunFilters) => {
    setPages([]);
    navigate(`/runs${searchOfFilters(next)}`);
  };
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <FilterForm key={search} initial={filters} onApply={apply} />
      <LoadState loaded={loaded} what="runs">
        {(page) =>
          page.runs.length === 0 ? (
            <EmptyState title="No runs match.">
              {search ? (
                'Clear or widen the filters.'
              ) : (
                <>
                  Send a message on the <Link href="/conversations">Conversations</Link> page to start one.
                </>
              )}
            </EmptyState>
          ) : (
            <>
              <RunTable runs={page.runs} />
              <div className="pager">
                <button
                  type="button"
                  className="secondary"
                  disabled={pages.length === 0}
                  onClick={() => setPages((p) => p.slice(0, -1))}
                >
                  Previous page
                </button>
                <span className="muted">Page {pages.length + 1}</span>
                <button
                  type="button"
                  className="secondary"
                  disabled={!page.nextPageToken}
                  onClick={() => page.nextPageToken && setPages((p) => [...p, page.nextPageToken!])}
                >
                  Next page
                </button>
              </div>
            </>
          )
        }
      </LoadState>
    </section>
  );
}
