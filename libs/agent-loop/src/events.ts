import type { AssistantMessage, ToolResultStatus } from '@platform/contracts';
import type { StepFailure } from './failures.js';
import type { LoopResult } from './loop-result.js';
import type { TokenUsage } from './model-port.js';

type RunState =
  'running' | 'paused' | 'waiting_for_input' | 'waiting_for_approval' | 'retrying_model' | 'cancelled' | 'finished';

interface EventBase {
  runId: string;
  /** 1, 2, 3... per run, so a consumer can order and dedupe. */
  seq: number;
  at: number;
}

/** What a run emits while it runs (streamed to clients; names follow the design's event table). */
export type LoopEvent = EventBase &
  (
    | { type: 'execution_start' }
    | { type: 'message_start'; iteration: number }
    | { type: 'message_chunk'; iteration: number; delta: string }
    | { type: 'message_end'; iteration: number; message: AssistantMessage; usage: TokenUsage }
    /**
     * A piece of a tool call's arguments as the model writes them (streaming runs): first when the
     * call appears (`delta` may be empty), then each piece in order; `callId` is the id the call
     * keeps, `index` its position among the message's calls.
     */
    | { type: 'tool_call_args_delta'; iteration: number; index: number; callId: string; name: string; delta: string }
    | { type: 'tool_call_start'; iteration: number; callId: string; name: string; arguments: string }
    | {
        type: 'tool_result';
        iteration: number;
        callId: string;
        name: string;
        status: ToolResultStatus;
        content: string;
        durationMs: number;
        synthetic: boolean;
        failures?: StepFailure[];
      }
    | { type: 'state_change'; state: RunState; reason?: string }
    /** A step failed (failures.ts): a model call (`model` names it) or a tool call (`callId`, `name`). */
    | {
        type: 'step_failed';
        iteration: number;
        step: 'model' | 'tool';
        failure: StepFailure;
        model?: string;
        callId?: string;
        name?: string;
        message?: string;
      }
    | { type: 'iteration_complete'; iteration: number; usage: TokenUsage; durationMs: number }
    | { type: 'hook_error'; hook: string; message: string }
    | { type: 'execution_end'; result: LoopResult }
  );

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type LoopEventInput = DistributiveOmit<LoopEvent, keyof EventBase>;

/** Receives events in order. It must not throw; a throwing sink is ignored, never fatal. */
export type EventSink = (event: LoopEvent) => void;

/** Numbers and timestamps events, and shields the loop from a failing sink. */
export class EventEmitter {
  private seq = 0;
  constructor(
    private readonly runId: string,
    private readonly sink: EventSink | undefined,
    private readonly now: () => number,
  ) {}

  emit(event: LoopEventInput): void {
    if (!this.sink) return;
    this.seq += 1;
    try {
      this.sink({ ...event, runId: this.runId, seq: this.seq, at: this.now() });
    } catch {
      // A consumer's bug must not change the run.
    }
  }
}
