import { useState } from 'react';
import { Link } from 'wouter';
import type { ApiError } from '../api/api-error.js';
import type { MemoryFact } from '../api/types.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { useDraft } from '../components/use-draft.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { DataTable } from '../components/table.js';

interface FactQuery {
  collectionPrefix: string;
  subject: string;
  includeSuperseded: boolean;
}

function Provenance({ fact }: { fact: MemoryFact }) {
  const { source } = fact;
  return (
    <>
      {source.origin}
      {source.conversationId && (
        <>
          {' '}
          from <Link href={`/conversations/${encodeURIComponent(source.conversationId)}`}>{source.conversationId}</Link>
        </>
      )}
      {source.runId && (
        <>
          {' '}
          (run <Link href={`/runs/${source.runId}`}>{source.runId}</Link>)
        </>
      )}
    </>
  );
}

function FactRow({ fact, onForgotten }: { fact: MemoryFact; onForgotten: () => void }) {
  const { api, readOnly, can } = useConsole();
  const [error, setError] = useState<ApiError | undefined>();
  const forget = () => {
    if (!window.confirm(`Forget "${fact.subject} ${fact.predicate} ${fact.object}"? This cannot be undone.`)) return;
    api.forgetFact(fact.factId, 'forgotten from the console').then(onForgotten, setError);
  };
  return (
    <tr className={fact.current ? undefined : 'superseded'}>
      <td>{fact.subject}</td>
      <td>{fact.predicate}</td>
      <td>{fact.object}</td>
      <td>{fact.collection}</td>
      <td>
        {fact.current ? 'current' : `superseded ${formatTime(fact.validTo)}`}
        {fact.supersededBy && <span className="muted"> by {fact.supersededBy.slice(0, 8)}</span>}
      </td>
      <td>{fact.confidence.toFixed(2)}</td>
      <td>
        <Provenance fact={fact} />
      </td>
      <td>
        {!readOnly && can('admin') && (
          <button
            type="button"
            className="danger small"
            onClick={forget}
            aria-label={`Forget ${fact.subject} ${fact.predicate} ${fact.object}`}
          >
            Forget
          </button>
        )}
        {error && <ErrorState error={error} />}
      </td>
    </tr>
  );
}

/** Long-term memory: facts with where they came from and what replaced them; forget one. */
export function MemoryPage() {
  const { api } = useConsole();
  const {
    applied: query,
    draft,
    setDraft,
    apply,
  } = useDraft<FactQuery>({ collectionPrefix: '', subject: '', includeSuperseded: true });
  const loaded = useLoad(['facts', query], () =>
    api.listFacts({
      collectionPrefix: query.collectionPrefix || undefined,
      subject: query.subject || undefined,
      includeSuperseded: query.includeSuperseded ? 'true' : 'false',
      pageSize: 100,
    }),
  );
  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      <form className="filters" onSubmit={(event) => apply(event, loaded.reload)} aria-label="Filter facts">
        <label>
          Collection prefix
          <input
            value={draft.collectionPrefix}
            placeholder="user:alice"
            onChange={(e) => setDraft({ ...draft, collectionPrefix: e.target.value })}
          />
        </label>
        <label>
          Subject
          <input value={draft.subject} onChange={(e) => setDraft({ ...draft, subject: e.target.value })} />
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={draft.includeSuperseded}
            onChange={(e) => setDraft({ ...draft, includeSuperseded: e.target.checked })}
          />
          Show superseded facts (history)
        </label>
        <div className="actions">
          <button type="submit">Show facts</button>
        </div>
      </form>
      <LoadState loaded={loaded} what="facts">
        {({ facts }) =>
          facts.length === 0 ? (
            <EmptyState title="Memory holds no facts here.">
              Facts are learned from finished conversations (docs/memory.md); widen the filters or talk to the agent
              first.
            </EmptyState>
          ) : (
            <DataTable
              caption="Facts, newest first"
              captionHidden
              columns={[
                'Subject',
                'Predicate',
                'Object',
                'Collection',
                'Validity',
                'Confidence',
                'Source',
                <span key="actions" className="visually-hidden">
                  Actions
                </span>,
              ]}
            >
              {facts.map((fact) => (
                <FactRow key={fact.factId} fact={fact} onForgotten={loaded.reload} />
              ))}
            </DataTable>
          )
        }
      </LoadState>
    </section>
  );
}
