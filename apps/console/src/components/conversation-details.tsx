import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/api-error.js';
import { useConsole } from '../console-context.js';
import { ErrorState } from './states.js';
import { useLoad } from './use-load.js';

/**
 * A conversation's title and labels, and a form to change them (docs/conversations.md). A
 * conversation that has no message yet has no record: nothing shows until the first one.
 */
export function ConversationDetails({ conversationId }: { conversationId: string }) {
  const { api, readOnly } = useConsole();
  const loaded = useLoad(['conversation', conversationId], () =>
    api.getConversation(conversationId).catch((error: ApiError) => {
      if (error.status === 404) return null;
      throw error;
    }),
  );
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [labels, setLabels] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const conversation = loaded.data ?? null;
  if (!conversation) return null;
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api.updateConversation(conversationId, {
        title: title.trim() || null,
        labels: labels
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean),
      });
      setEditing(false);
      loaded.reload();
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  return (
    <div className="conversation-details">
      {conversation.title && <p data-testid="conversation-title">{conversation.title}</p>}
      {conversation.labels.length > 0 && <p className="muted">Labels: {conversation.labels.join(', ')}</p>}
      {!readOnly && !editing && (
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setTitle(conversation.title ?? '');
            setLabels(conversation.labels.join(', '));
            setEditing(true);
          }}
        >
          Rename or label
        </button>
      )}
      {editing && (
        <form className="inline-form" onSubmit={(e) => void save(e)} aria-label="Title and labels">
          <label htmlFor="conversation-title-input">Title</label>
          <input
            id="conversation-title-input"
            value={title}
            maxLength={200}
            onChange={(e) => setTitle(e.target.value)}
          />
          <label htmlFor="conversation-labels-input">Labels (comma-separated)</label>
          <input id="conversation-labels-input" value={labels} onChange={(e) => setLabels(e.target.value)} />
          <button type="submit">Save</button>
          <button type="button" className="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      )}
      {error && <ErrorState error={error} />}
    </div>
  );
}
