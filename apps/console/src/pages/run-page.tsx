import { useState } from 'react';
import { Link, useParams } from 'wouter';
import type { ApiError } from '../api/api-error.js';
import type { PlatformApi } from '../api/endpoints.js';
import type { HistoryEntry, RunDetail } from '../api/types.js';
import { StatusBadge } from '../components/badges.js';
import { ErrorState, LoadState } from '../components/states.js';
import { TranscriptView } from '../components/transcript-view.js';
import { useLoad } from '../components/use-load.js';
import { useRunEvents } from '../components/use-run-events.js';
import { WebhookDeliveries } from '../components/webhook-deliveries.js';
import { ReplayRun } from '../components/replay-run.js';
import { useConsole } from '../console-context.js';
import { formatCount, formatDuration, formatProtocol, formatTime, traceLink } from '../lib/format.js';
import { transcriptSteps } from '../lib/transcript.js';

/** The run's messages in its conversation's stored history (read page by page, up to 20 pages of 500). */
async function historyOfRun(api: PlatformApi, run: RunDetail): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  let afterSeq = 0;
  for (let page = 0; page < 20; page++) {
    const batch = await api.history(run.conversationId, afterSeq, 500);
    entries.push(...batch.messages.filter((m) => m.runId === run.runId || m.runId === null));
    if (!batch.hasMore || batch.messages.length === 0) break;
    afterSeq = batch.messages[batch.messages.length - 1]!.seq;
  }
  return entries;
}

/**
 * The run, its stored messages (tool results) and the catalog (runners). The run is what the page
 * is about: without the history or the catalog (memory down, say) it still shows, with the
 * results marked as not stored and no runner names.
 */
async function loadRunPage(api: PlatformApi, runId: string) {
  const run = await api.getRun(runId);
  const [history, catalog] = await Promise.all([
    historyOfRun(api, run).catch(() => []),
    api.listTools().catch(() => ({ tools: [] })),
  ]);
  return { run, history, runners: new Map(catalog.tools.map((t) => [t.name, t.runner])) };
}

function LiveEvents({ runId, live, onChange }: { runId: string; live: boolean; onChange: () => void }) {
  const { api } = useConsole();
  const state = useRunEvents(api, runId, live, onChange);
  // The run may be read as finished before its last event arrives: it has ended all the same.
  const phase = !live && state.phase === 'live' ? 'ended' : state.phase;
  if (phase === 'idle') return null;
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Live events</h2>
      <p role="status" aria-live="polite" className="muted">
        {phase === 'live' && 'Following the run as it happens.'}
        {phase === 'reconnecting' && 'The connection dropped; reconnecting and resuming after the last event seen…'}
        {phase === 'ended' && 'The run finished.'}
      </p>
      {state.error && <ErrorState error={state.error} />}
      <ol className="event-log" data-testid="event-log">
        {state.events
          .filter((e) => e.type !== 'message_chunk')
          .map((e) => (
            <li key={`${e.id}-${e.type}`}>
              <code>#{e.id}</code> {e.type}
            </li>
          ))}
      </ol>
    </section>
  );
}

function RunFacts({ run, traceTemplate }: { run: RunDetail; traceTemplate: string }) {
  const usage = run.result?.usage;
  const trace = traceLink(traceTemplate, run.traceId);
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={run.status} /> {run.stopReason && <span className="muted">({run.stopReason})</span>}
      </dd>
      <dt>Conversation</dt>
      <dd>
        <Link href={`/conversations/${encodeURIComponent(run.conversationId)}`}>{run.conversationId}</Link>
      </dd>
      <dt>Came in by</dt>
      <dd data-testid="run-protocol">{formatProtocol(run.protocol)}</dd>
      <dt>Created / finished</dt>
      <dd>
        {formatTime(run.createdAt)} / {formatTime(run.finishedAt)}
        {run.result?.durationMs !== undefined && ` (${formatDuration(run.result.durationMs)})`}
      </dd>
      <dt>Usage</dt>
      <dd>
        {usage
          ? `${run.result?.turns ?? 0} model calls · ${formatCount(usage.inputTokens)} input + ${formatCount(usage.outputTokens)} output tokens`
          : '—'}
      </dd>
      <dt>Trace</dt>
      <dd>
        {run.traceId ? (
          trace ? (
            <a href={trace} target="_blank" rel="noreferrer">
              {run.traceId}
            </a>
          ) : (
            <code>{run.traceId}</code>
          )
        ) : (
          '—'
        )}
      </dd>
      {run.replayOf && (
        <>
          <dt>Replay of</dt>
          <dd>
            <Link href={`/runs/${run.replayOf}`}>{run.replayOf}</Link>, live from step {(run.replayFromStep ?? 0) + 1}
          </dd>
        </>
      )}
      {run.replays && run.replays.length > 0 && (
        <>
          <dt>Replays</dt>
          <dd>
            {run.replays.map((id) => (
              <Link key={id} href={`/runs/${id}`} className="spaced">
                {id}
              </Link>
            ))}
          </dd>
        </>
      )}
      {run.parentRunId && (
        <>
          <dt>Started by</dt>
          <dd>
            <Link href={`/runs/${run.parentRunId}`}>{run.parentRunId}</Link>
          </dd>
        </>
      )}
    </dl>
  );
}

function PlanAndChildren({ run }: { run: RunDetail }) {
  return (
    <>
      {run.plan && (
        <section aria-labelledby="plan-title">
          <h2 id="plan-title">
            Plan (version {run.plan.version}, {run.plan.replans} replans) <StatusBadge status={run.plan.status} />
          </h2>
          {run.plan.goal && <p>Goal: {run.plan.goal}</p>}
          <ul>
            {run.plan.subtasks.map((s) => (
              <li key={s.id}>
                <strong>{s.id}</strong> {s.role && `(${s.role})`} <StatusBadge status={s.status} /> {s.description}
                {s.dependencies && s.dependencies.length > 0 && (
                  <span className="muted"> · after {s.dependencies.join(', ')}</span>
                )}
                {s.error && <span className="muted"> · {s.error}</span>}
                {s.childRunIds.map((id) => (
                  <Link key={id} href={`/runs/${id}`} className="spaced">
                    {id}
                  </Link>
                ))}
              </li>
            ))}
          </ul>
        </section>
      )}
      {run.children && run.children.length > 0 && (
        <section aria-labelledby="children-title">
          <h2 id="children-title">Child runs</h2>
          <ul>
            {run.children.map((child) => (
              <li key={child.runId}>
                <Link href={`/runs/${child.runId}`}>{child.runId}</Link> {child.role}{' '}
                <StatusBadge status={child.status} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

/** One run: facts, live events while it runs, plan and child runs, and its transcript step by step. */
export function RunPage() {
  const { runId = '' } = useParams<{ runId: string }>();
  const { api, config, readOnly, can } = useConsole();
  const loaded = useLoad(['run', runId], () => loadRunPage(api, runId));
  const [cancelError, setCancelError] = useState<ApiError | undefined>();
  const live = loaded.data ? loaded.data.run.status === 'queued' || loaded.data.run.status === 'running' : false;
  const cancel = () => api.cancelRun(runId).then(loaded.reload, setCancelError);
  return (
    <section aria-labelledby="run-title">
      <h1 id="run-title">
        Run <code>{runId}</code>
      </h1>
      <LoadState loaded={loaded} what="the run">
        {({ run, history, runners }) => (
          <>
            <RunFacts run={run} traceTemplate={config.traceUrlTemplate} />
            {live && !readOnly && (
              <button type="button" className="danger" onClick={() => void cancel()}>
                Cancel run
              </button>
            )}
            {cancelError && <ErrorState error={cancelError} />}
            <LiveEvents key={run.runId} runId={run.runId} live={live} onChange={loaded.reload} />
            {run.result?.response && (
              <section aria-labelledby="answer-title">
                <h2 id="answer-title">Answer</h2>
                <p className="answer">{run.result.response}</p>
              </section>
            )}
            {run.result?.error && (
              <p className="notice error">
                {run.result.error.kind}: {run.result.error.message}
              </p>
            )}
            <PlanAndChildren run={run} />
            <WebhookDeliveries runId={run.runId} live={live} />
            {!live && !readOnly && can('developer') && run.transcript && run.transcript.length > 0 && (
              <ReplayRun runId={run.runId} steps={run.transcript.length} answered={run.status === 'completed'} />
            )}
            <section aria-labelledby="transcript-title">
              <h2 id="transcript-title">Transcript</h2>
              {run.transcript && run.transcript.length > 0 ? (
                <TranscriptView steps={transcriptSteps(run.transcript, history, runners)} />
              ) : (
                <p className="muted">No steps yet: the run has not called the model.</p>
              )}
            </section>
          </>
        )}
      </LoadState>
    </section>
  );
}
