import {
  ID_PATTERN,
  TOOL_CALL_ID_PATTERN,
  ToolCallHeader,
  ToolCallMeta,
  ToolCallRequest,
  type ToolCallResponse,
  type ToolIssue,
} from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { z } from 'zod';
import type { DedupeCall } from './call-dedupe.js';
import { outcome } from './call-outcome.js';
import type { ToolContext, ToolDefinition } from './define-tool.js';
import { ToolFailure } from './tool-failure.js';
import { callCredentials, type CredentialRpc } from './tool-credentials.js';
import { truncateOutput } from './truncate-output.js';

export interface CallEnvironment {
  logger: Logger;
  /** Results larger than this (bytes of JSON) are truncated at the source. */
  maxResultBytes: number;
  /** Aborted when the runner gives up on in-flight work (shutdown past its grace period). */
  shutdownSignal: AbortSignal;
  now?: () => number;
  /**
   * Wraps the handler run of a validated call, e.g. to run it at most once per call id
   * (`CallDedupe`). Must not throw; `run` never does. Absent: the handler simply runs.
   */
  once?: (call: DedupeCall, run: () => Promise<ToolCallResponse>) => Promise<ToolCallResponse>;
  /** The runner's credential service client (absent: `ctx.credentials` says none is configured). */
  credentialRpc?: CredentialRpc | undefined;
  /** This call's credential grant (the `Platform-Credential-Grant` header), if it came with one. */
  credentialGrant?: string | undefined;
  /** The call id credential requests act for, when not the call's own (an agent step acts for the model's call). */
  credentialCallId?: string | undefined;
}

function zodIssues(error: z.ZodError): ToolIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(root)', message: issue.message }));
}

/**
 * Reads the protocol headers. Well-formed calls (nearly all) take a plain check; only a bad call
 * goes through zod, to list what is wrong. This runs on every call, so it is kept cheap.
 */
function parseMeta(getHeader: (key: string) => string | undefined): z.ZodSafeParseResult<ToolCallMeta> {
  const callId = getHeader(ToolCallHeader.callId);
  const tenantId = getHeader(ToolCallHeader.tenant);
  const conversationId = getHeader(ToolCallHeader.conversation);
  const runId = getHeader(ToolCallHeader.run) || undefined;
  const deadline = getHeader(ToolCallHeader.deadline);
  const deadlineAt = deadline && /^\d{1,16}$/.test(deadline) ? Number(deadline) : 0;
  if (
    callId !== undefined &&
    TOOL_CALL_ID_PATTERN.test(callId) &&
    tenantId !== undefined &&
    ID_PATTERN.test(tenantId) &&
    conversationId !== undefined &&
    ID_PATTERN.test(conversationId) &&
    (runId === undefined || ID_PATTERN.test(runId)) &&
    deadlineAt > 0
  ) {
    return { success: true, data: { callId, tenantId, conversationId, runId, deadlineAt } };
  }
  return ToolCallMeta.safeParse({
    callId,
    tenantId,
    conversationId,
    runId,
    deadlineAt: deadline,
  });
}

/** A request body parsed as JSON and checked against `schema`; the issues when it is not one. */
export function parseRequestBody<T>(body: string, schema: z.ZodType<T>): T | ToolIssue[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return [{ path: '(body)', message: 'request body is not valid JSON' }];
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : zodIssues(parsed.error);
}

/** A call whose headers and body passed the protocol checks, with its clock. */
export interface OpenedCall<T> {
  meta: ToolCallMeta;
  request: T;
  started: number;
  elapsed: () => number;
}

/**
 * The checks every call starts with: protocol headers, then the body against `schema`. Returns
 * the opened call, or the `invalid` response to send (`notA` names what the body should be).
 */
export function openCall<T>(
  getHeader: (key: string) => string | undefined,
  body: string,
  schema: z.ZodType<T>,
  notA: string,
  env: CallEnvironment,
): OpenedCall<T> | ToolCallResponse {
  const now = env.now ?? Date.now;
  const started = now();
  const elapsed = (): number => now() - started;
  const meta = parseMeta(getHeader);
  if (!meta.success)
    return outcome.invalid(
      'INVALID_REQUEST',
      'the call is missing protocol headers or has invalid ones',
      elapsed(),
      zodIssues(meta.error),
    );
  const request = parseRequestBody(body, schema);
  if (Array.isArray(request))
    return outcome.invalid('INVALID_REQUEST', `the request body is not ${notA}`, elapsed(), request);
  return { meta: meta.data, request, started, elapsed };
}

/**
 * Serves one call: checks the protocol headers and body, validates the arguments against the
 * tool's schema, runs the handler under its deadline, and shapes the response. Never throws.
 */
export async function handleToolCall(
  tool: ToolDefinition,
  getHeader: (key: string) => string | undefined,
  body: string,
  env: CallEnvironment,
): Promise<ToolCallResponse> {
  const call = openCall(getHeader, body, ToolCallRequest, 'a tool call', env);
  if ('status' in call) return call;
  return runOpenedToolCall(tool, call, env);
}

/**
 * Serves a call whose protocol fields were already read (a single call's headers and body, or one
 * call of a batch): validates the arguments against the tool's schema, runs the handler under its
 * deadline, and shapes the response. Never throws.
 */
export async function runOpenedToolCall(
  tool: ToolDefinition,
  call: OpenedCall<ToolCallRequest>,
  env: CallEnvironment,
): Promise<ToolCallResponse> {
  const { meta, request, started, elapsed } = call;

  const args = tool.input.safeParse(request.arguments);
  if (!args.success) {
    return outcome.invalid(
      'INVALID_ARGUMENTS',
      `arguments do not match the input schema of '${tool.name}'`,
      elapsed(),
      zodIssues(args.error),
    );
  }

  const deadlineAt = Math.min(meta.deadlineAt, started + tool.timeoutMs);
  if (deadlineAt - started <= 0) return outcome.timeout('the call arrived after its deadline', elapsed());

  const run = (): Promise<ToolCallResponse> => runHandler(tool, args.data, meta, deadlineAt, env, elapsed);
  return env.once ? env.once({ tool: tool.name, meta, arguments: request.arguments, deadlineAt }, run) : run();
}

/** What `runHandler` needs of a tool: its name (for messages), handler, and optional output check. */
export type RunnableTool = Pick<ToolDefinition, 'name' | 'handler' | 'output'> & { credentials?: readonly string[] };

/** Runs the handler under the call's deadline and shapes its result. Never throws. */
export async function runHandler(
  tool: RunnableTool,
  input: unknown,
  meta: ToolCallMeta,
  deadlineAt: number,
  env: CallEnvironment,
  elapsed: () => number,
): Promise<ToolCallResponse> {
  // Measured now, not at arrival: a guard such as dedupe may have let this call wait first.
  const remainingMs = deadlineAt - (env.now ?? Date.now)();
  if (remainingMs <= 0) return outcome.timeout('the call ran out of time before its handler could start', elapsed());
  // Created on first use: most calls never log, and a child logger per call is measurable.
  let callLogger: Logger | undefined;
  const log = (): Logger =>
    (callLogger ??= env.logger.child({ tool: tool.name, callId: meta.callId, tenantId: meta.tenantId }));
  const controller = new AbortController();
  const onShutdown = (): void => controller.abort(new Error('runner shutting down'));
  env.shutdownSignal.addEventListener('abort', onShutdown, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('deadline exceeded'));
      resolve('deadline');
    }, remainingMs);
  });

  const context: ToolContext = {
    tenantId: meta.tenantId,
    conversationId: meta.conversationId,
    callId: meta.callId,
    runId: meta.runId,
    deadlineAt,
    signal: controller.signal,
    get logger() {
      return log();
    },
    credentials: callCredentials(env.credentialRpc, {
      tenantId: meta.tenantId,
      callId: env.credentialCallId ?? meta.callId,
      declared: tool.credentials ?? [],
      grant: env.credentialGrant,
    }),
  };

  try {
    const result = await Promise.race([tool.handler(input, context).then((output) => ({ output })), deadline]);
    if (result === 'deadline') {
      log().warn({ timeoutMs: remainingMs }, 'tool call exceeded its deadline');
      return outcome.timeout(`'${tool.name}' did not finish within ${remainingMs} ms`, elapsed());
    }
    let output = result.output;
    if (tool.output) {
      const checked = tool.output.safeParse(output);
      if (!checked.success) {
        log().error({ issues: checked.error.issues }, 'tool returned output that violates its output schema');
        return outcome.failed('HANDLER_FAILED', `'${tool.name}' produced an invalid result`, elapsed());
      }
      output = checked.data;
    }
    const { output: bounded, truncated } = truncateOutput(output, env.maxResultBytes);
    if (truncated) log().info({ maxResultBytes: env.maxResultBytes }, 'tool result truncated at the source');
    return outcome.success(bounded, elapsed(), truncated);
  } catch (err) {
    if (err instanceof ToolFailure) {
      return err.status === 'invalid'
        ? outcome.invalid('INVALID_ARGUMENTS', err.message, elapsed())
        : outcome.failed('HANDLER_FAILED', err.message, elapsed());
    }
    if (controller.signal.aborted)
      return outcome.timeout(
        `'${tool.name}' was stopped: ${String((controller.signal.reason as Error)?.message)}`,
        elapsed(),
      );
    // The handler's error may hold internals (hosts, queries); the caller gets a safe message, the log gets all.
    log().error({ err }, 'tool handler failed');
    return outcome.failed(
      'HANDLER_FAILED',
      `'${tool.name}' failed while running; the runner logged the details`,
      elapsed(),
    );
  } finally {
    clearTimeout(timer);
    env.shutdownSignal.removeEventListener('abort', onShutdown);
  }
}
