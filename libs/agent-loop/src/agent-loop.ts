import type { AssistantMessage, ChatMessage } from '@platform/contracts';
import { callIdsIn, withUsableCallIds } from './call-ids.js';
import { systemClock, type Clock } from './clock.js';
import { ContextManager } from './context-manager.js';
import { EventEmitter } from './events.js';
import { MALFORMED_OUTPUT, MODEL_REFUSAL, type StepFailure } from './failures.js';
import type { AnswerVerdict, LoopHooks } from './hooks.js';
import { iterationRecord, toolCallRecords } from './iteration-records.js';
import { linkSignals, type LinkedSignal } from './linked-signal.js';
import { DEFAULT_LOOP_CONFIG, type LoopConfig } from './loop-config.js';
import type { LoopDependencies } from './loop-dependencies.js';
import type { LoopInput } from './loop-input.js';
import { danglingCallResults, loopResult } from './loop-outcome.js';
import type { AgentLoopResult, IterationRecord, LoopResult, StopReason, ToolCallRecord } from './loop-result.js';
import type { ModelCallOutcome } from './model-call.js';
import { addUsage, ZERO_USAGE, type TokenUsage } from './model-port.js';
import { DEFAULT_RETRY_STRATEGIES } from './model-retry.js';
import { ModelStep } from './model-step.js';
import { waitIfPaused } from './pause-gate.js';
import { RunControl } from './run-control.js';
import { stopMessages } from './stop-messages.js';
import { closeUnanswered } from './synthetic-results.js';
import { repairModelMessage, type TextRepair } from './text-repairs.js';
import { runToolBatch, type CallResult } from './tool-batch.js';
import type { PendingAgent } from './tool-port.js';

export type { LoopInput } from './loop-input.js';
export type { LoopDependencies } from './loop-dependencies.js';

/** Why the turn-deadline timer stops when the run ends (nobody reads it). */
const DEADLINE_TIMER_DONE = new Error('the run ended before its deadline');

/** One run of the loop; a class only to keep the run's state out of long parameter lists. */
class LoopRun {
  private readonly config: LoopConfig;
  private readonly clock: Clock;
  private readonly hooks: LoopHooks;
  private readonly events: EventEmitter;
  private readonly control: RunControl;
  private readonly models: ModelStep;
  private readonly deadline = new AbortController();
  private readonly signal: AbortSignal;
  private readonly linked: LinkedSignal;
  private readonly produced: ChatMessage[] = [];
  private readonly records: ToolCallRecord[] = [];
  /** A failure of the current iteration's model reply itself (malformed, refused), recorded with the iteration. */
  private replyFailure: StepFailure | undefined;
  /** Repairs of the current iteration's model message, recorded with the iteration. */
  private textRepairs: TextRepair[] = [];
  private readonly transcript: IterationRecord[] = [];
  private readonly seenCalls = new Map<string, number>();
  /** Tool call ids the conversation has used: a call's id must be new (see withUsableCallIds). */
  private readonly callIds: Set<string>;
  private usage: TokenUsage = ZERO_USAGE;
  private turns = 0;
  /** Final answers hooks.checkAnswer refused so far. */
  private refusedAnswers = 0;
  private readonly startedAt: number;

  constructor(
    private readonly input: LoopInput,
    private readonly deps: LoopDependencies,
  ) {
    this.config = deps.config ?? DEFAULT_LOOP_CONFIG;
    this.clock = deps.clock ?? systemClock;
    this.hooks = deps.hooks ?? {};
    const clock = this.clock;
    this.events = new EventEmitter(input.runId, deps.events, () => clock.now());
    this.control = deps.control ?? new RunControl();
    this.linked = linkSignals([this.control.signal, this.deadline.signal, ...(deps.signal ? [deps.signal] : [])]);
    this.signal = this.linked.signal;
    this.callIds = callIdsIn(input.messages);
    this.models = new ModelStep({
      runId: input.runId,
      callIds: this.callIds,
      deps,
      config: this.config,
      clock,
      hooks: this.hooks,
      events: this.events,
      contextManager: new ContextManager(this.config),
      strategies: { ...DEFAULT_RETRY_STRATEGIES, ...deps.retryStrategies },
      signal: this.signal,
      modelFailed: (iteration, failure, model, message) => this.modelFailed(iteration, failure, model, message),
    });
    this.startedAt = this.clock.now();
  }

  async run(): Promise<AgentLoopResult> {
    this.events.emit({ type: 'execution_start' });
    this.events.emit({ type: 'state_change', state: 'running' });
    const deadlineTimer = new AbortController();
    void this.clock.sleep(this.config.turnDeadlineMs, deadlineTimer.signal).then(
      () => this.deadline.abort(new Error('turn deadline reached')),
      () => undefined,
    );
    try {
      const result = await this.loop();
      this.events.emit({
        type: 'state_change',
        state: result.stopReason === 'cancelled' ? 'cancelled' : 'finished',
        reason: result.stopReason,
      });
      this.events.emit({ type: 'execution_end', result });
      return result;
    } finally {
      // An explicit reason: without one, abort() builds a DOMException (a stack trace) per run.
      deadlineTimer.abort(DEADLINE_TIMER_DONE);
      this.linked.dispose();
    }
  }

  private get deadlineAt(): number {
    return this.startedAt + this.config.turnDeadlineMs;
  }

  private stoppedBySignal(): StopReason | undefined {
    if (this.deadline.signal.aborted) return 'deadline';
    if (this.signal.aborted) return 'cancelled';
    return undefined;
  }

  private async loop(): Promise<AgentLoopResult> {
    for (let iteration = 1; iteration <= this.config.maxTurns; iteration++) {
      await waitIfPaused(iteration, this.hooks, this.control, this.events, this.signal);
      const interrupted = this.stoppedBySignal() ?? this.interruptNow();
      if (interrupted) return this.finish(interrupted);
      await this.takeIncoming(iteration);
      const iterationStarted = this.clock.now();

      const outcome = await this.models.call(iteration, [...this.input.messages, ...this.produced], 'auto');
      if (!outcome.ok) {
        const stop =
          this.stoppedBySignal() ??
          (outcome.error.kind === 'context_overflow'
            ? 'context_overflow'
            : outcome.error.kind === 'cancelled'
              ? 'cancelled'
              : 'model_error');
        return this.finish(stop, undefined, {
          kind: outcome.error.kind,
          message: outcome.error.message,
          ...(outcome.failures.length ? { failure: outcome.failures.at(-1)! } : {}),
        });
      }
      const repaired = repairModelMessage(
        withUsableCallIds(outcome.response.message, this.callIds, this.input.runId, iteration),
      );
      const response = { ...outcome.response, message: repaired.message };
      this.textRepairs = [
        ...(outcome.response.diagnostics ?? []).map((detail) => ({
          source: 'model' as const,
          field: 'content' as const,
          detail,
        })),
        ...repaired.repairs,
      ];
      // The model's message is complete now: say so before any of its tool calls start.
      this.events.emit({ type: 'message_end', iteration, message: response.message, usage: response.usage });
      this.turns += 1;
      this.usage = addUsage(this.usage, response.usage);
      const message: AssistantMessage = response.message;
      this.produced.push(message);
      const calls = message.toolCalls ?? [];
      const feedback = response.protocolFeedback;
      const replyFailure =
        feedback && calls.length === 0
          ? MALFORMED_OUTPUT
          : response.finishReason === 'content_filter'
            ? MODEL_REFUSAL
            : undefined;
      if (replyFailure)
        this.modelFailed(
          iteration,
          replyFailure,
          `${outcome.model.provider}/${outcome.model.model}`,
          response.finishReason,
        );
      this.replyFailure = replyFailure;

      if (this.deps.stopWhen?.({ iteration, response })) {
        this.produced.push(
          ...closeUnanswered(calls, new Set(), 'skipped', 'STOP_CONDITION', 'the run ended before this call ran.'),
        );
        await this.record(iteration, outcome, [], iterationStarted);
        return this.finish('stop_condition', message.content ?? '');
      }
      if (feedback && calls.length === 0) {
        // The model's reply did not follow the text protocol: tell it why, as the next observation.
        this.produced.push({ role: 'user', content: feedback, synthetic: true });
        await this.record(iteration, outcome, [], iterationStarted);
        continue;
      }
      if (calls.length === 0) {
        const content = message.content ?? '';
        const verdict = await this.checkAnswer(iteration, content);
        if (verdict.accept) {
          await this.record(iteration, outcome, [], iterationStarted);
          return this.finish('final_answer', content, undefined, [], verdict.output);
        }
        this.refusedAnswers += 1;
        const answerCheck = {
          verdict: verdict.retry ? ('retry' as const) : ('rejected' as const),
          issues: verdict.issues,
        };
        // A system message: the user did not write it, and the request view keeps it when it trims.
        if (verdict.retry) this.produced.push({ role: 'system', content: verdict.feedback });
        await this.record(iteration, outcome, [], iterationStarted, answerCheck);
        if (verdict.retry) continue;
        return this.finish('invalid_output', content, {
          kind: 'invalid_output',
          message: verdict.feedback,
          issues: verdict.issues,
        });
      }

      const results = await runToolBatch(calls, {
        runId: this.input.runId,
        iteration,
        deadlineAt: this.deadlineAt,
        signal: this.signal,
        config: this.config,
        clock: this.clock,
        tools: this.deps.tools,
        hooks: this.hooks,
        events: this.events,
        seenCalls: this.seenCalls,
        callsSoFar: this.records.length,
      });
      this.produced.push(...results.map((r) => r.message));
      this.records.push(...toolCallRecords(iteration, results, response.usage, this.config.argumentSummaryChars));
      await this.record(iteration, outcome, results, iterationStarted);

      const stop = this.stoppedBySignal();
      if (stop) return this.finish(stop);
      const pending = results.flatMap((r) => (r.pending ? [r.pending] : []));
      if (pending.length) return this.finish('agent_waiting', stopMessages.agentWaiting(pending), undefined, pending);
      if (results.every((r) => r.repeated)) return this.finishWithSummary('repeat_guard');
    }
    return this.finishWithSummary('max_turns');
  }

  /** Messages that joined the run (deps.incoming), added before this iteration's model call. */
  private async takeIncoming(iteration: number): Promise<void> {
    if (!this.deps.incoming) return;
    try {
      this.produced.push(...(await this.deps.incoming({ iteration })));
    } catch {
      // The caller's own failure: it stops the run through its control if it must.
    }
  }

  /** The safe point: between steps, every tool call of the last one answered. */
  private interruptNow(): 'interrupted' | undefined {
    return this.control.interruptRequested && (this.deps.mayInterrupt?.() ?? true) ? 'interrupted' : undefined;
  }

  /** The caller's check of a final answer; without one, or when it throws, the answer is accepted. */
  private async checkAnswer(iteration: number, content: string): Promise<AnswerVerdict> {
    if (!this.hooks.checkAnswer) return { accept: true };
    try {
      return await this.hooks.checkAnswer({ iteration, content, refused: this.refusedAnswers });
    } catch (err) {
      this.events.emit({ type: 'hook_error', hook: 'checkAnswer', message: (err as Error)?.message ?? String(err) });
      return { accept: true };
    }
  }

  private modelFailed(iteration: number, failure: StepFailure, model: string, message: string): void {
    this.events.emit({ type: 'step_failed', iteration, step: 'model', failure, model, message });
  }

  private async record(
    iteration: number,
    outcome: Extract<ModelCallOutcome, { ok: true }>,
    results: readonly CallResult[],
    startedAt: number,
    answerCheck?: IterationRecord['answerCheck'],
  ): Promise<void> {
    const record = iterationRecord({
      iteration,
      outcome,
      results,
      durationMs: this.clock.now() - startedAt,
      replyFailure: this.replyFailure,
      textRepairs: this.textRepairs,
      ...(answerCheck ? { answerCheck } : {}),
    });
    this.replyFailure = undefined;
    this.textRepairs = [];
    this.transcript.push(record);
    this.events.emit({ type: 'iteration_complete', iteration, usage: record.usage, durationMs: record.durationMs });
    if (this.hooks.stepFinished) {
      try {
        await this.hooks.stepFinished({ record });
      } catch (err) {
        this.events.emit({ type: 'hook_error', hook: 'stepFinished', message: (err as Error)?.message ?? String(err) });
      }
    }
  }

  /** After the turn limit or the repeat guard: one more call, without tools, asking for an answer. */
  private async finishWithSummary(reason: 'max_turns' | 'repeat_guard'): Promise<AgentLoopResult> {
    const interrupted = this.stoppedBySignal();
    if (interrupted) return this.finish(interrupted);
    const outcome = await this.models.call(
      this.turns + 1,
      [...this.input.messages, ...this.produced],
      'none',
      this.config.finalAnswerInstruction,
    );
    if (!outcome.ok) return this.finish(reason, stopMessages.noFinalAnswer);
    this.events.emit({
      type: 'message_end',
      iteration: this.turns + 1,
      message: outcome.response.message,
      usage: outcome.response.usage,
    });
    this.turns += 1;
    this.usage = addUsage(this.usage, outcome.response.usage);
    this.produced.push(outcome.response.message);
    await this.record(this.turns, outcome, [], this.clock.now());
    return this.finish(reason, outcome.response.message.content ?? stopMessages.noFinalAnswer);
  }

  private finish(
    stopReason: StopReason,
    response?: string,
    error?: LoopResult['error'],
    pending: PendingAgent[] = [],
    output?: unknown,
  ): AgentLoopResult {
    this.produced.push(...danglingCallResults(this.produced, this.deadline.signal.aborted));
    if (pending.length)
      this.events.emit({
        type: 'state_change',
        state: pending.some((p) => p.waitingFor === 'approval') ? 'waiting_for_approval' : 'waiting_for_input',
      });
    return loopResult({
      runId: this.input.runId,
      stopReason,
      response,
      error,
      pending,
      output,
      turns: this.turns,
      usage: this.usage,
      durationMs: this.clock.now() - this.startedAt,
      toolCalls: this.records,
      messages: [...this.produced],
      transcript: this.transcript,
    });
  }
}

/** Runs the ReAct loop for one turn and returns its result; it never throws for model or tool failures. */
export function runAgentLoop(input: LoopInput, deps: LoopDependencies): Promise<AgentLoopResult> {
  return new LoopRun(input, deps).run();
}
