import type { ToolCall, ToolMessage } from '@platform/contracts';
import type { Clock } from './clock.js';
import type { EventEmitter } from './events.js';
import { classifyToolResult, type StepFailure } from './failures.js';
import type { LoopHooks } from './hooks.js';
import type { LoopConfig } from './loop-config.js';
import { sanitizeToolName } from './sanitize-tool-name.js';
import { syntheticResult } from './synthetic-results.js';
import { repairToolMessage, type TextRepair } from './text-repairs.js';
import type { PendingAgent, ToolCallRequest, ToolDescription, ToolOutcome, ToolPort } from './tool-port.js';

export interface BatchContext {
  runId: string;
  iteration: number;
  deadlineAt: number;
  signal: AbortSignal;
  config: LoopConfig;
  clock: Clock;
  tools: ToolPort;
  hooks: LoopHooks;
  events: EventEmitter;
  /** How often each (tool, arguments) ran this turn; the repeat guard reads and updates it. */
  seenCalls: Map<string, number>;
  /** Calls already run this turn (for the per-turn cap). */
  callsSoFar: number;
}

export interface CallResult {
  call: ToolCall;
  message: ToolMessage;
  durationMs: number;
  /** Result size before any truncation. */
  resultChars: number;
  pending?: PendingAgent;
  /** Skipped by the repeat guard. */
  repeated: boolean;
  /** Text of the result that had to be repaired (see text-repairs.ts). */
  repairs: TextRepair[];
  /** The call's classified failures (failures.ts): those the port recovered from, then its own. */
  failures: StepFailure[];
}

function failuresOf(
  message: ToolMessage,
  recovered: readonly StepFailure[] | undefined,
  toolClass: ToolDescription['failureClass'],
): StepFailure[] {
  const own = classifyToolResult(message.status, message.errorCode, toolClass);
  return [...(recovered ?? []), ...(own ? [own] : [])];
}

type Prepared =
  | { kind: 'run'; request: ToolCallRequest; tool: ToolDescription }
  | { kind: 'done'; message: ToolMessage; repeated?: boolean };

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Checks one call before it may run: caps, name, arguments, repeat guard. */
function prepare(call: ToolCall, index: number, ctx: BatchContext, catalog: Map<string, ToolDescription>): Prepared {
  if (index >= ctx.config.maxToolCallsPerIteration) {
    return {
      kind: 'done',
      message: syntheticResult(
        call,
        'blocked',
        'TOO_MANY_CALLS',
        `only ${ctx.config.maxToolCallsPerIteration} tool calls may run per step; this one was not run.`,
      ),
    };
  }
  if (ctx.callsSoFar + index >= ctx.config.maxToolCallsPerTurn) {
    return {
      kind: 'done',
      message: syntheticResult(
        call,
        'blocked',
        'TURN_CALL_LIMIT',
        `the limit of ${ctx.config.maxToolCallsPerTurn} tool calls per request was reached; answer with what you have.`,
      ),
    };
  }
  const name = sanitizeToolName(call.name);
  const tool = catalog.get(name) ?? ctx.tools.lookup?.(name);
  if (!tool) {
    const refused = ctx.tools.refuse?.(name);
    if (refused)
      return { kind: 'done', message: syntheticResult(call, refused.status, refused.errorCode, refused.content) };
    const available = [...catalog.keys()].sort().join(', ') || '(none)';
    return {
      kind: 'done',
      message: syntheticResult(
        call,
        'invalid',
        'UNKNOWN_TOOL',
        `there is no tool named '${call.name}'. Available tools: ${available}.`,
      ),
    };
  }
  const args = parseArguments(call.arguments);
  if (!args) {
    return {
      kind: 'done',
      message: syntheticResult(
        call,
        'invalid',
        'INVALID_ARGUMENTS',
        `the arguments for '${name}' are not a valid JSON object. Send a JSON object matching: ${JSON.stringify(tool.parameters)}`,
      ),
    };
  }
  const key = `${name}:${canonical(args)}`;
  const seen = ctx.seenCalls.get(key) ?? 0;
  ctx.seenCalls.set(key, seen + 1);
  if (seen >= ctx.config.repeatGuardThreshold) {
    const text = `you already called '${name}' with these exact arguments ${seen} time(s) in this request; use the earlier result or try a different approach.`;
    return { kind: 'done', message: syntheticResult(call, 'skipped', 'REPEATED_CALL', text), repeated: true };
  }
  return { kind: 'run', request: { id: call.id, name, arguments: args }, tool };
}

function toMessage(call: ToolCall, outcome: ToolOutcome, synthetic: boolean): ToolMessage {
  if (outcome.status === 'success')
    return {
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: outcome.content,
      status: 'success',
      isError: false,
    };
  if (outcome.status === 'waiting') {
    // The agent keeps the call open in its pool; the model is told it is waiting for the user.
    return {
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: outcome.content,
      status: 'skipped',
      isError: false,
      synthetic: true,
      errorCode: outcome.pending.waitingFor === 'approval' ? 'AWAITING_APPROVAL' : 'AWAITING_INPUT',
    };
  }
  return {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: outcome.content.startsWith('Error') ? outcome.content : `Error: ${outcome.content}`,
    status: outcome.status,
    isError: true,
    errorCode: outcome.errorCode,
    ...(synthetic ? { synthetic: true } : {}),
  };
}

async function guarded<T>(
  ctx: BatchContext,
  hook: string,
  fn: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    ctx.events.emit({ type: 'hook_error', hook, message });
    return { ok: false, message };
  }
}

/** Runs one call through the hooks and the port under its own deadline. */
async function runOne(
  call: ToolCall,
  request: ToolCallRequest,
  tool: ToolDescription,
  ctx: BatchContext,
): Promise<{ outcome: ToolOutcome; synthetic: boolean }> {
  const { hooks } = ctx;
  if (hooks.beforeTool) {
    const before = await guarded(ctx, 'beforeTool', () =>
      hooks.beforeTool!({ iteration: ctx.iteration, call: request }),
    );
    if (!before.ok)
      return {
        outcome: {
          status: 'failed',
          content: `a policy hook failed before '${tool.name}' could run.`,
          errorCode: 'HOOK_FAILED',
        },
        synthetic: true,
      };
    const decision = before.value;
    if (decision && 'skip' in decision)
      return { outcome: { status: 'skipped', content: decision.skip, errorCode: 'SKIPPED_BY_HOOK' }, synthetic: true };
    if (decision && 'result' in decision) return { outcome: decision.result, synthetic: true };
    if (decision && 'arguments' in decision) request = { ...request, arguments: decision.arguments };
  }
  if (hooks.approveTool) {
    const approval = await guarded(ctx, 'approveTool', () =>
      hooks.approveTool!({ iteration: ctx.iteration, call: request }),
    );
    const reason = !approval.ok
      ? 'the approval check failed'
      : !approval.value.approved
        ? approval.value.reason
        : undefined;
    if (reason !== undefined)
      return {
        outcome: {
          status: 'denied',
          content: `the call to '${tool.name}' was not approved: ${reason}`,
          errorCode: 'DENIED',
        },
        synthetic: true,
      };
  }

  const timeoutMs = Math.min(
    tool.kind === 'agent' ? ctx.config.agentToolTimeoutMs : ctx.config.toolTimeoutMs,
    tool.timeoutMs ?? Number.POSITIVE_INFINITY,
  );
  const deadlineAt = Math.min(ctx.deadlineAt, ctx.clock.now() + timeoutMs);
  const controller = new AbortController();
  const onRunAbort = (): void => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  const expiry = ctx.clock.sleep(Math.max(0, deadlineAt - ctx.clock.now()), controller.signal).then(
    () => 'deadline' as const,
    () => 'stopped' as const,
  );
  try {
    const raced = await Promise.race([
      ctx.tools
        .execute(request, { runId: ctx.runId, deadlineAt, signal: controller.signal })
        .then((outcome) => ({ outcome })),
      expiry,
    ]);
    if (raced === 'deadline' || raced === 'stopped') {
      controller.abort(new Error(raced));
      if (ctx.signal.aborted)
        return {
          outcome: {
            status: 'cancelled',
            content: 'the run was cancelled before this call finished.',
            errorCode: 'CANCELLED',
          },
          synthetic: true,
        };
      return {
        outcome: {
          status: 'timeout',
          content: `'${tool.name}' did not finish within ${timeoutMs} ms.`,
          errorCode: 'TIMEOUT',
        },
        synthetic: true,
      };
    }
    let outcome = raced.outcome;
    if (ctx.signal.aborted && outcome.status !== 'success')
      outcome = {
        status: 'cancelled',
        content: 'the run was cancelled before this call finished.',
        errorCode: 'CANCELLED',
      };
    if (hooks.afterTool) {
      const after = await guarded(ctx, 'afterTool', () =>
        hooks.afterTool!({ iteration: ctx.iteration, call: request, outcome }),
      );
      if (after.ok && after.value) outcome = after.value;
    }
    return { outcome, synthetic: false };
  } catch (err) {
    return {
      outcome: {
        status: 'failed',
        content: `'${tool.name}' failed: ${(err as Error)?.message ?? String(err)}`,
        errorCode: 'TOOL_PORT_FAILED',
      },
      synthetic: true,
    };
  } finally {
    controller.abort(new Error('call finished'));
    ctx.signal.removeEventListener('abort', onRunAbort);
  }
}

/**
 * Runs all calls of one model response concurrently, each with its own timeout, and returns
 * exactly one result per call, in the order of the calls.
 */
export async function runToolBatch(calls: readonly ToolCall[], ctx: BatchContext): Promise<CallResult[]> {
  const catalog = new Map(ctx.tools.list().map((t) => [t.name, t]));
  return Promise.all(
    calls.map(async (call, index): Promise<CallResult> => {
      const started = ctx.clock.now();
      ctx.events.emit({
        type: 'tool_call_start',
        iteration: ctx.iteration,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
      });
      const prepared = prepare(call, index, ctx, catalog);
      let result: CallResult;
      if (prepared.kind === 'done') {
        const failures = failuresOf(prepared.message, undefined, 'tool');
        result = {
          call,
          message: prepared.message,
          durationMs: 0,
          resultChars: prepared.message.content.length,
          repeated: prepared.repeated ?? false,
          repairs: [],
          failures,
        };
      } else {
        const { outcome, synthetic } = await runOne(call, prepared.request, prepared.tool, ctx);
        const { message, repairs } = repairToolMessage(
          toMessage(call, outcome, synthetic),
          'diagnostics' in outcome ? outcome.diagnostics : undefined,
        );
        result = {
          call,
          message,
          durationMs: ctx.clock.now() - started,
          resultChars: outcome.content.length,
          repeated: false,
          repairs,
          failures: failuresOf(message, outcome.failures, prepared.tool.failureClass),
          ...(outcome.status === 'waiting' ? { pending: { ...outcome.pending, callId: call.id } } : {}),
        };
      }
      const m = result.message;
      for (const failure of result.failures)
        ctx.events.emit({
          type: 'step_failed',
          iteration: ctx.iteration,
          step: 'tool',
          failure,
          callId: call.id,
          name: call.name,
          ...(m.errorCode ? { message: m.errorCode } : {}),
        });
      ctx.events.emit({
        type: 'tool_result',
        iteration: ctx.iteration,
        callId: call.id,
        name: call.name,
        status: m.status,
        content: m.content,
        durationMs: result.durationMs,
        synthetic: m.synthetic ?? false,
        ...(result.failures.length ? { failures: result.failures } : {}),
      });
      return result;
    }),
  );
}
