import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { EmptyState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';

const CONVERSATION_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Recent conversations (from the newest runs), and a new one. */
export function ConversationsPage() {
  const { api, readOnly } = useConsole();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState(false);
  const loaded = useLoad(['conversations'], async () => {
    const { runs } = await api.listRuns({ pageSize: 200 });
    const latest = new Map<string, string | null>();
    for (const run of runs)
      if (!latest.has(run.conversationId) && run.source !== 'child') latest.set(run.conversationId, run.createdAt);
    return [...latest.entries()];
  });
  const start = (event: FormEvent) => {
    event.preventDefault();
    const id = name.trim();
    if (!CONVERSATION_ID.test(id)) return setInvalid(true);
    navigate(`/conversations/${encodeURIComponent(id)}`);
  };
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
      <LoadState loaded={loaded} what="conversations">
        {(conversations) =>
          conversations.length === 0 ? (
            <EmptyState title="No conversations yet.">Open one above by its id and send the first message.</EmptyState>
          ) : (
            <ul className="cards">
              {conversations.map(([id, at]) => (
                <li key={id}>
                  <Link href={`/conversations/${encodeURIComponent(id)}`}>{id}</Link>{' '}
                  <span className="muted">last run {formatTime(at)}</span>
                </li>
              ))}
            </ul>
          )
        }
      </LoadState>
    </section>
  );
}
