import type { ChatMessage } from '@platform/contracts';
import type { Clock } from './clock.js';
import type { EventSink } from './events.js';
import type { LoopHooks, StopPredicate } from './hooks.js';
import type { LoopConfig } from './loop-config.js';
import type { ModelErrorKind } from './model-errors.js';
import type { JsonSchemaResponseFormat, ModelPort, SamplingParameters } from './model-port.js';
import type { RetryStrategy } from './model-retry.js';
import type { RunControl } from './run-control.js';
import type { ToolPort } from './tool-port.js';

/** What a run of the loop works with: its model and tools, and how it is configured, watched and controlled. */
export interface LoopDependencies {
  model: ModelPort;
  /** Tried in order when the model fails in a way its retry strategy cannot recover. */
  fallbackModels?: readonly ModelPort[];
  tools: ToolPort;
  config?: LoopConfig;
  clock?: Clock;
  events?: EventSink;
  hooks?: LoopHooks;
  stopWhen?: StopPredicate;
  /** Pause, resume, interrupt and cancel from outside. */
  control?: RunControl;
  /**
   * Whether an interrupt may stop the loop now (checked at each step boundary, before a model
   * call); absent = always. A caller replaying a journal answers false while it replays, so the
   * completed steps are rebuilt before the run stops.
   */
  mayInterrupt?: () => boolean;
  /** Another way to cancel (e.g. the caller's request signal). */
  signal?: AbortSignal;
  /** Overrides of the per-kind retry strategies. */
  retryStrategies?: Partial<Record<ModelErrorKind, RetryStrategy>>;
  /** Stream model text as message_chunk events. */
  stream?: boolean;
  /** Structured output asked of every model call (the answer's shape; hooks.checkAnswer checks it). */
  responseFormat?: JsonSchemaResponseFormat;
  /**
   * What the model is told instead when its provider refuses `responseFormat` (a
   * ResponseFormatRejectedError): the loop asks again, and for the rest of the run, with this
   * instruction added to the system prompt of its requests (JSON in text) and no responseFormat.
   * Absent: a refusal fails the model call like any bad request.
   */
  textFallback?: string;
  /** Sampling settings sent with every model call (the agent's `modelParameters`). */
  sampling?: SamplingParameters;
  /**
   * Messages to add before the next model call (steering: a user's message that joins the run
   * while it works). Asked at each step boundary of the loop, after the interrupt check and
   * before the model call, so an added message never falls between a tool call and its result;
   * what it answers is appended to the run's messages in order and the model sees it in that call.
   * It should answer at once when nothing is waiting (it is asked before every model call). One
   * that throws stops nothing: the loop goes on without messages (the caller decides what a
   * failure means, e.g. it cancels the run through its control).
   */
  incoming?: (context: { iteration: number }) => Promise<readonly ChatMessage[]> | readonly ChatMessage[];
}
