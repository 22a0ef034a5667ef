import { errors, type PlatformError } from '@platform/service-kit';
import { outcomeOf, type RunnerCall } from '../runner-tool-port.js';
import type { ToolCallOutcome } from './tool-call-records.js';
import { ErrorCodes } from '../error-codes.js';

/** Parses a call's `arguments_json`: a JSON object, else 400 `INVALID_ARGUMENTS`. */
export function argumentsOf(json: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json || '{}');
  } catch {
    throw errors.invalidArgument(ErrorCodes.INVALID_ARGUMENTS, 'arguments must be a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw errors.invalidArgument(ErrorCodes.INVALID_ARGUMENTS, 'arguments must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** A runner's refusal of the arguments: the caller's fault, named field by field (400, not a tool failure). */
export function argumentRefusal(sent: RunnerCall): PlatformError | undefined {
  if (!('answer' in sent) || sent.answer.status === 'success' || sent.answer.error.code !== 'INVALID_ARGUMENTS')
    return undefined;
  const issues = sent.answer.error.issues ?? [];
  const first = issues[0];
  const message = first ? `arguments.${first.path}: ${first.message}` : sent.answer.error.message;
  return errors.invalidArgument(ErrorCodes.INVALID_ARGUMENTS, message, {
    details: { issues: issues.map((i) => ({ field: `arguments.${i.path}`, message: i.message })) },
  });
}

/** How a plain tool's call ended, as CallTool reports it. */
export function callOutcome(sent: RunnerCall, durationMs: number): ToolCallOutcome {
  const outcome = outcomeOf(sent);
  // A plain tool's call never waits, and guards (skipped, blocked) belong to the loop.
  const status =
    outcome.status === 'waiting' || outcome.status === 'skipped' || outcome.status === 'blocked'
      ? 'failed'
      : outcome.status;
  if ('answer' in sent && sent.answer.status === 'success') {
    return {
      status,
      output: sent.answer.output ?? null,
      truncated: sent.answer.truncated ?? false,
      errorCode: '',
      errorMessage: '',
      durationMs,
    };
  }
  return {
    status,
    output: undefined,
    truncated: false,
    errorCode: 'errorCode' in outcome ? outcome.errorCode : '',
    errorMessage: outcome.content,
    durationMs,
  };
}
