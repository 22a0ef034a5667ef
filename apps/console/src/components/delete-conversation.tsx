import { useEffect, useState } from 'react';
import type { ApiError } from '../api/api-error.js';
import { useConsole } from '../console-context.js';
import { ErrorState } from './states.js';

interface Deletion {
  deletionId: string;
  status: 'pending' | 'running' | 'completed';
  step: string;
  lastError: string | null;
}

/**
 * Deletes the conversation everywhere (docs/conversations.md), after a confirmation, and follows
 * the deletion job until it completes. Members may delete; read-only callers see nothing.
 */
export function DeleteConversation({ conversationId, onDeleted }: { conversationId: string; onDeleted: () => void }) {
  const { api, readOnly, can } = useConsole();
  const [deletion, setDeletion] = useState<Deletion | undefined>();
  const [error, setError] = useState<ApiError | undefined>();

  useEffect(() => {
    if (!deletion || deletion.status === 'completed') return;
    const timer = setTimeout(() => {
      api.getConversationDeletion(deletion.deletionId).then(
        (next) => {
          setDeletion(next);
          if (next.status === 'completed') onDeleted();
        },
        (err: ApiError) => setError(err),
      );
    }, 1_000);
    return () => clearTimeout(timer);
  }, [api, deletion, onDeleted]);

  if (readOnly || !can('member')) return null;
  const remove = async () => {
    if (
      !window.confirm(
        `Delete the conversation ${conversationId} everywhere: its messages, runs, events, approvals and what memory learned only from it? This cannot be undone.`,
      )
    )
      return;
    setError(undefined);
    try {
      const started = await api.deleteConversation(conversationId);
      setDeletion(started);
      if (started.status === 'completed') onDeleted();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <div className="delete-conversation">
      <button type="button" className="danger" onClick={() => void remove()} disabled={deletion !== undefined}>
        Delete conversation
      </button>
      {deletion && (
        <p role="status" className="muted">
          {deletion.status === 'completed'
            ? 'Deleted.'
            : `Deleting (${deletion.status}${deletion.step ? `, done: ${deletion.step}` : ''})${deletion.lastError ? `; retrying: ${deletion.lastError}` : ''}…`}
        </p>
      )}
      {error && <ErrorState error={error} />}
    </div>
  );
}
