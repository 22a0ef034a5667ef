import { inTransaction, isPlatformError, type Logger } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from './clock.js';
import { EventFilterCache, FilterError, FilterErrorCodes, type FilterLimits } from './event-filter.js';
import type { OrchestratorTools } from './orchestrator-tools.js';
import type { TaskRow } from './task-row.js';
import type { ConditionTrigger } from './task-spec.js';

export interface ConditionPollerSettings {
  batchSize: number;
  toolTimeoutMs: number;
  /** The same pattern and input limits as event filters (TRIGGER_FILTER_*). */
  filterLimits?: FilterLimits;
}

type DueCondition = Pick<TaskRow, 'task_id' | 'tenant_id' | 'spec'> & { next_poll_at: Date };

/**
 * What one poll found: the condition's value; why the condition could not be evaluated on the
 * tool's answer (recorded as the task's lastError); or nothing when the tool failed.
 */
type PollResult = { met: boolean; output: unknown } | { failed: { code: string; message: string } } | undefined;

/**
 * Polls the tools of condition triggers and fires on a rising edge. A round claims due tasks
 * (`FOR UPDATE SKIP LOCKED`) and moves their next poll time on in the same statement, so each
 * poll happens on one replica; a replica that dies mid-poll only costs that poll. After the
 * tool answers, the task's row is locked again to compare with the last known value: false (or
 * unknown) -> true fires, once, unless the last fire is within the cool-down; true -> true and
 * anything -> false do not. A failed tool call leaves the known value as it was.
 */
export class ConditionPoller {
  private readonly conditions: EventFilterCache;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly tools: OrchestratorTools,
    private readonly clock: Clock,
    private readonly settings: ConditionPollerSettings,
    private readonly logger: Logger,
    private readonly onFires: () => void,
  ) {
    this.conditions = new EventFilterCache(10_000, settings.filterLimits);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.tick(), intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One round: polls every due task. Resolves with how many fired. */
  async pollDue(): Promise<number> {
    const now = this.clock.now();
    const { rows } = await this.db.query<DueCondition>(
      `WITH due AS (
         SELECT task_id, next_poll_at FROM tasks
         WHERE trigger_type = 'condition' AND status = 'ACTIVE' AND next_poll_at IS NOT NULL AND next_poll_at <= $1
         ORDER BY next_poll_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE tasks t SET next_poll_at = greatest(due.next_poll_at + make_interval(secs => (t.spec->'trigger'->>'intervalSeconds')::int), $1)
       FROM due WHERE t.task_id = due.task_id
       RETURNING t.task_id, t.tenant_id, t.spec, due.next_poll_at`,
      [new Date(now), this.settings.batchSize],
    );
    const fired = await Promise.all(rows.map(async (task) => this.record(task, await this.poll(task), now)));
    const count = fired.filter(Boolean).length;
    if (count > 0) this.onFires();
    return count;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.pollDue();
    } catch (err) {
      this.logger.error({ err }, 'condition polling round failed');
    } finally {
      this.running = false;
    }
  }

  private async poll(task: DueCondition): Promise<PollResult> {
    const trigger = task.spec.trigger as ConditionTrigger;
    let response;
    try {
      // Through the orchestrator's tool gate: the task's profile allowlist, read-only tools only.
      response = await this.tools.call({
        caller: 'condition',
        tenantId: task.tenant_id,
        profile: task.spec.action.profile ?? '',
        toolName: trigger.tool,
        arguments: trigger.arguments,
        callId: `poll:${task.task_id}:${task.next_poll_at.toISOString()}`,
        conversationId: task.task_id,
        timeoutMs: this.settings.toolTimeoutMs,
      });
    } catch (err) {
      const code = isPlatformError(err) ? err.code : undefined;
      this.logger.warn(
        { taskId: task.task_id, tool: trigger.tool, code, err: code ? undefined : err },
        'a condition poll was refused or not answered; the condition keeps its last value',
      );
      return undefined;
    }
    if (response.status !== 'success') {
      this.logger.warn(
        { taskId: task.task_id, tool: trigger.tool, status: response.status, code: response.errorCode },
        'a condition poll failed; the condition keeps its last value',
      );
      return undefined;
    }
    const output: unknown = response.outputJson ? JSON.parse(response.outputJson) : null;
    try {
      const met = this.conditions.get(trigger.condition)({ result: output });
      this.logger.debug({ taskId: task.task_id, polledAt: task.next_poll_at.toISOString(), met }, 'condition polled');
      return { met, output };
    } catch (err) {
      const known = err instanceof FilterError;
      // Conditions are compiled at creation; one that fails on an answer keeps its last value, and the task says why.
      if (!known) this.logger.warn({ err, taskId: task.task_id }, 'a condition could not be evaluated');
      return {
        failed: {
          code: known ? err.code : FilterErrorCodes.evaluationFailed,
          message: (err as Error).message.slice(0, 500),
        },
      };
    }
  }

  /** Records the poll's value; on a rising edge outside the cool-down, records a fire. Returns whether it fired. */
  private async record(task: DueCondition, result: PollResult, nowMs: number): Promise<boolean> {
    if (!result) return false;
    if ('failed' in result) {
      await this.db.query(
        'UPDATE tasks SET last_error_code = $2, last_error_message = $3, last_error_at = $4 WHERE task_id = $1',
        [task.task_id, result.failed.code, result.failed.message, new Date(nowMs)],
      );
      return false;
    }
    const trigger = task.spec.trigger as ConditionTrigger;
    return inTransaction(this.db, async (client) => {
      const { rows } = await client.query<{
        condition_met: boolean | null;
        condition_fired_at: Date | null;
        status: string;
      }>('SELECT condition_met, condition_fired_at, status FROM tasks WHERE task_id = $1 FOR UPDATE', [task.task_id]);
      const before = rows[0];
      if (!before || before.status !== 'ACTIVE') return false;
      const rising = result.met && before.condition_met !== true;
      const cooled =
        !before.condition_fired_at || nowMs - before.condition_fired_at.getTime() >= trigger.cooldownSeconds * 1000;
      const fire = rising && cooled;
      await client.query(
        'UPDATE tasks SET condition_met = $2, condition_fired_at = CASE WHEN $3::boolean THEN $4 ELSE condition_fired_at END WHERE task_id = $1',
        [task.task_id, result.met, fire, new Date(nowMs)],
      );
      if (!fire) return false;
      const polledAt = task.next_poll_at.toISOString();
      await client.query(
        `INSERT INTO fires (fire_id, task_id, tenant_id, fire_key, kind, scheduled_at, due_at, status, payload)
         VALUES ($1, $2, $3, $4, 'condition', $5, $5, 'pending', $6::jsonb) ON CONFLICT (task_id, fire_key) DO NOTHING`,
        [
          `fire_${randomUUID()}`,
          task.task_id,
          task.tenant_id,
          `condition:${polledAt}`,
          new Date(nowMs),
          JSON.stringify({ tool: trigger.tool, condition: trigger.condition, result: result.output, polledAt }),
        ],
      );
      return true;
    });
  }
}
