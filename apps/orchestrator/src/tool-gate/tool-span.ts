import type { ToolCallRequest, ToolOutcome } from '@platform/agent-loop';
import { recordToolCall, withToolExecutionSpan } from '@platform/telemetry';

/** Runs a tool call in its execution span and counts it in the tool metrics. */
export function traced<T>(
  call: Pick<ToolCallRequest, 'id' | 'name'>,
  work: () => Promise<T>,
  outcome: (result: T) => ToolOutcome,
): Promise<T> {
  return withToolExecutionSpan({ toolName: call.name, toolCallId: call.id }, async (span) => {
    const started = performance.now();
    const result = await work();
    const { status, ...rest } = outcome(result);
    const errorCode = status !== 'success' && status !== 'waiting' && 'errorCode' in rest ? rest.errorCode : undefined;
    span.setAttribute('platform.tool.status', status);
    if (errorCode) span.setAttribute('error.type', errorCode);
    recordToolCall({ toolName: call.name, status, errorCode }, (performance.now() - started) / 1000);
    return result;
  });
}
