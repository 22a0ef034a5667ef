import { ZERO_USAGE, type ToolCallRecord } from '@platform/agent-loop';
import type { Logger } from '@platform/service-kit';
import type { RunRecord } from '../../journal/run-records.js';
import { outcomeOfChild, type ChildRuns } from '../child-runs.js';
import { delegationToolName } from '../delegation-tools.js';
import { fillTemplates } from './plan-graph.js';
import { recordPlanFailure, type PlanRunContext } from './plan-run.js';
import type { PlanSpec, Subtask } from './plan-schema.js';
import type { PlanView, SubtaskView } from './plan-view.js';

/** One try of a subtask: the child run it finished as, or why it did not. */
interface Attempt {
  id: string;
  record?: RunRecord;
  error?: string;
}

export interface SubtaskRunsDependencies {
  children: ChildRuns;
  /** Default deadline of one subtask (a child run) when its role names none. */
  defaultSubtaskTimeoutMs: number;
  /** Stores and announces the plan as it changes. */
  publish: (ctx: PlanRunContext, view: PlanView) => Promise<void>;
  logger: Logger;
}

/** Runs a plan version's subtasks as child runs, in dependency order, retrying and stopping for a replan. */
export class SubtaskRuns {
  constructor(private readonly deps: SubtaskRunsDependencies) {}

  /**
   * Runs one plan version: subtasks whose dependencies are done start (up to `parallelism` at
   * once) as child runs; a success writes the result into the context and may make others
   * ready; a failure is retried as a new attempt, and past `maxSubtaskFailures` (a critical
   * subtask: at once) the version stops once the subtasks under way have finished (a failure
   * never cancels its siblings) and asks for a replan. Nothing ready while something is pending
   * is a deadlock.
   */
  async execute(
    ctx: PlanRunContext,
    view: PlanView,
    plan: PlanSpec,
    toolCalls: ToolCallRecord[],
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const { planning } = ctx;
    const running = new Map<string, Promise<Attempt>>();
    const failures = new Map<string, number>();
    const byId = new Map(view.subtasks.map((s) => [s.id, s]));
    let stop: string | undefined;
    const statusOf = (id: string) => byId.get(id)?.status;
    for (;;) {
      if (!stop && !ctx.signal.aborted) {
        for (const id of view.executionOrder) {
          const subtask = byId.get(id)!;
          if (running.size >= planning.parallelism) break;
          if (subtask.status !== 'pending' && subtask.status !== 'blocked') continue;
          if (subtask.dependencies.some((d) => statusOf(d) !== 'completed')) {
            subtask.status = 'blocked';
            continue;
          }
          const missing = this.missingInputs(subtask, view.context);
          if (missing.length) {
            subtask.status = 'failed';
            subtask.error = `missing inputs: ${missing.join(', ')}`;
            recordPlanFailure(this.deps.logger, ctx.run.runId, view, {
              subtaskId: id,
              class: 'planning',
              kind: 'context_loss',
              severity: 'medium',
              message: `subtask '${id}' needs ${missing.map((m) => `{${m}}`).join(', ')}, which no finished subtask wrote`,
              recovery: 'replan',
            });
            stop = `subtask '${id}' is missing its inputs (${missing.join(', ')})`;
            break;
          }
          subtask.status = 'executing';
          subtask.attempts += 1;
          running.set(id, this.startSubtask(ctx, view, subtask));
        }
        await this.deps.publish(ctx, view);
      }
      if (running.size === 0) {
        if (ctx.signal.aborted) return { ok: false, reason: 'the run was cancelled' };
        if (stop) return { ok: false, reason: stop };
        if (view.subtasks.every((s) => s.status === 'completed')) return { ok: true };
        const stuck = view.subtasks.filter((s) => s.status !== 'completed').map((s) => s.id);
        recordPlanFailure(this.deps.logger, ctx.run.runId, view, {
          class: 'planning',
          kind: 'dependency_deadlock',
          severity: 'high',
          message: `nothing is ready while ${stuck.join(', ')} wait`,
          recovery: 'replan',
        });
        return {
          ok: false,
          reason: `deadlock: nothing can run while ${stuck.join(', ')} wait on subtasks that cannot finish`,
        };
      }
      const done = await Promise.race(running.values());
      running.delete(done.id);
      const subtask = byId.get(done.id)!;
      const outcome = done.record
        ? outcomeOfChild(
            subtask.role ?? planning.executor,
            delegationToolName(subtask.role ?? planning.executor),
            done.record,
          )
        : undefined;
      toolCalls.push(this.recordOf(view, subtask, done, outcome?.status === 'success'));
      if (outcome?.status === 'success') {
        subtask.status = 'completed';
        delete subtask.error;
        view.context[subtask.outputKey ?? subtask.id] = outcome.content;
        continue;
      }
      const message = done.error ?? outcome?.content ?? 'the subtask failed';
      subtask.error = message;
      if (ctx.signal.aborted) {
        subtask.status = 'failed';
        continue;
      }
      const count = (failures.get(done.id) ?? 0) + 1;
      failures.set(done.id, count);
      const replan = subtask.critical || count >= planning.maxSubtaskFailures;
      const timedOut = done.record?.status === 'cancelled';
      recordPlanFailure(this.deps.logger, ctx.run.runId, view, {
        subtaskId: done.id,
        class: timedOut ? 'coordination' : 'tool',
        kind: timedOut ? 'unresponsive_agent' : 'subtask_failed',
        severity: subtask.critical ? 'high' : 'medium',
        message: `subtask '${done.id}' failed (attempt ${subtask.attempts}): ${message}`,
        recovery: replan ? 'replan' : 'retry',
      });
      if (replan) {
        subtask.status = 'failed';
        stop ??= subtask.critical
          ? `critical subtask '${done.id}' failed: ${message}`
          : `subtask '${done.id}' failed ${count} times: ${message}`;
      } else {
        subtask.status = 'pending';
      }
    }
  }

  private missingInputs(subtask: SubtaskView, context: Record<string, string>): string[] {
    return [
      ...new Set([
        ...fillTemplates(subtask.description, context).missing,
        ...fillTemplates(subtask.arguments ?? {}, context).missing,
      ]),
    ];
  }

  /** The task a subtask's child run is given: what to do, the inputs it needs, and the expected output. */
  private taskOf(subtask: Subtask, context: Record<string, string>): string {
    const description = fillTemplates(subtask.description, context).value as string;
    const lines = [description, `Expected output: ${subtask.expectedOutput}`];
    if (subtask.tool)
      lines.push(
        `Use the tool '${subtask.tool}' with these arguments: ${JSON.stringify(fillTemplates(subtask.arguments ?? {}, context).value)}`,
      );
    const inputs = subtask.dependencies.map((d) => [d, context[d]] as const).filter(([, v]) => v !== undefined);
    if (inputs.length)
      lines.push('Results of the subtasks this one depends on:', ...inputs.map(([k, v]) => `- ${k}: ${v}`));
    return lines.join('\n');
  }

  private startSubtask(ctx: PlanRunContext, view: PlanView, subtask: SubtaskView): Promise<Attempt> {
    const role = subtask.role ?? ctx.planning.executor;
    const spec = ctx.profile.delegates.find((d) => d.role === role);
    const callId = `plan${view.version}-${subtask.id}-${subtask.attempts}`;
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new Error('subtask deadline')),
      spec?.timeoutMs ?? this.deps.defaultSubtaskTimeoutMs,
    );
    const onRunAbort = (): void => timeout.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onRunAbort, { once: true });
    const task = {
      parent: ctx.run,
      callId,
      role,
      task: this.taskOf(subtask, view.context),
      ...(subtask.tool ? { tools: [subtask.tool] } : {}),
      ...(spec?.remoteAgent ? { remoteAgent: spec.remoteAgent } : {}),
    };
    return this.deps.children
      .run(
        task,
        timeout.signal,
        (type, data) => {
          if (type === 'child_run_started' && typeof data['childRunId'] === 'string')
            subtask.childRunIds.push(data['childRunId']);
          if (
            type === 'child_run_event' &&
            (data['event'] as { type?: string } | undefined)?.type === 'reattached' &&
            typeof data['childRunId'] === 'string' &&
            !subtask.childRunIds.includes(data['childRunId'])
          ) {
            subtask.childRunIds.push(data['childRunId']);
          }
          return ctx.events(type, { ...data, subtaskId: subtask.id });
        },
        ctx.handingOver,
      )
      .then(
        (record): Attempt => ({ id: subtask.id, record }),
        (err: unknown): Attempt => ({
          id: subtask.id,
          error:
            timeout.signal.aborted && !ctx.signal.aborted
              ? `it did not finish in time`
              : ((err as Error)?.message ?? String(err)),
        }),
      )
      .finally(() => {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onRunAbort);
      });
  }

  private recordOf(view: PlanView, subtask: SubtaskView, done: Attempt, success: boolean): ToolCallRecord {
    return {
      callId: `plan${view.version}-${subtask.id}-${subtask.attempts}`,
      name: `subtask:${subtask.id}`,
      argumentsSummary: { role: subtask.role ?? null, childRunId: subtask.childRunIds.at(-1) ?? null },
      durationMs: done.record?.finishedAt
        ? Math.max(0, done.record.finishedAt.getTime() - done.record.createdAt.getTime())
        : 0,
      success,
      status: success
        ? 'success'
        : done.record?.status === 'cancelled'
          ? 'cancelled'
          : done.error
            ? 'timeout'
            : 'failed',
      ...(success ? {} : { errorCode: done.error ? 'TIMEOUT' : 'SUBTASK_FAILED' }),
      synthetic: false,
      resultChars: done.record?.result?.response.length ?? 0,
      turnUsage: ZERO_USAGE,
      iteration: view.version,
    };
  }
}
