import {
  ZERO_USAGE,
  type IterationRecord,
  type LoopResult,
  type PlanCallNote,
  type TokenUsage,
  type ToolCallRecord,
  type TranscriptEntry,
} from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { recordFailure } from '@platform/telemetry';
import type { ClaimedRun, RunRecord } from '../../journal/run-records.js';
import type { AgentProfile, PlanningSpec } from '../../profiles.js';
import type { ChildRuns, ParentEvents } from '../child-runs.js';
import { outcomeOfChild } from '../child-runs.js';
import { delegationToolName } from '../delegation-tools.js';
import { fillTemplates, validatePlan } from './plan-graph.js';
import { callPlanModel, PlanModelError } from './plan-model-call.js';
import { parsePlanText, PLAN_JSON_SCHEMA, type PlanSpec, type Subtask } from './plan-schema.js';
import {
  mermaidOf,
  type FailureClass,
  type PlanFailure,
  type PlanView,
  type Recovery,
  type Severity,
  type SubtaskView,
} from './plan-view.js';

/** What a plan-and-execute run journals: each planner reply by version, and the synthesised answer. */
export interface PlanJournal {
  load(run: ClaimedRun, key: string): Promise<unknown>;
  save(run: ClaimedRun, key: string, value: unknown): Promise<void>;
}

export interface PlanExecutorDependencies {
  children: ChildRuns;
  journal: PlanJournal;
  /** Stores the plan with the run (fenced by the run's epoch) for GET /v1/runs/{id}. */
  recordPlan: (run: ClaimedRun, view: PlanView) => Promise<void>;
  /** Default deadline of one subtask (a child run) when its role names none. */
  defaultSubtaskTimeoutMs: number;
  /** Whether a role's profile allows a tool: a subtask that names a tool runs its child with that tool only. */
  mayUseTool: (role: string, tool: string) => boolean;
  logger: Logger;
}

export interface PlanRunContext {
  run: ClaimedRun;
  profile: AgentProfile;
  planning: PlanningSpec;
  /** Aborts when the run is cancelled (or its attempt stops). */
  signal: AbortSignal;
  events: ParentEvents & ((type: 'plan_updated', data: Record<string, unknown>) => void);
  /** True while the attempt is only being handed over (children go on). */
  handingOver: () => boolean;
}

const PLANNER_INSTRUCTIONS = (roles: string[], executor: string, maxSubtasks: number): string =>
  [
    "You are the planner. Break the user's goal into subtasks and answer with ONE JSON object and nothing else, matching this JSON Schema:",
    JSON.stringify(PLAN_JSON_SCHEMA),
    'Each subtask needs: "id" (short, unique), "description" (what to do, self-contained), "expectedOutput", "dependencies" (ids of subtasks whose results it needs), and optionally "tool" with "arguments", "critical" (true when much depends on it), "role" and "outputKey".',
    'Each subtask should correspond to a single, meaningful tool call or a coherent unit of thought.',
    `Roles that can do subtasks: ${roles.join(', ')} (default: ${executor}). At most ${maxSubtasks} subtasks.`,
    "A subtask's result is stored in the shared context under its outputKey (default: its id); write {key} in a description or an argument to use a result there.",
  ].join('\n');

interface Attempt {
  id: string;
  record?: RunRecord;
  error?: string;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/**
 * The plan-and-execute strategy of a turn: a planner model call returns a plan (a DAG of
 * subtasks, validated), ready subtasks run in parallel as child runs under their roles, their
 * results go into a shared context, a failing subtask is retried and then replanned (a critical
 * one at once), and the final answer is synthesised from the context. Planner replies are
 * journaled by version and every subtask attempt is a child run with an id derived from the
 * parent, the plan version, the subtask and the attempt, so a resumed run re-walks the same plan
 * and finds finished subtasks finished: none runs twice.
 */
export class PlanExecutor {
  constructor(private readonly deps: PlanExecutorDependencies) {}

  async run(ctx: PlanRunContext): Promise<LoopResult> {
    const started = Date.now();
    const { run, profile, planning } = ctx;
    const roles = profile.delegates.map((d) => d.role);
    const view: PlanView = {
      goal: run.content,
      status: 'planning',
      version: 0,
      replans: 0,
      executionOrder: [],
      subtasks: [],
      context: { original_query: run.content },
      failures: [],
      mermaid: mermaidOf([]),
    };
    const conversation: ChatMessage[] = [
      {
        role: 'system',
        content: `${profile.systemPrompt}\n\n${PLANNER_INSTRUCTIONS(roles, planning.executor, planning.maxSubtasks)}`,
      },
      { role: 'user', content: run.content },
    ];
    let usage = ZERO_USAGE;
    const toolCalls: ToolCallRecord[] = [];
    const transcript: TranscriptEntry[] = [];
    const finish = async (
      stopReason: LoopResult['stopReason'],
      response: string,
      error?: { kind: string; message: string },
    ): Promise<LoopResult> => {
      view.status = stopReason === 'final_answer' ? 'completed' : 'failed';
      await this.publish(ctx, view);
      return {
        runId: run.runId,
        response,
        stopReason,
        turns: view.version + 1,
        usage,
        durationMs: Date.now() - started,
        pendingAgents: [],
        toolCalls,
        messages: [{ role: 'assistant', content: response }],
        transcript,
        ...(error ? { error } : {}),
      };
    };
    try {
      for (;;) {
        const reply = await this.modelStep(ctx, `plan-reply:${view.version}`, conversation, {
          call: 'planner',
          planVersion: view.version,
        });
        usage = addUsage(usage, reply.usage);
        transcript.push(reply.entry);
        conversation.push({ role: 'assistant', content: reply.text });
        const plan = this.readPlan(reply.text, planning, roles);
        let failure: { text: string };
        if (!plan.ok) {
          this.fail(ctx.run.runId, view, {
            class: 'planning',
            kind: plan.kind,
            severity: plan.kind === 'cycle' ? 'high' : 'medium',
            message: plan.message,
            recovery: 'replan',
          });
          failure = { text: `the plan was refused: ${plan.message}. Write a corrected plan.` };
        } else {
          this.startVersion(view, plan.plan, plan.order);
          await this.publish(ctx, view);
          const outcome = await this.execute(ctx, view, plan.plan, toolCalls);
          transcript.push(...subtaskEntries(view, planning.executor));
          if (outcome.ok) break;
          failure = {
            text: `${outcome.reason}. What is done so far is in the shared context: ${JSON.stringify(view.context)}. Write a new plan for what remains (use {key} to refer to results that exist).`,
          };
        }
        if (ctx.signal.aborted) return finish('cancelled', 'The run was cancelled before its plan finished.');
        if (view.replans >= planning.maxReplans) {
          const last = view.failures.at(-1)?.message ?? 'the plan failed';
          const escalated = view.failures.at(-1)!;
          escalated.recovery = 'escalate';
          recordFailure({
            failureClass: escalated.class,
            kind: escalated.kind,
            severity: escalated.severity,
            recovery: 'escalate',
          });
          this.deps.logger.warn(
            { runId: run.runId, replans: view.replans, failures: view.failures.length },
            'plan failed past its replans',
          );
          return await finish(
            'plan_failed',
            `I could not reach this goal: after ${view.replans} new plans it still failed (${last}). Nothing more will be tried; please try a simpler goal, or split it into smaller requests.`,
            { kind: 'plan_failed', message: last },
          );
        }
        transcript.push({
          step: 'replan',
          planVersion: view.version,
          reason: failure.text,
          ...(view.failures.at(-1) ? { failureKind: view.failures.at(-1)!.kind } : {}),
        });
        view.replans += 1;
        view.version += 1;
        view.status = 'planning';
        await this.publish(ctx, view);
        conversation.push({ role: 'user', content: `Observation: ${failure.text}` });
      }
      const results = Object.entries(view.context)
        .filter(([key]) => key !== 'original_query')
        .map(([key, value]) => `- ${key}: ${value}`)
        .join('\n');
      conversation.push({
        role: 'user',
        content: `Observation: every subtask is done. Results in the shared context:\n${results}\nWrite the final answer for the user from these results.`,
      });
      const answer = await this.modelStep(ctx, 'plan-answer', conversation, {
        call: 'synthesis',
        planVersion: view.version,
      });
      usage = addUsage(usage, answer.usage);
      transcript.push(answer.entry);
      return await finish('final_answer', answer.text);
    } catch (err) {
      if (ctx.signal.aborted) return finish('cancelled', 'The run was cancelled before its plan finished.');
      if (err instanceof PlanModelError)
        return finish('model_error', err.message, { kind: 'model_error', message: err.message });
      throw err;
    }
  }

  /**
   * A planner (or synthesis) model call, journaled under `key` with its transcript entry: a
   * resumed run reads it instead of asking again.
   */
  private async modelStep(
    ctx: PlanRunContext,
    key: string,
    messages: ChatMessage[],
    note: PlanCallNote,
  ): Promise<{ text: string; usage: TokenUsage; entry: IterationRecord }> {
    const saved =
      ctx.run.attempts > 1
        ? ((await this.deps.journal.load(ctx.run, key)) as { text?: unknown; entry?: IterationRecord } | undefined)
        : undefined;
    if (typeof saved?.text === 'string')
      return {
        text: saved.text,
        usage: ZERO_USAGE,
        entry: saved.entry ?? entryWithoutRecord(ctx, saved.text, messages, note),
      };
    const reply = await callPlanModel({
      profile: ctx.profile,
      messages,
      note,
      signal: ctx.signal,
      runId: ctx.run.runId,
      logger: this.deps.logger,
    });
    await this.deps.journal.save(ctx.run, key, { text: reply.text, entry: reply.entry });
    return reply;
  }

  private readPlan(
    text: string,
    planning: PlanningSpec,
    roles: string[],
  ): { ok: true; plan: PlanSpec; order: string[] } | { ok: false; kind: string; message: string } {
    const parsed = parsePlanText(text);
    if (!parsed.ok) return { ok: false, kind: 'format_violation', message: parsed.error };
    const checked = validatePlan(parsed.plan, {
      maxSubtasks: planning.maxSubtasks,
      roles,
      executor: planning.executor,
      mayUseTool: this.deps.mayUseTool,
    });
    if (!checked.ok) return { ok: false, kind: checked.problem.kind, message: checked.problem.message };
    return { ok: true, plan: parsed.plan, order: checked.order };
  }

  private startVersion(view: PlanView, plan: PlanSpec, order: string[]): void {
    view.status = 'executing';
    view.executionOrder = order;
    const byId = new Map(plan.subtasks.map((s) => [s.id, s]));
    view.subtasks = order.map((id) => ({ ...byId.get(id)!, status: 'pending', attempts: 0, childRunIds: [] }));
  }

  private fail(
    runId: string,
    view: PlanView,
    failure: {
      subtaskId?: string;
      class: FailureClass;
      kind: string;
      severity: Severity;
      message: string;
      recovery: Recovery;
    },
  ): PlanFailure {
    const entry: PlanFailure = { planVersion: view.version, ...failure, at: Date.now() };
    view.failures.push(entry);
    // The taxonomy in the logs and the metrics too (the recovery is the one decided now; a last
    // failure past the replans is re-marked `escalate` in the plan).
    this.deps.logger.warn(
      {
        runId,
        planVersion: view.version,
        subtaskId: failure.subtaskId,
        failureClass: failure.class,
        kind: failure.kind,
        severity: failure.severity,
        recovery: failure.recovery,
        err: failure.message,
      },
      'plan step failed',
    );
    recordFailure({
      failureClass: failure.class,
      kind: failure.kind,
      severity: failure.severity,
      recovery: failure.recovery,
    });
    return entry;
  }

  private async publish(ctx: PlanRunContext, view: PlanView): Promise<void> {
    view.mermaid = mermaidOf(view.subtasks);
    const snapshot = structuredClone(view);
    await this.deps.recordPlan(ctx.run, snapshot);
    ctx.events('plan_updated', { plan: snapshot });
  }

  /**
   * Runs one plan version: subtasks whose dependencies are done start (up to `parallelism` at
   * once) as child runs; a success writes the result into the context and may make others
   * ready; a failure is retried as a new attempt, and past `maxSubtaskFailures` (a critical
   * subtask: at once) the version stops once the subtasks under way have finished (a failure
   * never cancels its siblings) and asks for a replan. Nothing ready while something is pending
   * is a deadlock.
   */
  private async execute(
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
            this.fail(ctx.run.runId, view, {
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
        await this.publish(ctx, view);
      }
      if (running.size === 0) {
        if (ctx.signal.aborted) return { ok: false, reason: 'the run was cancelled' };
        if (stop) return { ok: false, reason: stop };
        if (view.subtasks.every((s) => s.status === 'completed')) return { ok: true };
        const stuck = view.subtasks.filter((s) => s.status !== 'completed').map((s) => s.id);
        this.fail(ctx.run.runId, view, {
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
      this.fail(ctx.run.runId, view, {
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
          ctx.events(type, { ...data, subtaskId: subtask.id });
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

/** The transcript's entry of each subtask of a plan version: its status, attempts, child runs and result key. */
function subtaskEntries(view: PlanView, executor: string): TranscriptEntry[] {
  return view.subtasks.map((s) => ({
    step: 'subtask',
    planVersion: view.version,
    subtaskId: s.id,
    role: s.role ?? executor,
    status: s.status,
    attempts: s.attempts,
    childRunIds: [...s.childRunIds],
    resultKey: s.outputKey ?? s.id,
    ...(s.error ? { error: s.error } : {}),
  }));
}

/**
 * The transcript entry of a reply journaled before entries were (text only): the reply is kept,
 * never asked for again (a new plan could re-run finished subtasks); what was not recorded is zero.
 */
function entryWithoutRecord(
  ctx: PlanRunContext,
  text: string,
  messages: ChatMessage[],
  note: PlanCallNote,
): IterationRecord {
  const { provider, model } = ctx.profile.model;
  return {
    iteration: note.planVersion,
    view: { messages: messages.length, estimatedTokens: 0, stage: 'full', diagnostics: [] },
    model: { provider, model, finishReason: 'stop', retries: 0, fallbackUsed: false },
    output: { role: 'assistant', content: text },
    tools: [],
    usage: ZERO_USAGE,
    durationMs: 0,
    plan: note,
  };
}
