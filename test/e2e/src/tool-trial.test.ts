import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  startRunnerProcess,
  waitForCatalog,
  writeProfilesFile,
  type SuitePlatform,
} from './support.js';

// Trying a tool (POST /v1/tools/{name}/calls) on the whole platform: api -> orchestrator's
// CallTool -> the real built-in runner over NATS, journaled in the orchestrator's database.
interface ToolCallBody {
  callId: string;
  tool: string;
  status: string;
  output?: unknown;
  error: { code: string; message: string } | null;
  runner: string;
  arguments: Record<string, unknown>;
}
interface CatalogBody {
  tools: Array<{
    name: string;
    instances: number;
    runnerInstances: Array<{ instanceId: string; statsAvailable: boolean; requests: number }>;
    breaker: { state: string };
  }>;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

let platform: SuitePlatform;
let gatedRunner: ManagedProcess;
let profiles: { file: string; remove: () => Promise<void> };

beforeAll(async () => {
  // The default profile gives its agents every tool; 'arithmetic' only the calculator.
  profiles = await writeProfilesFile('tool_trial', {
    defaultProfile: 'default',
    profiles: [
      { name: 'default', systemPrompt: 'You help.', tools: ['*'] },
      { name: 'arithmetic', systemPrompt: 'You add numbers.', tools: ['calculator'] },
    ],
  });
  platform = await bootPlatform('tool_trial', { env: { orchestrator: { AGENT_PROFILES_FILE: profiles.file } } });
  gatedRunner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  await waitForCatalog(platform.apiUrl, ['archive_orders']);
});
afterAll(async () => {
  await gatedRunner?.stop();
  await platform?.stop();
  await profiles?.remove();
});

describe('trying a tool through the api', () => {
  it("runs the call on the real runner under the caller's tenant and keeps it readable by that tenant only", async () => {
    const call = await api<ToolCallBody>(platform, 'POST', '/v1/tools/calculator/calls', 'acme', {
      arguments: { expression: '6 * 7' },
    });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      tool: 'calculator',
      status: 'success',
      output: { expression: '6 * 7', result: 42 },
      error: null,
      arguments: { expression: '6 * 7' },
    });
    expect(call.body.callId).toMatch(/^try_/);
    expect(call.body.runner).not.toBe('');

    const again = await api<ToolCallBody>(platform, 'GET', `/v1/tools/calculator/calls/${call.body.callId}`, 'acme');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(call.body);
    const stranger = await api<ErrorBody>(platform, 'GET', `/v1/tools/calculator/calls/${call.body.callId}`, 'globex');
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('TOOL_CALL_NOT_FOUND');
  });

  it('answers arguments the runner rejects with 400 naming the field', async () => {
    const call = await api<ErrorBody>(platform, 'POST', '/v1/tools/calculator/calls', 'acme', {
      arguments: { expression: 5 },
    });
    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringMatching(/^arguments\.expression: /),
    });
  });

  it('answers an unknown tool with 404 TOOL_NOT_FOUND', async () => {
    const call = await api<ErrorBody>(platform, 'POST', '/v1/tools/no_such_tool/calls', 'acme', { arguments: {} });
    expect(call.status).toBe(404);
    expect(call.body.error.code).toBe('TOOL_NOT_FOUND');
  });

  it("passes the tool allowlist of the caller's profile: 403 TOOL_NOT_ALLOWED outside it, 404 PROFILE_NOT_FOUND for a profile it may not use", async () => {
    const allowed = await api<ToolCallBody>(platform, 'POST', '/v1/tools/calculator/calls', 'acme', {
      arguments: { expression: '1 + 1' },
      profile: 'arithmetic',
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ status: 'success', output: { result: 2 } });
    const outside = await api<ErrorBody>(platform, 'POST', '/v1/tools/current_time/calls', 'acme', {
      arguments: {},
      profile: 'arithmetic',
    });
    expect(outside.status).toBe(403);
    expect(outside.body.error).toMatchObject({
      code: 'TOOL_NOT_ALLOWED',
      message:
        "the agent profile 'arithmetic' does not let its agents use 'current_time', so it cannot be tried under it",
    });
    const ghost = await api<ErrorBody>(platform, 'POST', '/v1/tools/calculator/calls', 'acme', {
      arguments: { expression: '1 + 1' },
      profile: 'ghost',
    });
    expect(ghost.status).toBe(404);
    expect(ghost.body.error.code).toBe('PROFILE_NOT_FOUND');
  });

  it('never runs a tool that needs approval outside a conversation: 409 APPROVAL_REQUIRED', async () => {
    const call = await api<ErrorBody>(platform, 'POST', '/v1/tools/archive_orders/calls', 'acme', {
      arguments: { region: 'eu', olderThanDays: 30 },
    });
    expect(call.status).toBe(409);
    expect(call.body.error).toMatchObject({ code: 'APPROVAL_REQUIRED', message: expect.stringContaining('approval') });
  });

  it("lists each tool's runner replicas with their $SRV stats and its closed breaker", async () => {
    const catalog = await api<CatalogBody>(platform, 'GET', '/v1/tools', 'acme');
    const calculator = catalog.body.tools.find((t) => t.name === 'calculator')!;
    expect(calculator.breaker.state).toBe('closed');
    expect(calculator.runnerInstances).toHaveLength(calculator.instances);
    expect(calculator.runnerInstances[0]).toMatchObject({ statsAvailable: true });
    // The tried calls above went to this runner (the one rejected for its arguments too).
    expect(calculator.runnerInstances.reduce((sum, i) => sum + i.requests, 0)).toBeGreaterThanOrEqual(2);
  });
});
