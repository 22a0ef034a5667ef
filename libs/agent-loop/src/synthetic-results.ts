import type { ToolCall, ToolMessage, ToolResultStatus } from '@platform/contracts';

/** A tool result the platform writes itself, for a call that did not (or could not) run. */
export function syntheticResult(
  call: ToolCall,
  status: Exclude<ToolResultStatus, 'success'>,
  errorCode: string,
  text: string,
): ToolMessage {
  return {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: `Error: ${text}`,
    status,
    isError: true,
    synthetic: true,
    errorCode,
  };
}

/** Closes every call of `calls` that has no result in `answered` (closure: each call gets exactly one result). */
export function closeUnanswered(
  calls: readonly ToolCall[],
  answered: ReadonlySet<string>,
  status: Exclude<ToolResultStatus, 'success'>,
  errorCode: string,
  text: string,
): ToolMessage[] {
  return calls.filter((c) => !answered.has(c.id)).map((c) => syntheticResult(c, status, errorCode, text));
}
