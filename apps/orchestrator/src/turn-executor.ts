import {
  RunControl,
  runAgentLoop,
  ZERO_USAGE,
  type LoopEvent,
  type LoopResult,
  type ToolPort,
} from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { Logger, NatsConnection, PromiseClient } from '@platform/service-kit';
import { recordTenantTokens, recordTurn } from '@platform/telemetry';
import type { ToolCatalog } from '@platform/tool-sdk';
import type { OrchestratorConfig } from './config.js';
import { RunEventPublisher } from './events/run-event-publisher.js';
import type { ChildRuns } from './teams/child-runs.js';
import { toolScopeOf } from './teams/child-tool-scope.js';
import { DelegationToolPort } from './teams/delegation-tools.js';
import type { PlanExecutor } from './teams/plan/plan-execute.js';
import { RunReplay } from './journal/journaled-ports.js';
import { LeaseLostError, type ClaimedRun, type RunRecord, type RunRecords } from './journal/run-records.js';
import type { RunSteps } from './journal/run-steps.js';
import type { HeldLease } from './ordering/conversation-lease.js';
import type { LeaseHeartbeat } from './ordering/lease-heartbeat.js';
import { NO_AGENT_RESULTS, withAgentResults } from './agents/agent-results.js';
import { expiryNoticeResult } from './agents/expiry-notice.js';
import type { PoolAgents } from './agents/pool-agents.js';
import type { MemoryRecall } from './recall/memory-recall.js';
import type { PendingAgentStep } from './agents/pending-agents.js';
import { prepareContext } from './context/prepare-context.js';
import { reportFailure, reportLoopFailure, SYSTEM_FAILURES } from './turn/failure-report.js';
import type { FinishedTurnPublisher } from './events/publish-finished-turn.js';
import type { TriggeredRunPublisher } from './events/publish-triggered-run.js';
import type { ShouldProcess } from './admission/should-process.js';
import type { AgentProfile, ProfileRegistry } from './profiles.js';
import { isOutage } from './run-outage.js';
import { runStatus } from './run-status.js';
import { RunnerToolPort } from './runner-tool-port.js';
import type { ToolGate } from './tool-gate/tool-gate.js';

export interface TurnExecutorDependencies {
  config: OrchestratorConfig;
  owner: string;
  profiles: ProfileRegistry;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  catalog: ToolCatalog;
  records: RunRecords;
  /** Renews the leases of every run this replica executes, with one ticker and one statement per interval. */
  heartbeat: LeaseHeartbeat;
  steps: RunSteps;
  nc: NatsConnection;
  shouldProcess: ShouldProcess;
  pendingAgents: PendingAgentStep;
  /** Agent-tool calls go to the agent pool. */
  agents: PoolAgents;
  /** The tool gate every tool call of this process passes (allowlist, approval, breakers, grants, dedupe). */
  gate: ToolGate;
  /** The prepare-context recall step (long-term memory into the system prompt). */
  memoryRecall: MemoryRecall;
  /** Hands each finished turn to long-term memory (off the turn's path); absent = ingestion off. */
  finishedTurns?: FinishedTurnPublisher;
  /** Publishes the end of runs that trigger tasks started (absent: nobody listens). */
  triggeredRuns?: TriggeredRunPublisher;
  /** Child runs for delegations to roles; absent = profiles' roles are not offered. */
  childRuns?: ChildRuns;
  /** The plan-and-execute strategy; absent = such profiles run the ReAct loop. */
  plans?: PlanExecutor;
  logger: Logger;
}

/**
 * One attempt at a run: abandoned when it may not go on (its lease was lost, a journal write
 * failed, or the process stops), which stops its loop. Nothing more of it is written or
 * published; the run stays live and resumes from its journal in the next attempt.
 */
class AttemptState {
  abandoned: string | undefined;
  /** The run is still this process's to hand over: its lease is released at once, not left to run out. */
  handOver = false;

  constructor(readonly control: RunControl) {}

  abandon(reason: string, options: { handOver?: boolean } = {}): void {
    if (this.abandoned) return;
    this.abandoned = reason;
    this.handOver = options.handOver ?? false;
    this.control.cancel(reason);
  }
}

/** A result the loop never produced (a profile gone, the pending-agent step answering). */
function syntheticResult(
  runId: string,
  stopReason: LoopResult['stopReason'],
  response: string,
  error?: LoopResult['error'],
): LoopResult {
  return {
    runId,
    response,
    stopReason,
    turns: 0,
    usage: ZERO_USAGE,
    durationMs: 0,
    pendingAgents: [],
    toolCalls: [],
    messages: [],
    transcript: [],
    ...(error ? { error } : {}),
  };
}

/**
 * Runs one claimed run through the pipeline: pending-agent step, prepare context (first attempt
 * only; a resume uses the journaled input), the ReAct loop over the journal, post-process. While
 * it works the replica's lease heartbeat renews the run's lease and the conversation's lease;
 * losing the run's stops it without writing anything more (the new holder finishes the run).
 */
export class TurnExecutor {
  private readonly active = new Map<string, AttemptState>();

  constructor(private readonly deps: TurnExecutorDependencies) {}

  /** Cancels a run this process is executing; false when it runs elsewhere (or not at all). */
  cancelLocal(runId: string, reason: string): boolean {
    const attempt = this.active.get(runId);
    attempt?.control.cancel(reason);
    return attempt !== undefined;
  }

  /**
   * Stops every run this process executes without writing more of it, and hands each over: its
   * lease is released, so another replica resumes it from its journal at once (shutdown).
   */
  abandonAll(reason: string): number {
    for (const attempt of this.active.values()) attempt.abandon(reason, { handOver: true });
    return this.active.size;
  }

  /** Runs it to the end; returns the finished run, or undefined when another holder took it over. */
  async execute(run: ClaimedRun, lease: HeldLease): Promise<RunRecord | undefined> {
    const { logger } = this.deps;
    const control = new RunControl();
    const attempt = new AttemptState(control);
    this.active.set(run.runId, attempt);
    const untrack = this.deps.heartbeat.track({
      run,
      lease,
      onCancelRequested: () => control.cancel('cancelled by request'),
      onLost: (err) => {
        logger.warn({ runId: run.runId, err: err.message }, 'lost the run lease; stopping without writing');
        attempt.abandon('lease lost');
      },
    });
    if (run.cancelRequested) control.cancel('cancelled by request');
    try {
      const events = await RunEventPublisher.open(this.deps.nc, run.runId, {
        resumed: run.attempts > 1,
        includeChunks: run.stream,
        logger,
      });
      const { result, end } = await this.runPipeline(run, control, events, attempt);
      if (attempt.abandoned) {
        if (attempt.handOver)
          await this.deps.records
            .releaseLease(run, this.deps.owner)
            .catch((err: unknown) =>
              logger.warn(
                { runId: run.runId, err: (err as Error).message },
                'could not release the run lease; it runs out instead',
              ),
            );
        logger.warn(
          { runId: run.runId, attempt: run.attempts, reason: attempt.abandoned, handedOver: attempt.handOver },
          'attempt abandoned; the run resumes from its journal',
        );
        return undefined;
      }
      const finished = await this.postProcess(run, result);
      // `execution_end` goes out once the run is recorded, so a client that sees it can read the run.
      events.sink(end ?? { type: 'execution_end', result, runId: run.runId, seq: 0, at: Date.now() });
      // The run's events are handed to the NATS connection now, ahead of the answer. Neither the
      // answer nor anything else waits for the server to confirm it read them: that round trip sat
      // on every turn's critical path once, and off it still cost every turn a ping and a pong
      // (a write and a wake-up on each side). A publish the client refuses is logged; events lost
      // with a dropped connection are not republished (the run's outcome is in Postgres).
      events.sendNow();
      return finished;
    } catch (err) {
      if (err instanceof LeaseLostError || attempt.abandoned) {
        logger.warn({ runId: run.runId }, 'run taken over by another orchestrator');
        return undefined;
      }
      if (isOutage(err)) {
        const { RUN_RETRY_BACKOFF_MS, TURN_TIMEOUT_MS } = this.deps.config;
        await this.deps.records
          .deferAfterOutage(run, this.deps.owner, RUN_RETRY_BACKOFF_MS, TURN_TIMEOUT_MS)
          .catch(() => undefined);
        logger.warn(
          { runId: run.runId, attempt: run.attempts, err: (err as Error).message },
          'a dependency is unreachable; the run is taken up again shortly',
        );
        reportFailure(logger, { runId: run.runId, profile: run.profile }, SYSTEM_FAILURES.outage, {
          attempt: run.attempts,
          err: (err as Error).message,
        });
      }
      throw err;
    } finally {
      untrack();
      this.active.delete(run.runId);
      this.deps.memoryRecall.release(run.runId);
    }
  }

  private async runPipeline(
    run: ClaimedRun,
    control: RunControl,
    events: RunEventPublisher,
    attempt: AttemptState,
  ): Promise<{ result: LoopResult; end?: LoopEvent }> {
    if (run.kind === 'agent_expired') return { result: expiryNoticeResult(run.runId, run.content) };
    if (run.attempts > this.deps.config.MAX_RUN_ATTEMPTS) {
      const message = `the run failed ${run.attempts - 1} times (each holder stopped or crashed before finishing); giving up`;
      reportFailure(this.deps.logger, run, SYSTEM_FAILURES.tooManyAttempts, { attempt: run.attempts });
      return {
        result: syntheticResult(run.runId, 'model_error', message, {
          kind: 'too_many_attempts',
          message,
          failure: SYSTEM_FAILURES.tooManyAttempts,
        }),
      };
    }
    const profile = this.deps.profiles.resolve(run.profile);
    if (!profile) {
      const message = `the agent profile '${run.profile}' no longer exists`;
      reportFailure(this.deps.logger, run, SYSTEM_FAILURES.profileMissing);
      return {
        result: syntheticResult(run.runId, 'model_error', message, {
          kind: 'profile_missing',
          message,
          failure: SYSTEM_FAILURES.profileMissing,
        }),
      };
    }
    const decision = await this.deps.pendingAgents.beforeLoop(run, profile.model, (type, data) =>
      events.publish(type, data),
    );
    if (decision.kind === 'answer') {
      // Agents still waiting: the run waits with them. None (the decision found its approval
      // already answered, e.g. a second click): the answer says so, and the run is done.
      const stopReason = decision.pending.length ? 'agent_waiting' : 'final_answer';
      const answer = {
        ...syntheticResult(run.runId, stopReason, decision.response),
        messages: [{ role: 'assistant', content: decision.response } as const],
        pendingAgents: decision.pending,
      };
      return { result: withAgentResults(answer, decision.agents) };
    }
    const agents = decision.kind === 'run_loop_with_agent_results' ? decision.agents : NO_AGENT_RESULTS;
    if (profile.strategy === 'plan-and-execute' && profile.planning && this.deps.plans) {
      // The plan-and-execute step (pipeline/plan/) instead of the ReAct loop.
      const planned = await this.deps.plans.run({
        run,
        profile,
        planning: profile.planning,
        signal: control.signal,
        events: (type, data) => events.publish(type, data),
        handingOver: () => attempt.abandoned !== undefined,
      });
      return { result: withAgentResults(planned, agents) };
    }

    const runnerTools = new RunnerToolPort(this.deps.gate, {
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      allowsTool: toolScopeOf(profile, run),
      ...(run.lineage?.tools ? { subtaskScope: run.lineage.tools } : {}),
      agents: this.deps.agents,
      ...(run.source ? { source: run.source } : {}),
    });
    const { childRuns, config } = this.deps;
    const tools: ToolPort =
      childRuns && (profile.delegates.length || profile.committees.length)
        ? new DelegationToolPort(
            runnerTools,
            childRuns,
            this.deps.profiles,
            {
              maxDepth: config.MAX_DELEGATION_DEPTH,
              defaultTimeoutMs: config.DELEGATION_TIMEOUT_MS,
              defaultTier: config.DEFAULT_TIER,
            },
            {
              run,
              delegates: profile.delegates,
              committees: profile.committees,
              events: (type, data) => events.publish(type, data),
              handingOver: () => attempt.abandoned !== undefined,
              userDecisions: this.deps.agents,
            },
          )
        : runnerTools;
    const input = run.input ?? (await this.firstInput(run, profile, tools, agents.messages));
    const resumed = run.attempts > 1;
    const journal = resumed ? await this.deps.steps.load(run.runId) : { models: [], tools: new Map() };
    const replay = new RunReplay(journal, {
      // The write holding a fresh attempt's first response also keeps the input it was asked with.
      recordModels: (models, heldTools) =>
        this.deps.steps.recordModels(run, models, {
          heldTools,
          ...(models[0]?.[0] === 1 && !run.input ? { input } : {}),
        }),
      recordTool: (callId, outcome) => this.deps.steps.recordTool(run, callId, outcome),
    });
    replay.onWriteFailure((err) => {
      this.deps.logger.error(
        { runId: run.runId, err: (err as Error).message },
        'a journal write failed; stopping this attempt',
      );
      reportFailure(this.deps.logger, { runId: run.runId, profile: run.profile }, SYSTEM_FAILURES.journalWrite, {
        attempt: run.attempts,
      });
      attempt.abandon('journal write failed');
    });
    if (resumed) {
      this.deps.logger.info(
        {
          runId: run.runId,
          attempt: run.attempts,
          journaledModelSteps: journal.models.length,
          journaledToolSteps: journal.tools.size,
        },
        'resuming run',
      );
      events.publish('state_change', { state: 'running', reason: 'resumed' });
    }
    // The replayed part of a resumed run published its events before; only new work is published.
    let end: Extract<LoopEvent, { type: 'execution_end' }> | undefined;
    const sink = (event: LoopEvent): void => {
      // An abandoned attempt says nothing more: its stop is not the run's (the next attempt goes on).
      if (attempt.abandoned) return;
      if (event.type === 'execution_end') end = event;
      else if (!replay.replaying) {
        events.sink(event);
        reportLoopFailure(this.deps.logger, { runId: run.runId, profile: run.profile }, event);
      }
    };
    const result = await runAgentLoop(
      { runId: run.runId, messages: input },
      {
        model: replay.model(profile.model),
        fallbackModels: profile.fallbackModels.map((m) => replay.model(m)),
        tools: replay.tools(tools),
        config: profile.loopConfig,
        control,
        events: sink,
        stream: run.stream,
      },
    );
    // The agents' exchanges happened before the loop: the turn reports and stores them first.
    const turn = withAgentResults(result, agents);
    return { result: turn, ...(end ? { end: { ...end, result: turn } } : {}) };
  }

  private async firstInput(
    run: ClaimedRun,
    profile: AgentProfile,
    tools: ToolPort,
    agentExchanges: ChatMessage[],
  ): Promise<ChatMessage[]> {
    // Right after a boot (or when every runner was briefly unreachable) the catalog may be empty:
    // discover once now rather than run a turn that offers the model no tools.
    if (this.deps.catalog.list().length === 0) await this.deps.catalog.refresh();
    const prepared = await prepareContext(
      this.deps.memory,
      { messages: this.deps.config.HISTORY_MESSAGES, bytes: this.deps.config.HISTORY_MAX_BYTES },
      {
        runId: run.runId,
        tenantId: run.tenantId,
        conversationId: run.conversationId,
        content: run.content,
        systemPrompt: profile.systemPrompt,
        timeZone: run.timeZone || this.deps.config.DEFAULT_TIMEZONE,
        capabilities: tools.list(),
        now: run.createdAt,
        agentExchanges,
        memoryRecall: this.deps.memoryRecall,
      },
    );
    return prepared.messages;
  }

  /**
   * The post-process step: the turn's raw messages appended to memory exactly once (the run id is
   * the append id, so a resumed run's second append is a no-op), then the run's outcome and the
   * tenant's token usage recorded.
   */
  private async postProcess(run: ClaimedRun, result: LoopResult): Promise<RunRecord> {
    // A run for a user's message records the message first; a platform notice (an expiry) does not.
    const turnMessages: ChatMessage[] =
      run.kind === 'message' ? [{ role: 'user', content: run.content }, ...result.messages] : [...result.messages];
    // What the user was asked when agents wait belongs to the conversation (the next reply answers it).
    if (result.stopReason === 'agent_waiting' && turnMessages.at(-1)?.role !== 'assistant')
      turnMessages.push({ role: 'assistant', content: result.response });
    const appended = await this.deps.memory.appendMessages({
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      messagesJson: turnMessages.map((m) => JSON.stringify(m)),
      runId: run.runId,
      appendId: run.runId,
    });
    void this.deps.finishedTurns?.publish({
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      runId: run.runId,
      profile: run.profile,
      messages: turnMessages,
      firstSeq: appended.firstSeq,
    });
    await this.deps.triggeredRuns?.publish(run, result);
    const finished = await this.deps.records.finish(
      run,
      runStatus(result),
      result,
      this.deps.memoryRecall.reportFor(run.runId, run.input),
    );
    // From the message's arrival: queueing, every attempt and the pipeline, as the user waited.
    recordTurn(
      { profile: run.profile, status: finished.status, stopReason: result.stopReason },
      Math.max(0, Date.now() - run.createdAt.getTime()) / 1000,
    );
    recordTenantTokens(run.tenantId, result.usage.inputTokens, result.usage.outputTokens);
    await this.deps.shouldProcess.recordTokens(run.tenantId, result.usage.totalTokens);
    this.deps.logger.info(
      {
        runId: run.runId,
        profile: run.profile,
        attempt: run.attempts,
        stopReason: result.stopReason,
        turns: result.turns,
        toolCalls: result.toolCalls.length,
      },
      'turn finished',
    );
    return finished;
  }
}
