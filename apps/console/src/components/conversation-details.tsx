import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/api-error.js';
import { useConsole } from '../console-context.js';
import { ErrorState } from './states.js';
import { useLoad } from './use-load.js';

/**
 * A conversation's title, labels and run webhook URL, and forms to change them
 * (docs/conversations.md). A conversation that has no message yet has no record: nothing shows
 * until the first one.
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
  const [editingWebhook, setEditingWebhook] = useState(false);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const conversation = loaded.data ?? null;
  if (!conversation) return null;
  const write = async (changes: Parameters<typeof api.updateConversation>[1], done: () => void) => {
    setError(undefined);
    try {
      await api.updateConversation(conversationId, changes);
      done();
      loaded.reload();
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  const save = (event: FormEvent) => {
    event.preventDefault();
    const changes = {
      title: title.trim() || null,
      labels: labels
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    };
    return write(changes, () => setEditing(false));
  };
  const saveWebhook = (event: FormEvent) => {
    event.preventDefault();
    return write({ webhookUrl: webhookUrl.trim() || null }, () => setEditingWebhook(false));
  };
  return (
    <div className="conversation-details">
      {conversation.title && <p data-testid="conversation-title">{conversation.title}</p>}
      {conversation.labels.length > 0 && <p className="muted">Labels: {conversation.labels.join(', ')}</p>}
      {conversation.webhookUrl && (
        <p className="muted" data-testid="conversation-webhook">
          Run webhook: {conversation.webhookUrl}
        </p>
      )}
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
      {!readOnly && !editingWebhook && (
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setWebhookUrl('');
            setEditingWebhook(true);
          }}
        >
          Run webhook
        </button>
      )}
      {editingWebhook && (
        <form className="inline-form" onSubmit={(e) => void saveWebhook(e)} aria-label="Run webhook">
          <label htmlFor="conversation-webhook-input">Webhook URL (https; empty removes it)</label>
          <input
            id="conversation-webhook-input"
            type="url"
            value={webhookUrl}
            maxLength={2048}
            placeholder="https://hooks.example.com/runs"
            aria-describedby="conversation-webhook-help"
            onChange={(e) => setWebhookUrl(e.target.value)}
          />
          <button type="submit">Save</button>
          <button type="button" className="secondary" onClick={() => setEditingWebhook(false)}>
            Cancel
          </button>
          <p id="conversation-webhook-help" className="muted">
            Runs whose message names no webhook POST their end here, before the tenant's default.
          </p>
        </form>
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
