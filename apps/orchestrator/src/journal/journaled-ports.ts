import type {
  ModelPort,
  ModelRequest,
  ModelResponse,
  ToolCallContext,
  ToolCallRequest,
  ToolDescription,
  ToolOutcome,
  ToolPort,
} from '@platform/agent-loop';
import type { JournaledSteps } from './run-steps.js';

/** Where journal writes go: the run's steps, fenced by the holder's epoch. */
export interface StepWriter {
  /**
   * Model responses by ordinal (the newest last, earlier ones held back), with the outcomes held
   * back since the last write (side-effect-free calls), in one write.
   */
  recordModels(
    models: ReadonlyArray<readonly [number, ModelResponse]>,
    heldTools: ReadonlyArray<readonly [string, ToolOutcome]>,
  ): Promise<void>;
  recordTool(callId: string, outcome: ToolOutcome): Promise<void>;
}

/**
 * Replays a run's journal and journals what is new. On a resume, the loop runs again from the
 * start: model calls are answered from the journal in order and tool calls with a journaled
 * outcome return it, so completed work is not repeated; the first step past the journal is
 * live again. A call that was in flight when the last holder died has no outcome and is sent
 * again with the same call id (runners dedupe side effects on it).
 *
 * Outcomes of calls with side effects (`idempotent`, `external`, or unknown) are journaled before
 * the loop goes on, and so is the response that asked for them (its call ids must survive a
 * crash). Outcomes of side-effect-free calls (`none`), and a response that asks only for such
 * calls, are written with the next model response, in the same statement: if the process dies in
 * between, the resume asks the model again and runs those calls again, which by definition
 * changes nothing.
 */
export class RunReplay {
  /** A journal write that failed: the attempt stops (see {@link onWriteFailure}). */
  private writeFailure: Error | undefined;
  private readonly failureListeners: Array<(error: unknown) => void> = [];
  private nextModel = 0;
  private heldModels: Array<readonly [number, ModelResponse]> = [];
  private held: Array<readonly [string, ToolOutcome]> = [];
  private toolPort: ToolPort | undefined;
  private replayingModels: boolean;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly journal: JournaledSteps,
    private readonly writer: StepWriter,
  ) {
    this.replayingModels = journal.models.length > 0;
  }

  /** True while answers still come from the journal (events of this part were published before). */
  get replaying(): boolean {
    return this.replayingModels;
  }

  /**
   * Called once, when a journal write fails. The attempt must stop then: the loop would otherwise
   * read the failed write as a failed tool call (or model call) and go on, and the model could
   * repeat an action that did happen. After a failure every model or tool call through this
   * replay fails at once; the run resumes from the journal in a later attempt.
   */
  onWriteFailure(listener: (error: unknown) => void): void {
    this.failureListeners.push(listener);
  }

  /** A journal write, stopping the attempt when it fails. */
  private async write(journalWrite: () => Promise<void>): Promise<void> {
    try {
      await journalWrite();
    } catch (error) {
      this.writeFailure ??= error instanceof Error ? error : new Error(String(error));
      for (const listener of this.failureListeners.splice(0)) listener(error);
      throw error;
    }
  }

  private checkWritable(): void {
    if (this.writeFailure !== undefined) throw this.writeFailure;
  }

  /** Called once, when the run goes past its journal. */
  onLive(listener: () => void): void {
    if (!this.replayingModels) listener();
    else this.listeners.push(listener);
  }

  private goLive(): void {
    if (!this.replayingModels) return;
    this.replayingModels = false;
    for (const listener of this.listeners.splice(0)) listener();
  }

  /** Wraps a model (primary or fallback: they share one journal cursor). */
  model(inner: ModelPort): ModelPort {
    return {
      provider: inner.provider,
      model: inner.model,
      complete: async (request: ModelRequest): Promise<ModelResponse> => {
        const journaled = this.journal.models[this.nextModel];
        if (journaled) {
          this.nextModel += 1;
          if (this.nextModel === this.journal.models.length && !this.hasUnansweredCalls(journaled)) this.goLive();
          return journaled;
        }
        this.goLive();
        this.checkWritable();
        const response = await inner.complete(request);
        this.nextModel += 1;
        this.heldModels.push([this.nextModel, response]);
        if (this.asksOnlySideEffectFreeCalls(response)) return response;
        const models = this.heldModels;
        const held = this.held;
        this.heldModels = [];
        this.held = [];
        await this.write(() => this.writer.recordModels(models, held));
        return response;
      },
    };
  }

  /** The last journaled response may have asked for calls still to run: those calls are live work. */
  private hasUnansweredCalls(response: ModelResponse): boolean {
    return (response.message.toolCalls ?? []).some((c) => !this.journal.tools.has(c.id));
  }

  /**
   * Plain tools that declare no side effects. Never an agent-tool: starting one creates an entry
   * in the agent pool under its call id, which a response asked again may not reuse.
   */
  private asksOnlySideEffectFreeCalls(response: ModelResponse): boolean {
    const calls = response.message.toolCalls ?? [];
    return (
      calls.length > 0 &&
      calls.every((call) => {
        const tool = this.describe(call.name);
        return tool?.sideEffect === 'none' && tool.kind !== 'agent';
      })
    );
  }

  private describe(name: string): ToolDescription | undefined {
    const port = this.toolPort;
    return port?.lookup?.(name) ?? port?.list().find((t) => t.name === name);
  }

  tools(inner: ToolPort): ToolPort {
    this.toolPort = inner;
    return {
      list: () => inner.list(),
      ...(inner.lookup ? { lookup: (name: string) => inner.lookup!(name) } : {}),
      // A known tool this run may not use is denied TOOL_NOT_ALLOWED, not unknown: the refusal passes through.
      ...(inner.refuse ? { refuse: (name: string) => inner.refuse!(name) } : {}),
      execute: async (call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> => {
        const journaled = this.journal.tools.get(call.id);
        if (journaled) return journaled;
        this.goLive();
        this.checkWritable();
        const outcome = await inner.execute(call, context);
        if (this.describe(call.name)?.sideEffect === 'none') this.held.push([call.id, outcome]);
        else await this.write(() => this.writer.recordTool(call.id, outcome));
        return outcome;
      },
    };
  }
}
