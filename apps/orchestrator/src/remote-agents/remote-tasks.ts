import type pg from 'pg';

/** The remote task a child run follows (migrations/0029). */
export interface RemoteTaskRecord {
  runId: string;
  conversationId: string;
  remoteAgent: string;
  taskId: string;
  contextId: string;
  /** The task's last state seen (`working`, `input-required`, `completed`, …). */
  state: string;
}

/** States after which the remote waits for the user: the next message of the conversation answers it. */
const WAITING_STATES = ['input-required', 'auth-required'] as const;

interface Row {
  run_id: string;
  conversation_id: string;
  remote_agent: string;
  task_id: string;
  context_id: string;
  state: string;
}

const recordOf = (row: Row): RemoteTaskRecord => ({
  runId: row.run_id,
  conversationId: row.conversation_id,
  remoteAgent: row.remote_agent,
  taskId: row.task_id,
  contextId: row.context_id,
  state: row.state,
});

const COLUMNS = 'run_id, conversation_id, remote_agent, task_id, context_id, state';

/** Which remote task each child run follows, so a resumed run follows it again instead of sending anew. */
export class RemoteTasks {
  constructor(private readonly pool: pg.Pool) {}

  async ofRun(tenantId: string, runId: string): Promise<RemoteTaskRecord | undefined> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM remote_agent_tasks WHERE tenant_id = $1 AND run_id = $2`,
      [tenantId, runId],
    );
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  /** The conversation's latest task, when it waits for the user (a run answering it continues it). */
  async waitingIn(
    tenantId: string,
    conversationId: string,
    beforeRunId: string,
  ): Promise<RemoteTaskRecord | undefined> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM remote_agent_tasks
       WHERE tenant_id = $1 AND conversation_id = $2 AND run_id <> $3
       ORDER BY created_at DESC LIMIT 1`,
      [tenantId, conversationId, beforeRunId],
    );
    const latest = rows[0] ? recordOf(rows[0]) : undefined;
    return latest && (WAITING_STATES as readonly string[]).includes(latest.state) ? latest : undefined;
  }

  /** Records the task a run follows (once: a second record of the same run keeps the first). */
  async record(tenantId: string, task: RemoteTaskRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO remote_agent_tasks (tenant_id, run_id, conversation_id, remote_agent, task_id, context_id, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, run_id) DO NOTHING`,
      [tenantId, task.runId, task.conversationId, task.remoteAgent, task.taskId, task.contextId, task.state],
    );
  }

  async setState(tenantId: string, runId: string, state: string): Promise<void> {
    await this.pool.query(
      'UPDATE remote_agent_tasks SET state = $3, updated_at = now() WHERE tenant_id = $1 AND run_id = $2 AND state <> $3',
      [tenantId, runId, state],
    );
  }
}
