import type { ApiClient } from '../api-client.js';
import { fields, table } from '../format.js';

interface Task {
  taskId: string;
  name: string;
  status: string;
  spec: { trigger: { type: string; cron?: string }; executor: string };
  nextFireAt: string | null;
  lastFireAt: string | null;
  lastOutcome: string | null;
  /** The latest failure of the task's filter on an event (docs/triggers.md); absent from older servers. */
  lastError?: { code: string; message: string; at: string } | null;
}

interface Fire {
  fireId: string;
  kind: string;
  scheduledAt: string;
  status: string;
  attempts: number;
  runId: string | null;
  error: { code?: string; message?: string } | null;
}

/** `tasks`: the tenant's tasks (every page). */
export async function listTasks(api: ApiClient): Promise<{ json: unknown; text: string }> {
  const tasks: Task[] = [];
  let pageToken: string | undefined;
  do {
    const page = await api.get<{ tasks: Task[]; nextPageToken: string | null }>('v1/tasks', {
      pageSize: 100,
      pageToken,
    });
    tasks.push(...page.tasks);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return {
    json: { tasks },
    text: table(
      ['TASK', 'NAME', 'STATUS', 'TRIGGER', 'EXECUTOR', 'NEXT FIRE', 'LAST FIRE', 'LAST OUTCOME'],
      tasks.map((t) => [
        t.taskId,
        t.name,
        t.status,
        t.spec.trigger.cron ? `${t.spec.trigger.type} ${t.spec.trigger.cron}` : t.spec.trigger.type,
        t.spec.executor,
        t.nextFireAt,
        t.lastFireAt,
        t.lastOutcome,
      ]),
    ),
  };
}

/** `tasks show <taskId>`: one task. */
export async function showTask(api: ApiClient, taskId: string): Promise<{ json: unknown; text: string }> {
  const task = await api.get<Task>(`v1/tasks/${encodeURIComponent(taskId)}`);
  return {
    json: task,
    text: fields([
      ['task', task.taskId],
      ['name', task.name],
      ['status', task.status],
      ['trigger', JSON.stringify(task.spec.trigger)],
      ['executor', task.spec.executor],
      ['next fire', task.nextFireAt],
      ['last fire', task.lastFireAt],
      ['last outcome', task.lastOutcome],
      ['last error', task.lastError ? `${task.lastError.code} ${task.lastError.message} (${task.lastError.at})` : null],
    ]),
  };
}

/** `tasks fires <taskId>`: the task's fires, latest scheduled time first (one page of `--limit`). */
export async function listFires(
  api: ApiClient,
  taskId: string,
  limit: number,
): Promise<{ json: unknown; text: string }> {
  const page = await api.get<{ fires: Fire[] }>(`v1/tasks/${encodeURIComponent(taskId)}/fires`, { pageSize: limit });
  return {
    json: page,
    text: table(
      ['FIRE', 'KIND', 'SCHEDULED', 'STATUS', 'ATTEMPTS', 'RUN', 'ERROR'],
      page.fires.map((f) => [f.fireId, f.kind, f.scheduledAt, f.status, f.attempts, f.runId, f.error?.code]),
    ),
  };
}
