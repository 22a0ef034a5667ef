import { useState } from 'react';
import { Link } from 'wouter';
import type { ApiError } from '../api/api-error.js';
import type { Task } from '../api/types.js';
import { StatusBadge } from '../components/badges.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { fireOutcome, summarizeTaskSpec } from '../lib/task-spec.js';
import { DataTable } from '../components/table.js';

/** Fire statuses that change on their own, and how often their history is read again. */
const UNDER_WAY = new Set(['pending', 'running']);
const FIRE_REFRESH_MS = 2_000;

function FireHistory({ taskId }: { taskId: string }) {
  const { api } = useConsole();
  // While a fire is under way, its row follows it.
  const loaded = useLoad(['fires', taskId], () => api.taskFires(taskId), {
    refreshMs: (page) => (page?.fires.some((f) => UNDER_WAY.has(f.status)) ? FIRE_REFRESH_MS : undefined),
  });
  return (
    <LoadState loaded={loaded} what="the fire history">
      {({ fires }) =>
        fires.length === 0 ? (
          <p className="muted">It has not fired yet.</p>
        ) : (
          <DataTable
            caption="Fires, latest first"
            columns={['Scheduled', 'Kind', 'Status', 'Attempts', 'Run', 'Outcome']}
          >
            {fires.map((fire) => (
              <tr key={fire.fireId}>
                <td>{formatTime(fire.scheduledAt)}</td>
                <td>{fire.kind}</td>
                <td>
                  <StatusBadge status={fire.status} />
                </td>
                <td>{fire.attempts}</td>
                <td>{fire.runId ? <Link href={`/runs/${fire.runId}`}>{fire.runId}</Link> : '—'}</td>
                <td>{fireOutcome(fire)}</td>
              </tr>
            ))}
          </DataTable>
        )
      }
    </LoadState>
  );
}

function TaskCard({ task, onChanged }: { task: Task; onChanged: () => void }) {
  const { api, readOnly } = useConsole();
  const [error, setError] = useState<ApiError | undefined>();
  const [fired, setFired] = useState(0);
  const summary = summarizeTaskSpec(task.spec, formatTime);
  const act = (action: () => Promise<unknown>) => () =>
    void action().then(
      () => {
        setError(undefined);
        setFired((n) => n + 1);
        onChanged();
      },
      (err: ApiError) => setError(err),
    );
  return (
    <li className="card">
      <h2>
        {task.name} <StatusBadge status={task.status.toLowerCase()} />
      </h2>
      <dl className="facts">
        <dt>Trigger</dt>
        <dd>{summary.trigger}</dd>
        <dt>Instruction</dt>
        <dd>{summary.instruction}</dd>
        <dt>Next fire</dt>
        <dd>{formatTime(task.nextFireAt)}</dd>
        <dt>Last fire</dt>
        <dd>
          {formatTime(task.lastFireAt)} {task.lastOutcome && <span className="muted">({task.lastOutcome})</span>}
        </dd>
        {task.lastError && (
          <>
            <dt>Filter error</dt>
            <dd>
              <code>{task.lastError.code}</code> {task.lastError.message}{' '}
              <span className="muted">({formatTime(task.lastError.at)})</span>
            </dd>
          </>
        )}
      </dl>
      {!readOnly && (
        <div className="actions">
          {task.status === 'ACTIVE' && (
            <button type="button" className="secondary" onClick={act(() => api.changeTask(task.taskId, 'pause'))}>
              Pause
            </button>
          )}
          {task.status === 'PAUSED' && (
            <button type="button" className="secondary" onClick={act(() => api.changeTask(task.taskId, 'resume'))}>
              Resume
            </button>
          )}
          <button type="button" onClick={act(() => api.runTaskNow(task.taskId))}>
            Run now
          </button>
        </div>
      )}
      {error && <ErrorState error={error} />}
      <details>
        <summary>Fire history</summary>
        <FireHistory key={fired} taskId={task.taskId} />
      </details>
    </li>
  );
}

/** The tenant's tasks (triggers): when they fire next, what they did, pause / resume / run now. */
export function TasksPage() {
  const { api } = useConsole();
  const loaded = useLoad(['tasks'], () => api.listTasks());
  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">Tasks</h1>
      <LoadState loaded={loaded} what="tasks">
        {({ tasks }) =>
          tasks.length === 0 ? (
            <EmptyState title="No tasks yet.">
              Create one with POST /v1/tasks (see docs/triggers.md); it appears here with its schedule and fires.
            </EmptyState>
          ) : (
            <ul className="cards">
              {tasks.map((task) => (
                <TaskCard key={task.taskId} task={task} onChanged={loaded.reload} />
              ))}
            </ul>
          )
        }
      </LoadState>
    </section>
  );
}
