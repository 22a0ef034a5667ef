import { useState } from 'react';
import { useLocation } from 'wouter';
import { ApiError } from '../api/api-error.js';
import { useConsole } from '../console-context.js';
import type { ChatItem } from '../lib/chat.js';
import { ErrorState } from './states.js';

/** Where a fork opens: its chat, with the edited text (if any) ready to send in the composer. */
function forkHref(conversationId: string): string {
  return `/conversations/${encodeURIComponent(conversationId)}`;
}

/**
 * "Fork from here" on a bubble (a new conversation with the history up to it), and "Edit" on a
 * user message: a fork just before it, opened with the edited text in the composer, so sending
 * regenerates the answer while the original conversation stays as it was.
 */
export function ForkActions({ conversationId, item }: { conversationId: string; item: ChatItem }) {
  const { api } = useConsole();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  if (item.seq === undefined) return null;
  const seq = item.seq;

  const openFork = async (atSeq: number, draft?: string) => {
    setBusy(true);
    setError(undefined);
    try {
      // The first message has nothing before it: its edit is simply a new conversation.
      const target =
        atSeq === 0
          ? `conv_${crypto.randomUUID()}`
          : (await api.forkConversation(conversationId, atSeq)).conversationId;
      navigate(forkHref(target), { state: draft === undefined ? {} : { draft } });
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'FORK_FAILED', (err as Error).message));
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="fork-actions">
      <button type="button" className="link" disabled={busy} onClick={() => void openFork(seq)}>
        Fork from here
      </button>
      {item.kind === 'user' && editing === undefined && (
        <button type="button" className="link" disabled={busy} onClick={() => setEditing(item.text)}>
          Edit
        </button>
      )}
      {editing !== undefined && (
        <span className="fork-edit">
          <label htmlFor={`edit-${seq}`}>Edited message</label>
          <textarea id={`edit-${seq}`} rows={3} value={editing} onChange={(e) => setEditing(e.target.value)} />
          <button type="button" disabled={busy || !editing.trim()} onClick={() => void openFork(seq - 1, editing)}>
            Open in a fork
          </button>
          <button type="button" className="link" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </span>
      )}
      {error && <ErrorState error={error} />}
    </span>
  );
}
