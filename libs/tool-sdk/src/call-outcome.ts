import type { ToolCallResponse, ToolErrorCode, ToolIssue } from '@platform/contracts';

/** Builders for runner responses, so every failure carries a stable code and a safe message. */
export const outcome = {
  success: (output: unknown, durationMs: number, truncated = false): ToolCallResponse => ({
    status: 'success',
    output,
    ...(truncated ? { truncated: true } : {}),
    durationMs,
  }),
  invalid: (code: ToolErrorCode, message: string, durationMs: number, issues?: ToolIssue[]): ToolCallResponse => ({
    status: 'invalid',
    error: { code, message, ...(issues ? { issues } : {}) },
    durationMs,
  }),
  failed: (code: ToolErrorCode, message: string, durationMs: number): ToolCallResponse => ({
    status: 'failed',
    error: { code, message },
    durationMs,
  }),
  timeout: (message: string, durationMs: number): ToolCallResponse => ({
    status: 'timeout',
    error: { code: 'DEADLINE_EXCEEDED', message },
    durationMs,
  }),
  busy: (message: string): ToolCallResponse => ({
    status: 'busy',
    error: { code: 'RUNNER_BUSY', message },
  }),
};
