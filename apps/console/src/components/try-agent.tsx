import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../api/api-error.js';
import type { AgentVersion, TurnAnswer } from '../api/types.js';
import { useConsole } from '../console-context.js';
import { ErrorState } from './states.js';

/**
 * "Try this version": a message to one version of the agent (a draft included, which no other
 * message reaches) in a conversation of its own, and the answer.
 */
export function TryAgent({ agentId, versions }: { agentId: string; versions: readonly AgentVersion[] }) {
  const { api } = useConsole();
  const [version, setVersion] = useState(versions[0]?.version ?? 1);
  const [content, setContent] = useState('');
  const [answer, setAnswer] = useState<TurnAnswer | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const conversationId = `try-${agentId.replace(/[^A-Za-z0-9_-]/g, '-')}-v${version}`;
  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!content.trim()) return;
    setBusy(true);
    try {
      setAnswer(await api.tryAgentVersion(conversationId, agentId, version, content));
      setError(undefined);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'CLIENT', (err as Error).message));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="try-title">
      <h2 id="try-title">Try a version</h2>
      <form className="composer" onSubmit={(e) => void send(e)}>
        <label htmlFor="try-version">Version to try</label>
        <select id="try-version" value={version} onChange={(e) => setVersion(Number(e.target.value))}>
          {versions.map((v) => (
            <option key={v.version} value={v.version}>
              v{v.version}
              {v.active ? ' (active)' : v.publishedAt ? '' : ' (draft)'}
            </option>
          ))}
        </select>
        <label htmlFor="try-message">Message to try</label>
        <textarea id="try-message" rows={2} value={content} onChange={(e) => setContent(e.target.value)} />
        <button type="submit" disabled={busy}>
          Try it
        </button>
      </form>
      {error && <ErrorState error={error} />}
      {answer && (
        <div className="bubble assistant" data-testid="try-answer">
          <p className="who-said">
            v{answer.agent?.version ?? version} <Link href={`/runs/${answer.runId}`}>run</Link>
          </p>
          <p className="said">{answer.response}</p>
        </div>
      )}
    </section>
  );
}
