import type { orchestratorV1 } from '@platform/proto';
import { errors, PlatformError, type PromiseClient } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../test-support/catalog-fixtures.js';
import { EDGE_OPERATOR_ROLE, useOrchestratorEdgeApp } from '../test-support/orchestrator-edge-app.js';
import { TOOL_CALL_EXAMPLE } from './tool-catalog-schemas.js';

// The tools routes at the HTTP edge: the catalog with runner stats and breakers, trying a tool
// (the tenant and subject from the token, a fresh call id, refusals mapped to typed 4xx), reading
// a tried call back. The orchestrator's CallTool has its own suite on real NATS and Postgres
// (apps/orchestrator/src/tool-calls), and test/e2e/src/tool-trial.test.ts runs them together.
const SECRET = 'tools-test-secret-that-is-at-least-32-chars';
const asked: orchestratorV1.CallToolRequest[] = [];
const calls = new Map<string, orchestratorV1.ToolCallResult & { tenantId: string }>();

const orchestrator = {
  listTools: async () => ({
    tools: [
      calculatorTool({
        runnerInstances: [
          {
            instanceId: 'i1',
            version: '1.0.0',
            started: new Date('2026-06-01T09:00:00Z'),
            statsAvailable: true,
            requests: 7,
            errors: 1,
            lastError: '500:HANDLER_FAILED',
            processingMs: 14,
            averageProcessingMs: 2,
          },
        ],
        breaker: { state: 'open', consecutiveFailures: 3, retryInMs: 12_000 },
      }),
    ],
  }),
  callTool: async (request: orchestratorV1.CallToolRequest) => {
    asked.push(request);
    if (request.toolName === 'missing') throw errors.notFound('TOOL_NOT_FOUND', "no tool 'missing'");
    if (request.toolName === 'send_email')
      throw new PlatformError(
        'failed_precondition',
        'APPROVAL_REQUIRED',
        "'send_email' needs the user's approval for every call",
      );
    const args = JSON.parse(request.argumentsJson) as Record<string, unknown>;
    if (typeof args['expression'] !== 'string') {
      throw errors.invalidArgument('INVALID_ARGUMENTS', 'arguments.expression: Invalid input: expected string', {
        details: { issues: [{ field: 'arguments.expression', message: 'Invalid input: expected string' }] },
      });
    }
    const call = {
      callId: request.callId,
      toolName: request.toolName,
      status: 'success',
      outputJson: '{"result":4}',
      truncated: false,
      errorCode: '',
      errorMessage: '',
      durationMs: 3,
      runner: 'builtin-tools',
      argumentsJson: request.argumentsJson,
      startedAt: new Date('2026-06-01T09:30:00Z'),
      finishedAt: new Date('2026-06-01T09:30:00.003Z'),
    };
    calls.set(request.callId, { ...call, tenantId: request.tenantId });
    return { call };
  },
  getToolCall: async (request: orchestratorV1.GetToolCallRequest) => {
    const call = calls.get(request.callId);
    if (!call || call.tenantId !== request.tenantId)
      throw errors.notFound('TOOL_CALL_NOT_FOUND', `no tool call '${request.callId}'`);
    return { call };
  },
} as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;
const { inject, bearer } = useOrchestratorEdgeApp(SECRET, orchestrator);

async function call(
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  claims: Record<string, unknown> = { tenant: 'acme' },
  headers: Record<string, string> = {},
) {
  return inject({
    method,
    url,
    headers: { authorization: await bearer(claims), ...headers },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
}

describe('GET /v1/tools', () => {
  it("shows each tool with its runner replicas' stats and its circuit breaker", async () => {
    const response = await call('GET', '/v1/tools');
    expect(response.statusCode).toBe(200);
    expect(response.json<{ tools: unknown[] }>().tools[0]).toMatchObject({
      name: 'calculator',
      runnerInstances: [
        {
          instanceId: 'i1',
          version: '1.0.0',
          started: '2026-06-01T09:00:00.000Z',
          statsAvailable: true,
          requests: 7,
          errors: 1,
          lastError: '500:HANDLER_FAILED',
          processingMs: 14,
          averageProcessingMs: 2,
        },
      ],
      breaker: { state: 'open', consecutiveFailures: 3, retryInMs: 12_000 },
    });
  });
});

describe('POST /v1/tools/{name}/calls', () => {
  it("runs one call under the token's tenant with a fresh call id, and answers the call", async () => {
    const response = await call('POST', '/v1/tools/calculator/calls', { arguments: { expression: '2 + 2' } });
    expect(response.statusCode).toBe(200);
    const sent = asked.at(-1)!;
    expect(sent).toMatchObject({
      tenantId: 'acme',
      subject: 'someone',
      toolName: 'calculator',
      argumentsJson: '{"expression":"2 + 2"}',
    });
    expect(sent.callId).toMatch(/^try_[0-9a-f-]{36}$/);
    // The documented example is what this answer looks like.
    expect(response.json()).toEqual({ ...TOOL_CALL_EXAMPLE, callId: sent.callId });
  });

  it('lets the tenant read the call back, and nobody else', async () => {
    const { callId } = (await call('POST', '/v1/tools/calculator/calls', { arguments: { expression: '1' } })).json<{
      callId: string;
    }>();
    expect((await call('GET', `/v1/tools/calculator/calls/${callId}`)).json()).toMatchObject({
      callId,
      status: 'success',
    });
    const other = await call('GET', `/v1/tools/calculator/calls/${callId}`, undefined, { tenant: 'globex' });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ error: { code: 'TOOL_CALL_NOT_FOUND' } });
    expect((await call('GET', `/v1/tools/other_tool/calls/${callId}`)).json()).toMatchObject({
      error: { code: 'TOOL_CALL_NOT_FOUND' },
    });
  });

  it('answers an unknown or malformed tool name with 404 TOOL_NOT_FOUND', async () => {
    for (const url of ['/v1/tools/missing/calls', '/v1/tools/not%20a%20tool!/calls']) {
      const response = await call('POST', url, { arguments: {} });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
    }
  });

  it('answers invalid arguments with 400 naming the field', async () => {
    const byRunner = await call('POST', '/v1/tools/calculator/calls', { arguments: { expression: 4 } });
    expect(byRunner.statusCode).toBe(400);
    expect(byRunner.json()).toEqual({
      error: {
        code: 'INVALID_ARGUMENTS',
        message: expect.stringMatching(/^arguments\.expression: /),
        details: { issues: [{ field: 'arguments.expression', message: expect.any(String) }] },
      },
    });
    const notAnObject = await call('POST', '/v1/tools/calculator/calls', { arguments: [1] });
    expect(notAnObject.statusCode).toBe(400);
    expect(notAnObject.json()).toMatchObject({
      error: { code: 'INVALID_BODY', message: expect.stringMatching(/^arguments: /) },
    });
    expect((await call('POST', '/v1/tools/calculator/calls', { arguments: {}, extra: 1 })).json()).toMatchObject({
      error: { code: 'INVALID_BODY' },
    });
  });

  it('refuses a tool that needs approval with 409 APPROVAL_REQUIRED', async () => {
    const response = await call('POST', '/v1/tools/send_email/calls', { arguments: { to: 'team@example.com' } });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error: { code: 'APPROVAL_REQUIRED' } });
  });

  it('does not let an operator try a tool as another tenant (Platform-Tenant is read-only)', async () => {
    const response = await call(
      'POST',
      '/v1/tools/calculator/calls',
      { arguments: { expression: '1' } },
      { tenant: 'ops', roles: [EDGE_OPERATOR_ROLE] },
      { 'platform-tenant': 'acme' },
    );
    expect(response.statusCode).toBe(403);
  });
});
