import { randomUUID } from 'node:crypto';
import { ToolName } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';
import { JsonObject } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { CATALOG_TOOL_EXAMPLE, CatalogTool, TOOL_CALL_EXAMPLE, ToolCall } from './tool-catalog-schemas.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface ToolRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

/** A malformed tool name names no tool: the same 404 as an unknown one. */
const NO_SUCH_TOOL = { status: 404, code: ApiErrorCodes.TOOL_NOT_FOUND, message: 'no such tool' } as const;
const ToolPath = z.object({ name: ToolName });
const CallBody = z
  .object({
    arguments: JsonObject.default({}).meta({
      description: "The call's arguments, as the tool's input schema describes them.",
    }),
    profile: z.string().min(1).max(64).optional().meta({
      description:
        "The agent profile whose tool allowlist the call must pass, among those the token's tenant and tier may use (default: the default profile).",
    }),
  })
  .strict();

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

function toolCallBody(call: orchestratorV1.ToolCallResult | undefined): ToolCall {
  if (!call) throw new Error('the orchestrator answered without the call');
  return {
    callId: call.callId,
    tool: call.toolName,
    status: call.status as ToolCall['status'],
    ...(call.outputJson ? { output: JSON.parse(call.outputJson) as unknown } : {}),
    truncated: call.truncated,
    error: call.errorCode ? { code: call.errorCode, message: call.errorMessage } : null,
    durationMs: call.durationMs,
    runner: call.runner,
    arguments: JSON.parse(call.argumentsJson || '{}') as Record<string, unknown>,
    startedAt: iso(call.startedAt),
    finishedAt: iso(call.finishedAt),
  };
}

export const toolOperations = {
  listTools: defineOperation({
    method: 'GET',
    path: '/v1/tools',
    operationId: 'listTools',
    summary: 'The live tool catalog: each tool, its runner replicas with their stats, and its circuit breaker',
    tags: ['tools'],
    access: 'tenant',
    role: 'viewer',
    responses: {
      200: {
        description: 'The catalog.',
        body: z.object({ tools: z.array(CatalogTool) }),
        examples: { one: { tools: [CATALOG_TOOL_EXAMPLE] } },
      },
    },
  }),
  callTool: defineOperation({
    method: 'POST',
    path: '/v1/tools/{name}/calls',
    operationId: 'callTool',
    summary: "Try a tool: one call under the caller's tenant, as a model's call runs",
    description:
      "The call goes through the orchestrator like a call the model makes (the tool's timeout, credential grant, circuit breaker, a runner replica over NATS) and is journaled. A tool that needs the user's approval, and an agent-tool, run only in a conversation: 409 APPROVAL_REQUIRED or AGENT_TOOL, and nothing is run. The call must pass the tool allowlist of the caller's agent profile (`profile`, else the default): 403 TOOL_NOT_ALLOWED otherwise. See docs/api.md#trying-a-tool.",
    tags: ['tools'],
    access: 'tenant',
    role: 'member',
    params: ToolPath,
    body: CallBody,
    invalid: { params: NO_SUCH_TOOL },
    bodyExamples: { arithmetic: { arguments: { expression: '2 + 2' } } },
    responses: {
      200: {
        description:
          "The call ended (its status says how: a tool's failure or timeout is an outcome, not an HTTP error).",
        body: ToolCall,
        examples: { answered: TOOL_CALL_EXAMPLE },
      },
    },
    errors: {
      400: ['INVALID_ARGUMENTS'],
      403: ['TOOL_NOT_ALLOWED'],
      404: ['TOOL_NOT_FOUND', 'PROFILE_NOT_FOUND'],
      409: ['APPROVAL_REQUIRED', 'AGENT_TOOL'],
      503: ['RUNNER_UNAVAILABLE', 'UNAVAILABLE'],
    },
  }),
  getToolCall: defineOperation({
    method: 'GET',
    path: '/v1/tools/{name}/calls/{callId}',
    operationId: 'getToolCall',
    summary: 'A tried call of the tool, with its outcome',
    tags: ['tools'],
    access: 'tenant',
    role: 'viewer',
    params: ToolPath.extend({ callId: z.string().min(1).max(64) }),
    invalid: { params: { status: 404, code: ApiErrorCodes.TOOL_CALL_NOT_FOUND, message: 'no such tool call' } },
    responses: { 200: { description: 'The call.', body: ToolCall, examples: { answered: TOOL_CALL_EXAMPLE } } },
    errors: { 404: ['TOOL_CALL_NOT_FOUND'] },
  }),
};

/** The live tool catalog, and trying a tool. */
export function registerToolRoutes(router: OperationRouter, options: ToolRoutesOptions): void {
  router.add(toolOperations.listTools, async ({ request }) => {
    const { tenantId } = principalOf(request);
    const { tools } = await options.orchestrator.listTools({ tenantId });
    return {
      status: 200,
      body: {
        tools: tools.map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: JSON.parse(t.inputSchemaJson) as Record<string, unknown>,
          kind: t.kind as 'tool' | 'agent',
          runner: t.runner,
          version: t.version,
          requiresApproval: t.requiresApproval,
          timeoutMs: t.timeoutMs,
          sideEffect: t.sideEffect,
          instances: t.instances,
          runnerInstances: (t.runnerInstances ?? []).map((i) => ({
            instanceId: i.instanceId,
            version: i.version,
            started: iso(i.started),
            statsAvailable: i.statsAvailable,
            requests: i.requests,
            errors: i.errors,
            lastError: i.lastError || null,
            processingMs: i.processingMs,
            averageProcessingMs: i.averageProcessingMs,
          })),
          breaker: {
            state: (t.breaker?.state || 'closed') as 'closed' | 'open' | 'half_open',
            consecutiveFailures: t.breaker?.consecutiveFailures ?? 0,
            retryInMs: t.breaker?.retryInMs ?? 0,
          },
        })),
      },
    };
  });

  router.add(toolOperations.callTool, async ({ params, body, request }) => {
    const { tenantId, subject, tier } = principalOf(request);
    const { call } = await options.orchestrator.callTool({
      tenantId,
      toolName: params.name,
      argumentsJson: JSON.stringify(body.arguments),
      callId: `try_${randomUUID()}`,
      subject: subject ?? '',
      tier: tier ?? '',
      profile: body.profile ?? '',
      // A client trying a tool: the gate's `try` caller (only a trigger task calls as condition or executor).
      caller: 'try',
      conversationId: '',
      timeoutMs: 0,
      dryRun: false,
    });
    return { status: 200, body: toolCallBody(call) };
  });

  router.add(toolOperations.getToolCall, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const { call } = await options.orchestrator.getToolCall({ tenantId, callId: params.callId });
    // The call id names a call of another tool: not found, like an unknown id.
    if (call?.toolName !== params.name)
      throw new HttpError(404, ApiErrorCodes.TOOL_CALL_NOT_FOUND, `no call '${params.callId}' of '${params.name}'`);
    return { status: 200, body: toolCallBody(call) };
  });
}
