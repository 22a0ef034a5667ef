import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { PagedTable } from '../components/paged-table.js';
import { EmptyState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';

const CONVERSATION_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const PAGE_SIZE = 25;

interface Filters {
  search: string;
  agent: string;
  user: string;
  label: string;
  waiting: '' | 'true' | 'false';
}
const NO_FILTERS: Filters = { search: '', agent: '', user: '', label: '', waiting: '' };

/** The filters as GET /v1/conversations takes them (empty ones left out). */
function queryOf(filters: Filters, pageToken: string | undefined) {
  return {
    pageSize: PAGE_SIZE,
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.agent ? { agent: filters.agent } : {}),
    ...(filters.user ? { user: filters.user } : {}),
    ...(filters.label ? { label: filters.label } : {}),
    ...(filters.waiting ? { waitingForUser: filters.waiting } : {}),
    ...(pageToken ? { pageToken } : {}),
  };
}

/** The conversations the user may see (docs/conversations.md), searched and filtered, page by page; and a new one. */
export function ConversationsPage() {
  const { api, readOnly } = useConsole();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [before, setBefore] = useState<string[]>([]);
  const loaded = useLoad(['conversations', filters, before], async () => {
    const page = await api.listConversations(queryOf(filters, before[before.length - 1]));
    return { conversations: page.conversations, nextBefore: page.nextPageToken };
  });
  const start = (event: FormEvent) => {
    event.preventDefault();
    const id = name.trim();
    if (!CONVERSATION_ID.test(id)) return setInvalid(true);
    navigate(`/conversations/${encodeURIComponent(id)}`);
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setBefore([]);
    setFilters({ ...draft, search: draft.search.trim() });
  };
  const field = (key: Exclude<keyof Filters, 'waiting'>, label: string) => (
    <>
      <label htmlFor={`conversation-${key}`}>{label}</label>
      <input
        id={`conversation-${key}`}
        value={draft[key]}
        onChange={(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))}
      />
    </>
  );
  const filtered = Object.values(filters).some(Boolean);
  return (
    <section aria-labelledby="conversations-title">
      <h1 id="conversations-title">Conversations</h1>
      {!readOnly && (
        <form className="inline-form" onSubmit={start}>
          <label htmlFor="new-conversation">Conversation id</label>
          <input
            id="new-conversation"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setInvalid(false);
            }}
            placeholder="trip-42"
            aria-invalid={invalid || undefined}
            aria-describedby="new-conversation-help"
          />
          <button type="submit">Open</button>
          <p id="new-conversation-help" className={invalid ? 'notice error' : 'muted'}>
            Letters, digits and . _ : @ - (up to 128). A new id starts a new conversation.
          </p>
        </form>
      )}
      <form className="inline-form" role="search" aria-label="Find conversations" onSubmit={apply}>
        {field('search', 'Title contains')}
        {field('agent', 'Agent')}
        {field('user', 'User')}
        {field('label', 'Label')}
        <label htmlFor="conversation-waiting">Waiting for the user</label>
        <select
          id="conversation-waiting"
          value={draft.waiting}
          onChange={(e) => setDraft((d) => ({ ...d, waiting: e.target.value as Filters['waiting'] }))}
        >
          <option value="">Any</option>
          <option value="true">Waiting</option>
          <option value="false">Not waiting</option>
        </select>
        <button type="submit">Find</button>
      </form>
      <LoadState loaded={loaded} what="conversations">
        {({ conversations, nextBefore }) => (
          <PagedTable
            rows={conversations}
            empty={
              filtered ? (
                <EmptyState title="No conversation matches.">Change the search or the filters.</EmptyState>
              ) : (
                <EmptyState title="No conversations yet.">
                  Open one above by its id and send the first message.
                </EmptyState>
              )
            }
            caption="Conversations, most recent activity first"
            columns={['Conversation', 'Labels', 'User', 'Agent', 'Last activity']}
            row={(c) => (
              <tr key={c.conversationId} data-testid="conversation-row">
                <td>
                  <Link href={`/conversations/${encodeURIComponent(c.conversationId)}`}>
                    {c.title ?? c.conversationId}
                  </Link>
                  {c.title && <span className="muted"> {c.conversationId}</span>}
                  {c.waitingForUser && <span className="badge"> waiting for you</span>}
                  {c.shared && <span className="muted"> shared</span>}
                </td>
                <td>{c.labels.join(', ')}</td>
                <td>{c.owner ?? <span className="muted">no user</span>}</td>
                <td>{c.agentName ?? c.agentId}</td>
                <td>{formatTime(c.lastActivityAt)}</td>
              </tr>
            )}
            before={before}
            nextBefore={nextBefore}
            setBefore={setBefore}
          />
        )}
      </LoadState>
    </section>
  );
}
