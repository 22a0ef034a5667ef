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
import type { ClaimedRun } from '../../journal/run-records.js';
import type { PlanningSpec } from '../../profiles.js';
import type { ChildRuns } from '../child-runs.js';
import { validatePlan } from './plan-graph.js';
import { callPlanModel, PlanModelError } from './plan-model-call.js';
import { recordPlanFailure, type PlanRunContext } from './plan-run.js';
import { parsePlanText, PLAN_JSON_SCHEMA, type PlanSpec } from './plan-schema.js';
import { mermaidOf, type PlanView } from './plan-view.js';
import { SubtaskRuns } from './subtask-runs.js';

/** What a plan-and-execute run journals: each planner reply by version, and the synthesised answer. */
interface PlanJournal {
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
  /**
   * Whether a role's agent allows a tool (a subtask that names a tool runs its child with that tool
   * only), read once per plan for the run's roles: the tenant's agent of that name, else the
   * built-in profile, as the role's child run will resolve it.
   */
  toolsOfRoles: (run: ClaimedRun, roles: readonly string[]) => Promise<(role: string, tool: string) => boolean>;
  logger: Logger;
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
  private readonly subtasks: SubtaskRuns;

  constructor(private readonly deps: PlanExecutorDependencies) {
    this.subtasks = new SubtaskRuns({
      children: deps.children,
      defaultSubtaskTimeoutMs: deps.defaultSubtaskTimeoutMs,
      publish: (ctx, view) => this.publish(ctx, view),
      logger: deps.logger,
    });
  }

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
      error?: LoopResult['error'],
      output?: { value: unknown },
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
        ...(output ? { output: output.value } : {}),
      };
    };
    let mayUseTool: ((role: string, tool: string) => boolean) | undefined;
    try {
      for (;;) {
        const reply = await this.modelStep(ctx, `plan-reply:${view.version}`, conversation, {
          call: 'planner',
          planVersion: view.version,
        });
        usage = addUsage(usage, reply.usage);
        transcript.push(reply.entry);
        conversation.push({ role: 'assistant', content: reply.text });
        mayUseTool ??= await this.deps.toolsOfRoles(ctx.run, [...new Set([...roles, planning.executor])]);
        const plan = this.readPlan(reply.text, planning, roles, mayUseTool);
        let failure: { text: string };
        if (!plan.ok) {
          recordPlanFailure(this.deps.logger, ctx.run.runId, view, {
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
          const outcome = await this.subtasks.execute(ctx, view, plan.plan, toolCalls);
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
        content: `Observation: every subtask is done. Results in the shared context:\n${results}\nWrite the final answer for the user from these results.${ctx.answerInstruction ? `\n\n${ctx.answerInstruction}` : ''}`,
      });
      // With an output schema, the answer is checked as a loop's is: asked again with the errors, then invalid_output.
      for (let refused = 0; ; refused += 1) {
        const answer = await this.modelStep(ctx, refused ? `plan-answer:${refused}` : 'plan-answer', conversation, {
          call: 'synthesis',
          planVersion: view.version,
        });
        usage = addUsage(usage, answer.usage);
        transcript.push(answer.entry);
        const verdict = ctx.answerCheck?.({ content: answer.text, refused });
        if (!verdict) return await finish('final_answer', answer.text);
        if (verdict.accept) return await finish('final_answer', answer.text, undefined, { value: verdict.output });
        if (!verdict.retry)
          return await finish('invalid_output', answer.text, {
            kind: 'invalid_output',
            message: 'the answer is not valid against the output schema',
            ...(verdict.issues ? { issues: verdict.issues } : {}),
          });
        conversation.push({ role: 'assistant', content: answer.text }, { role: 'user', content: verdict.feedback });
      }
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
    mayUseTool: (role: string, tool: string) => boolean,
  ): { ok: true; plan: PlanSpec; order: string[] } | { ok: false; kind: string; message: string } {
    const parsed = parsePlanText(text);
    if (!parsed.ok) return { ok: false, kind: 'format_violation', message: parsed.error };
    const checked = validatePlan(parsed.plan, {
      maxSubtasks: planning.maxSubtasks,
      roles,
      executor: planning.executor,
      mayUseTool,
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

  private async publish(ctx: PlanRunContext, view: PlanView): Promise<void> {
    view.mermaid = mermaidOf(view.subtasks);
    const snapshot = structuredClone(view);
    await this.deps.recordPlan(ctx.run, snapshot);
    ctx.events('plan_updated', { plan: snapshot });
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
