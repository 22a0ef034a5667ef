import type { StepFailure } from './failures.js';
import type { IterationRecord, ToolCallRecord } from './loop-result.js';
import type { ModelCallOutcome } from './model-call.js';
import type { TokenUsage } from './model-port.js';
import { summarizeArguments } from './argument-summary.js';
import type { TextRepair } from './text-repairs.js';
import type { CallResult } from './tool-batch.js';

/** The records of one iteration's tool calls, for the result's `toolCalls`. */
export function toolCallRecords(
  iteration: number,
  results: readonly CallResult[],
  turnUsage: TokenUsage,
  argumentSummaryChars: number,
): ToolCallRecord[] {
  return results.map((r) => ({
    callId: r.call.id,
    name: r.call.name,
    argumentsSummary: summarizeArguments(r.call.arguments, argumentSummaryChars),
    durationMs: r.durationMs,
    success: r.message.status === 'success',
    status: r.message.status,
    ...(r.message.errorCode ? { errorCode: r.message.errorCode } : {}),
    ...(r.failures.length ? { failures: r.failures } : {}),
    synthetic: r.message.synthetic ?? false,
    resultChars: r.resultChars,
    turnUsage,
    iteration,
  }));
}

/** What went into one iteration's record, besides the model call's outcome. */
export interface IterationFacts {
  iteration: number;
  outcome: Extract<ModelCallOutcome, { ok: true }>;
  results: readonly CallResult[];
  durationMs: number;
  /** A failure of the model's reply itself (malformed, refused), after the failed calls before it. */
  replyFailure: StepFailure | undefined;
  /** Repairs of the model's message; the tool results' own are added. */
  textRepairs: readonly TextRepair[];
  answerCheck?: IterationRecord['answerCheck'];
}

/** One iteration's entry of the transcript: the request view, the model output, the tool outcomes. */
export function iterationRecord(facts: IterationFacts): IterationRecord {
  const { iteration, outcome, results } = facts;
  const { response, view, model, retries, fallbackUsed } = outcome;
  const modelFailures = [...outcome.failures, ...(facts.replyFailure ? [facts.replyFailure] : [])];
  const record: IterationRecord = {
    iteration,
    view: {
      messages: view.messages.length,
      estimatedTokens: view.estimatedTokens,
      stage: view.stage,
      diagnostics: view.diagnostics,
    },
    model: {
      provider: model.provider,
      model: model.model,
      finishReason: response.finishReason,
      retries,
      fallbackUsed,
      ...(modelFailures.length ? { failures: modelFailures } : {}),
    },
    output: response.message,
    tools: results.map((r) => ({
      callId: r.call.id,
      name: r.call.name,
      status: r.message.status,
      durationMs: r.durationMs,
      synthetic: r.message.synthetic ?? false,
      ...(r.failures.length ? { failures: r.failures } : {}),
    })),
    usage: response.usage,
    durationMs: facts.durationMs,
  };
  if (facts.answerCheck) record.answerCheck = facts.answerCheck;
  const repairs = [...facts.textRepairs, ...results.flatMap((r) => r.repairs)];
  if (repairs.length) record.textRepairs = repairs;
  return record;
}
