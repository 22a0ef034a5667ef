import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError } from '../api/api-error.js';
import type { MultitaskChoice, PlatformApi } from '../api/endpoints.js';
import type { HistoryEntry } from '../api/types.js';
import { CodeBlock, StatusBadge } from '../components/badges.js';
import { DeleteConversation } from '../components/delete-conversation.js';
import { ForkActions } from '../components/fork-actions.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { ConversationDetails } from '../components/conversation-details.js';
import { useConsole } from '../console-context.js';
import {
  applyRunEvent,
  chatFromHistory,
  NEW_TURN,
  type ChatItem,
  type ChatToolCall,
  type LiveTurn,
} from '../lib/chat.js';
import { followEventStream } from '../lib/event-stream.js';
import { plural, prettyJson } from '../lib/format.js';

async function wholeHistory(api: PlatformApi, conversationId: string): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  for (let afterSeq = 0, page = 0; page < 20; page++) {
    const batch = await api.history(conversationId, afterSeq, 500);
    entries.push(...batch.messages);
    if (!batch.hasMore || batch.messages.length === 0) break;
    afterSeq = batch.messages[batch.messages.length - 1]!.seq;
  }
  return entries;
}

function FoldedToolCalls({ calls }: { calls: readonly ChatToolCall[] }) {
  if (calls.length === 0) return null;
  return (
    <details className="folded">
      <summary>
        {plural(calls.length, 'tool call')}: {calls.map((c) => c.name).join(', ')}
      </summary>
      <ul>
        {calls.map((call) => (
          <li key={call.callId}>
            <strong>{call.name}</strong> <StatusBadge status={call.status ?? 'running'} />
            <CodeBlock label="Arguments" text={prettyJson(call.arguments)} />
            {call.result !== undefined && <CodeBlock label="Result" text={prettyJson(call.result)} />}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Bubble({ item, conversationId }: { item: ChatItem; conversationId?: string }) {
  return (
    <li className={`bubble ${item.kind}`}>
      <p className="who-said">
        {item.kind === 'user' ? 'You' : 'Agent'}
        {item.runId && (
          <Link href={`/runs/${item.runId}`} className="spaced">
            run
          </Link>
        )}
        {conversationId && <ForkActions conversationId={conversationId} item={item} />}
      </p>
      {item.text && <p className="said">{item.text}</p>}
      {item.kind === 'assistant' && <FoldedToolCalls calls={item.toolCalls} />}
    </li>
  );
}

function LiveBubble({ turn }: { turn: LiveTurn }) {
  return (
    <li className="bubble assistant live" aria-live="polite" data-testid="live-answer">
      <p className="who-said">
        Agent {!turn.done && <span className="muted">({turn.state.replace(/_/g, ' ')}…)</span>}
        {turn.runId && (
          <Link href={`/runs/${turn.runId}`} className="spaced">
            run
          </Link>
        )}
      </p>
      <p className="said">{turn.text || (turn.done ? '' : '…')}</p>
      {turn.error && <p className="notice error">{turn.error}</p>}
      <FoldedToolCalls calls={turn.toolCalls} />
    </li>
  );
}

/** A conversation as a chat: its history (tool calls folded), and a message box whose turn streams in. */
export function ChatPage() {
  const { conversationId = '' } = useParams<{ conversationId: string }>();
  const id = decodeURIComponent(conversationId);
  const { api, readOnly } = useConsole();
  const [, navigate] = useLocation();
  const history = useLoad(['history', id], () => wholeHistory(api, id));
  // An edit opened in a fork arrives with its text ready to send (components/fork-actions.tsx).
  const arrivingDraft = () => (window.history.state as { draft?: string } | null)?.draft ?? '';
  const [draft, setDraft] = useState(arrivingDraft);
  const [draftFor, setDraftFor] = useState(id);
  if (draftFor !== id) {
    setDraftFor(id);
    setDraft(arrivingDraft());
  }
  const [sent, setSent] = useState<string | undefined>();
  const [live, setLive] = useState<LiveTurn | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  // Turns this page follows (a message sent while one is in flight follows its own from then on).
  const [inFlight, setInFlight] = useState(0);
  const busy = inFlight > 0;
  const [multitask, setMultitask] = useState<MultitaskChoice>('enqueue');
  // Leaving the page stops following the turn (the run goes on; its page shows it).
  const following = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => following.current?.abort(), []);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const content = draft.trim();
    if (!content) return;
    // Sent while a run is in flight: the chosen policy goes with it (docs/conversations.md).
    const policy = busy ? multitask : undefined;
    const previous = following.current;
    const mine = new AbortController();
    following.current = mine;
    setInFlight((n) => n + 1);
    setError(undefined);
    setDraft('');
    let runId: string | null = null;
    try {
      await followEventStream({
        // The first connection sends the message; a reconnection watches its run from the last event seen.
        open: async (afterId, attempt, signal) => {
          if (attempt === 0) {
            const response = await api.sendMessageStreamed(id, content, signal, policy);
            runId = response.headers.get('x-run-id');
            // Accepted: this page follows the new turn; the earlier one goes on (or stops) as the policy says.
            previous?.abort();
            setSent(content);
            setLive(NEW_TURN);
            return response;
          }
          if (!runId) throw new Error('the run id is unknown, so the turn cannot be resumed');
          return api.runEvents(runId, afterId, signal);
        },
        onEvent: (e) =>
          setLive((turn) =>
            applyRunEvent(turn ?? NEW_TURN, {
              type: e.type,
              data: (e.data as { data?: Record<string, unknown> }).data ?? {},
              ...(runId ? { runId } : {}),
            }),
          ),
        isLast: (e) => e.type === 'execution_end',
        maxReconnects: 3,
        signal: mine.signal,
      });
      history.reload();
    } catch (err) {
      // A turn this page stopped following (a newer message took over) ends quietly.
      if (mine.signal.aborted) {
        history.reload();
        return;
      }
      if (following.current === mine) following.current = previous;
      setError(
        err instanceof ApiError
          ? err
          : new ApiError(
              0,
              'STREAM_LOST',
              `${(err as Error).message}; the message may have been sent: check the conversation's runs before sending it again`,
            ),
      );
      setDraft(content);
    } finally {
      setInFlight((n) => n - 1);
    }
  };

  const items = history.data ? chatFromHistory(history.data) : [];
  const historyHasTurn = live?.runId ? items.some((i) => i.runId === live.runId) : false;
  return (
    <section aria-labelledby="chat-title" className="chat">
      <h1 id="chat-title">
        Conversation <code>{id}</code>
      </h1>
      <ConversationDetails conversationId={id} />
      <p>
        <Link href={`/runs?conversationId=${encodeURIComponent(id)}`}>Runs of this conversation</Link>
      </p>
      <DeleteConversation conversationId={id} onDeleted={() => navigate('/conversations')} />
      <LoadState loaded={history} what="the conversation">
        {() =>
          items.length === 0 && !live ? (
            <EmptyState title="No messages yet.">
              {readOnly ? 'This tenant has not written here.' : 'Write the first message below.'}
            </EmptyState>
          ) : (
            <ol className="messages" aria-label="Messages">
              {items.map((item) => (
                <Bubble key={item.key} item={item} conversationId={readOnly ? undefined : id} />
              ))}
              {live && !historyHasTurn && (
                <>
                  {sent && <Bubble item={{ kind: 'user', key: 'sent', text: sent, runId: live.runId }} />}
                  <LiveBubble turn={live} />
                </>
              )}
            </ol>
          )
        }
      </LoadState>
      {error && <ErrorState error={error} />}
      {!readOnly && (
        <form className="composer" onSubmit={(e) => void send(e)}>
          <label htmlFor="message">Message</label>
          <textarea
            id="message"
            rows={3}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
            }}
          />
          {busy && (
            <label>
              While a run is in flight{' '}
              <select value={multitask} onChange={(e) => setMultitask(e.target.value as MultitaskChoice)}>
                <option value="enqueue">Queue after it</option>
                <option value="steer">Steer it (join it before its next step)</option>
                <option value="interrupt">Interrupt it (keep what it did)</option>
                <option value="rollback">Roll it back (keep nothing of it)</option>
                <option value="reject">Do not send if it is still running</option>
              </select>
            </label>
          )}
          <button type="submit">Send</button>
          <p className="muted">Ctrl+Enter sends. The answer streams in as the agent works; tool calls fold under it.</p>
        </form>
      )}
    </section>
  );
}
