import type { ChatMessage } from '@platform/contracts';
import { streamedCallIds } from './call-ids.js';
import type { Clock } from './clock.js';
import type { ContextManager } from './context-manager.js';
import type { EventEmitter } from './events.js';
import type { StepFailure } from './failures.js';
import { hookedModel } from './hooked-model.js';
import type { LoopHooks } from './hooks.js';
import type { LoopConfig } from './loop-config.js';
import type { LoopDependencies } from './loop-dependencies.js';
import { callModelWithRecovery, type ModelCallOutcome } from './model-call.js';
import { ResponseFormatRejectedError, type ModelErrorKind } from './model-errors.js';
import type { ModelRequest, ToolCallDelta } from './model-port.js';
import type { RetryStrategy } from './model-retry.js';
import { buildRequestView, type RequestView, type ViewStage, type ViewTarget } from './request-view.js';
import { withSystemInstruction } from './system-instruction.js';

/** What a run's model steps share: its dependencies, settings and signal, and where failures are told. */
export interface ModelStepContext {
  runId: string;
  /** Tool call ids the conversation has used (see withUsableCallIds): streamed calls are told by the ids they keep. */
  callIds: ReadonlySet<string>;
  deps: LoopDependencies;
  config: LoopConfig;
  clock: Clock;
  hooks: LoopHooks;
  events: EventEmitter;
  contextManager: ContextManager;
  strategies: Readonly<Record<ModelErrorKind, RetryStrategy>>;
  signal: AbortSignal;
  /** A failed model call, classified (the loop emits `step_failed`). */
  modelFailed: (iteration: number, failure: StepFailure, model: string, message: string) => void;
}

/**
 * The model calls of one run: each builds its request view from the raw messages (after the
 * `prepareStep` hook), offers the tools (or none), streams text as `message_chunk` events and tool
 * call arguments as `tool_call_args_delta` events when the run streams, and recovers by the retry strategies (model-call.ts). Once the provider refuses
 * structured output, this run asks for JSON in text from then on.
 */
export class ModelStep {
  /** Set once the provider refused structured output: the instruction that asks for JSON in text. */
  private textFallback: string | undefined;

  constructor(private readonly ctx: ModelStepContext) {}

  async call(
    iteration: number,
    raw: ChatMessage[],
    toolChoice: 'auto' | 'none',
    instruction?: string,
  ): Promise<ModelCallOutcome> {
    const { deps, hooks, events } = this.ctx;
    let base: ChatMessage[] = raw;
    if (hooks.prepareStep && toolChoice === 'auto') {
      try {
        base = (await hooks.prepareStep({ iteration, messages: raw })) ?? raw;
      } catch (err) {
        events.emit({ type: 'hook_error', hook: 'prepareStep', message: (err as Error)?.message ?? String(err) });
      }
    }
    const tools =
      toolChoice === 'auto'
        ? deps.tools.list().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
        : [];
    const models = [deps.model, ...(deps.fallbackModels ?? [])].map((m) => hookedModel(m, hooks, iteration, events));
    events.emit({ type: 'message_start', iteration });
    const outcome = await callModelWithRecovery({
      models,
      buildView: (stage: ViewStage, target: ViewTarget): RequestView => {
        const built = buildRequestView(base, target, stage, this.ctx.contextManager, this.ctx.config);
        const view = this.textFallback
          ? { ...built, messages: withSystemInstruction(built.messages, this.textFallback) }
          : built;
        return instruction ? { ...view, messages: [...view.messages, { role: 'user', content: instruction }] } : view;
      },
      buildRequest: (view) => ({
        messages: view.messages,
        tools,
        toolChoice,
        signal: this.ctx.signal,
        ...(deps.responseFormat && !this.textFallback ? { responseFormat: deps.responseFormat } : {}),
        ...(deps.sampling ? { sampling: deps.sampling } : {}),
        ...(deps.stream ? this.streaming(iteration) : {}),
      }),
      strategies: this.ctx.strategies,
      config: this.ctx.config,
      clock: this.ctx.clock,
      signal: this.ctx.signal,
      onRecovery: ({ error, decision, model, failure }) => {
        if (failure) this.ctx.modelFailed(iteration, failure, model, error.message);
        events.emit({ type: 'state_change', state: 'retrying_model', reason: `${model}: ${error.kind} (${decision})` });
      },
    });
    // The provider refused structured output: ask again, and from now on, for JSON in text.
    if (outcome.ok || !(outcome.error instanceof ResponseFormatRejectedError) || this.textFallback) return outcome;
    if (!deps.textFallback || this.ctx.signal.aborted) return outcome;
    this.textFallback = deps.textFallback;
    events.emit({ type: 'state_change', state: 'retrying_model', reason: 'structured output refused: JSON in text' });
    return this.call(iteration, raw, toolChoice, instruction);
  }

  /** The listeners of one streamed model call (a retried call streams afresh, its ids settled anew). */
  private streaming(iteration: number): Pick<ModelRequest, 'onTextDelta' | 'onToolCallDelta'> {
    const { events } = this.ctx;
    const idOf = streamedCallIds(this.ctx.callIds, this.ctx.runId, iteration);
    return {
      onTextDelta: (delta: string) => events.emit({ type: 'message_chunk', iteration, delta }),
      onToolCallDelta: (delta: ToolCallDelta) =>
        events.emit({
          type: 'tool_call_args_delta',
          iteration,
          index: delta.index,
          callId: idOf(delta.index, delta.id),
          name: delta.name,
          delta: delta.arguments,
        }),
    };
  }
}
