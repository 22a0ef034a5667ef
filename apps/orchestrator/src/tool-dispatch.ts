import type { ToolCall, ToolMessage, ToolResultStatus } from '@platform/contracts';
import { withToolExecutionSpan } from '@platform/telemetry';
import type { ToolCatalog, ToolClient } from '@platform/tool-sdk';

export interface CallScope {
  tenantId: string;
  conversationId: string;
  runId: string;
  /** The turn's deadline; no call outlives it. */
  turnDeadlineAt: number;
}

export interface ToolCallRecord {
  callId: string;
  name: string;
  status: ToolResultStatus;
  success: boolean;
  durationMs: number;
  errorCode: string;
}

export interface DispatchResult {
  message: ToolMessage;
  record: ToolCallRecord;
}

function synthetic(call: ToolCall, status: ToolResultStatus, errorCode: string, text: string, started: number): DispatchResult {
  return {
    message: { role: 'tool', toolCallId: call.id, toolName: call.name, content: `Error: ${text}`, status, isError: true, synthetic: true, errorCode },
    record: { callId: call.id, name: call.name, status, success: false, durationMs: Date.now() - started, errorCode },
  };
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one tool call on its runner and turns every outcome into exactly one tool message. */
export function dispatchToolCall(call: ToolCall, scope: CallScope, catalog: ToolCatalog, client: ToolClient, defaultTimeoutMs: number): Promise<DispatchResult> {
  return withToolExecutionSpan({ toolName: call.name, toolCallId: call.id }, async (span) => {
    const result = await dispatch(call, scope, catalog, client, defaultTimeoutMs);
    span.setAttribute('platform.tool.status', result.record.status);
    if (result.record.errorCode) span.setAttribute('error.type', result.record.errorCode);
    return result;
  });
}

async function dispatch(call: ToolCall, scope: CallScope, catalog: ToolCatalog, client: ToolClient, defaultTimeoutMs: number): Promise<DispatchResult> {
  const started = Date.now();
  const found = catalog.lookup(call.name);
  if (found.state === 'unknown') {
    const available = catalog.list().map((t) => t.name);
    return synthetic(call, 'invalid', 'UNKNOWN_TOOL', `there is no tool named '${call.name}'. Available tools: ${available.join(', ') || '(none)'}.`, started);
  }
  if (found.state === 'offline') {
    return synthetic(call, 'failed', 'RUNNER_UNAVAILABLE', `no runner serves '${call.name}' right now; try again later or answer without it.`, started);
  }
  const args = parseArguments(call.arguments);
  if (!args) return synthetic(call, 'invalid', 'INVALID_ARGUMENTS', `the arguments for '${call.name}' are not a valid JSON object.`, started);

  const timeoutMs = found.entry.timeoutMs || defaultTimeoutMs;
  const response = await client.call({
    toolName: call.name,
    arguments: args,
    callId: call.id,
    tenantId: scope.tenantId,
    conversationId: scope.conversationId,
    runId: scope.runId,
    deadlineAt: Math.min(scope.turnDeadlineAt, started + timeoutMs),
  });
  const durationMs = Date.now() - started;
  if (response.status === 'success') {
    const content = typeof response.output === 'string' ? response.output : JSON.stringify(response.output ?? null);
    return {
      message: { role: 'tool', toolCallId: call.id, toolName: call.name, content, status: 'success', isError: false },
      record: { callId: call.id, name: call.name, status: 'success', success: true, durationMs, errorCode: '' },
    };
  }
  const status: ToolResultStatus = response.status === 'busy' ? 'failed' : response.status;
  const issues = response.error.issues?.map((i) => `${i.path}: ${i.message}`).join('; ');
  const text = issues ? `${response.error.message} (${issues})` : response.error.message;
  return {
    message: { role: 'tool', toolCallId: call.id, toolName: call.name, content: `Error: ${text}`, status, isError: true, errorCode: response.error.code },
    record: { callId: call.id, name: call.name, status, success: false, durationMs, errorCode: response.error.code },
  };
}
