import type { ChatMessage } from '@platform/contracts';
import type { AnswerIssue, IterationRecord } from './loop-result.js';
import type { ModelRequest, ModelResponse } from './model-port.js';
import type { ToolCallRequest, ToolOutcome } from './tool-port.js';

/** What `beforeTool` may decide for one call. */
type BeforeToolDecision =
  undefined | { arguments: Record<string, unknown> } | { skip: string } | { result: ToolOutcome };

/**
 * What `checkAnswer` decides about a final answer: accept it (with the value read from it, kept as
 * the result's `output`), or refuse it: `retry` sends `feedback` to the model as the next message
 * (a system message, kept in the turn's messages) and goes on; otherwise the loop stops with `invalid_output` and the issues.
 */
export type AnswerVerdict =
  { accept: true; output?: unknown } | { accept: false; retry: boolean; feedback: string; issues: AnswerIssue[] };

/**
 * Lifecycle hooks. All are optional and async. A hook that throws is reported as a `hook_error`
 * event and treated safely: `approveTool` then denies, `beforeTool` fails the call, the others
 * leave things as they were.
 */
export interface LoopHooks {
  /** Before each model call; may return a changed request (e.g. other tools, another model). */
  beforeModelCall?(context: { iteration: number; request: ModelRequest }): Promise<ModelRequest | undefined>;
  /** After each model call; may return a changed response. */
  afterModelCall?(context: {
    iteration: number;
    request: ModelRequest;
    response: ModelResponse;
  }): Promise<ModelResponse | undefined>;
  /** Before a call runs: change its arguments, skip it, or supply its result. */
  beforeTool?(context: { iteration: number; call: ToolCallRequest }): Promise<BeforeToolDecision>;
  /** Approval gate; a refusal gives the call a `denied` result with the reason. */
  approveTool?(context: {
    iteration: number;
    call: ToolCallRequest;
  }): Promise<{ approved: true } | { approved: false; reason: string }>;
  /** After a call ran; may return a changed outcome. */
  afterTool?(context: {
    iteration: number;
    call: ToolCallRequest;
    outcome: ToolOutcome;
  }): Promise<ToolOutcome | undefined>;
  /** Asked at the start of each iteration; `pause: true` holds the run until it is resumed. */
  pauseCheck?(context: { iteration: number }): Promise<{ pause: boolean; reason?: string }>;
  /** Before the request view is built: may return the messages to build it from. */
  prepareStep?(context: { iteration: number; messages: ChatMessage[] }): Promise<ChatMessage[] | undefined>;
  /**
   * On each final answer (a reply without tool calls), before the loop ends with it. `refused`
   * counts the answers this hook refused earlier in the run, so the hook decides how many
   * retries it allows. A hook that throws accepts the answer.
   */
  checkAnswer?(context: { iteration: number; content: string; refused: number }): Promise<AnswerVerdict>;
  /** After each iteration, with its record. */
  stepFinished?(context: { record: IterationRecord }): Promise<void>;
}

/**
 * A user-supplied stop predicate, checked after each model response. Returning true ends the
 * loop with `stop_condition`; calls of that response are closed with `skipped` results.
 */
export type StopPredicate = (context: { iteration: number; response: ModelResponse }) => boolean;

/** The FINAL_ANSWER marker convention as a stop predicate. */
export function finalAnswerMarker(marker = 'FINAL_ANSWER:'): StopPredicate {
  return ({ response }) => (response.message.content ?? '').includes(marker);
}
