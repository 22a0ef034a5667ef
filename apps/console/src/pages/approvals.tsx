import { useState } from 'react';
import { Link } from 'wouter';
import type { ApiError } from '../api/api-error.js';
import type { Approval, TurnAnswer } from '../api/types.js';
import { CodeBlock, StatusBadge } from '../components/badges.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useNow } from '../components/use-now.js';
import { useConsole } from '../console-context.js';
import { formatCountdown, formatTime } from '../lib/format.js';

/** How often the inbox asks for new requests. */
const REFRESH_MS = 3_000;

function Source({ approval }: { approval: Approval }) {
  if (approval.source.kind === 'trigger') return <>task {approval.source.taskId}</>;
  return (
    <>
      conversation{' '}
      <Link href={`/conversations/${encodeURIComponent(approval.conversationId)}`}>{approval.conversationId}</Link>
    </>
  );
}

function ApprovalCard({
  approval,
  now,
  onDecided,
}: {
  approval: Approval;
  now: number;
  onDecided: (answer: TurnAnswer) => void;
}) {
  const { api, readOnly } = useConsole();
  const [editing, setEditing] = useState(false);
  const [changes, setChanges] = useState(() => JSON.stringify(approval.details, null, 2));
  const [error, setError] = useState<ApiError | string | undefined>();
  const [busy, setBusy] = useState(false);
  const titleId = `approval-${approval.approvalId}`;
  const decide = async (decision: 'approve' | 'edit' | 'cancel') => {
    let parsed: Record<string, unknown> | undefined;
    if (decision === 'edit') {
      try {
        parsed = JSON.parse(changes) as Record<string, unknown>;
      } catch {
        return setError('The changes are not valid JSON.');
      }
    }
    setBusy(true);
    setError(undefined);
    try {
      onDecided(await api.decideApproval(approval.approvalId, decision, parsed));
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const offered = (decision: string) => approval.options.includes(decision);
  return (
    <li className="card" aria-labelledby={titleId} data-testid="approval">
      <h2 id={titleId}>{approval.actionSummary}</h2>
      <p className="muted">
        {approval.agentName} · from <Source approval={approval} /> · asked {formatTime(approval.createdAt)} ·{' '}
        <span aria-label="time left">expires in {formatCountdown(approval.expiresAt, now)}</span>
        {approval.runId && (
          <>
            {' '}
            · run <Link href={`/runs/${approval.runId}`}>{approval.runId}</Link>
          </>
        )}
      </p>
      {approval.prompt && <p>{approval.prompt}</p>}
      <CodeBlock label="Details" text={JSON.stringify(approval.details, null, 2)} />
      {editing && (
        <label className="block">
          Changes (JSON: the fields to change)
          <textarea rows={6} value={changes} onChange={(e) => setChanges(e.target.value)} spellCheck={false} />
        </label>
      )}
      {typeof error === 'string' ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : (
        error && <ErrorState error={error} />
      )}
      {!readOnly && (
        <div className="actions">
          {offered('approve') && (
            <button type="button" disabled={busy} onClick={() => void decide('approve')}>
              Approve
            </button>
          )}
          {offered('edit') && approval.allowModification && (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => (editing ? void decide('edit') : setEditing(true))}
            >
              {editing ? 'Approve with changes' : 'Edit'}
            </button>
          )}
          {offered('cancel') && (
            <button type="button" className="danger" disabled={busy} onClick={() => void decide('cancel')}>
              Cancel action
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/** Pending approvals of the tenant, updated every few seconds, with their countdowns. */
export function ApprovalsPage() {
  const { api } = useConsole();
  const now = useNow();
  const loaded = useLoad(['approvals'], () => api.listApprovals(), { refreshMs: REFRESH_MS });
  const [decided, setDecided] = useState<TurnAnswer[]>([]);
  const onDecided = (answer: TurnAnswer) => {
    setDecided((d) => [answer, ...d].slice(0, 5));
    loaded.reload();
  };
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {decided.length > 0 && (
        <ul className="notice ok" aria-live="polite">
          {decided.map((answer) => (
            <li key={answer.runId} data-testid="decided">
              Run <Link href={`/runs/${answer.runId}`}>{answer.runId}</Link> <StatusBadge status={answer.status} />:{' '}
              {answer.response}
            </li>
          ))}
        </ul>
      )}
      <LoadState loaded={loaded} what="approvals">
        {({ approvals }) =>
          approvals.length === 0 ? (
            <EmptyState title="Nothing waits for a decision.">
              Requests appear here when an agent or a tool that needs approval asks; this list refreshes by itself.
            </EmptyState>
          ) : (
            <ul className="cards">
              {approvals.map((approval) => (
                <ApprovalCard key={approval.approvalId} approval={approval} now={now} onDecided={onDecided} />
              ))}
            </ul>
          )
        }
      </LoadState>
    </section>
  );
}
