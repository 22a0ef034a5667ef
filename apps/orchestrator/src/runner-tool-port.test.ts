import { runAgentLoop, type ToolOutcome } from '@platform/agent-loop';
import { reply, ScriptedModel } from '@platform/agent-loop/testing';
import type { ToolMessage } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { defineTool, serveRunner, ToolCatalog, ToolClient, type ToolRunner } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PoolAgents } from './agent-tools/pool-agents.js';
import { RunnerToolPort, toOutcome } from './runner-tool-port.js';
import { ToolBreakers } from './tool-breakers.js';
import { ToolGate } from './tool-gate/tool-gate.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let runner: ToolRunner;
let leaving: ToolRunner;
let leavingConnection: NatsConnection;
let catalog: ToolCatalog;
let port: RunnerToolPort;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'test', logger });
  const double = defineTool({
    name: 'double',
    description: 'Doubles a number.',
    input: z.object({ n: z.number() }),
    handler: async ({ n }) => ({ value: n * 2 }),
  });
  runner = await serveRunner({ nc, name: 'test-tools', version: '1.0.0', tools: [double], logger });
  leavingConnection = await connectNats({ servers: server.url, name: 'leaving', logger });
  const echo = defineTool({ name: 'echo', description: 'Echoes.', input: z.object({}), handler: async () => 'echo' });
  leaving = await serveRunner({
    nc: leavingConnection,
    name: 'leaving-tools',
    version: '1.0.0',
    tools: [echo],
    logger,
  });
  catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 200, staleAfterMs: 0 });
  await catalog.refresh();
  port = new RunnerToolPort(new ToolGate({ catalog, client: new ToolClient({ nc, logger }) }), {
    tenantId: 'acme',
    conversationId: 'c1',
  });
});
afterAll(async () => {
  await runner.stop(100);
  await nc.close();
  await server.stop();
});

const context = () => ({ runId: 'run_1', deadlineAt: Date.now() + 5_000, signal: new AbortController().signal });

describe('RunnerToolPort', () => {
  it('lists online tools with their schema and runs them on their runner', async () => {
    expect(port.list().map((t) => t.name)).toEqual(['double', 'echo']);
    expect(port.list()[0]).toMatchObject({ kind: 'tool', parameters: { type: 'object', required: ['n'] } });
    expect(await port.execute({ id: 'c1', name: 'double', arguments: { n: 21 } }, context())).toEqual({
      status: 'success',
      content: '{"value":42}',
    });
  });

  it('reports schema violations found by the runner as invalid, with the problems', async () => {
    const outcome = await port.execute({ id: 'c2', name: 'double', arguments: { n: 'x' } }, context());
    expect(outcome).toMatchObject({ status: 'invalid', errorCode: 'INVALID_ARGUMENTS' });
    expect(outcome.content).toContain('n:');
  });

  it('answers a tool whose runner left as unavailable, and an unknown name as unknown', async () => {
    await leaving.stop(10);
    await leavingConnection.close();
    await catalog.refresh();
    expect(port.list().map((t) => t.name)).toEqual(['double']);
    expect(port.lookup('echo')).toMatchObject({ name: 'echo' });
    expect(port.lookup('nothing')).toBeUndefined();
    expect(await port.execute({ id: 'c3', name: 'echo', arguments: {} }, context())).toMatchObject({
      status: 'failed',
      errorCode: 'RUNNER_UNAVAILABLE',
    });
  });

  it('never runs a tool that requires approval: the pool holds the call, and without a pool it is denied', async () => {
    let ran = 0;
    const wipe = defineTool({
      name: 'wipe',
      description: 'Wipes a disk.',
      input: z.object({ disk: z.string() }),
      requiresApproval: true,
      sideEffect: 'external',
      handler: async () => ++ran,
    });
    const gatedConnection = await connectNats({ servers: server.url, name: 'gated', logger });
    const gated = await serveRunner({
      nc: gatedConnection,
      name: 'gated-tools',
      version: '1.0.0',
      tools: [wipe],
      logger,
    });
    try {
      await catalog.refresh();
      // The loop sees it as a tool that may wait for the user.
      expect(port.lookup('wipe')).toMatchObject({ kind: 'agent' });
      expect(await port.execute({ id: 'g1', name: 'wipe', arguments: { disk: 'sda' } }, context())).toMatchObject({
        status: 'denied',
        errorCode: 'APPROVAL_UNAVAILABLE',
      });
      const started: Array<{ callId: string; approvalGate: boolean }> = [];
      const waiting: ToolOutcome = {
        status: 'waiting',
        content: 'asked',
        pending: { agentName: 'wipe', waitingFor: 'approval', prompt: 'ok?' },
      };
      const agents = {
        start: async (_scope: unknown, call: { id: string }, _context: unknown, approvalGate = false) => (
          started.push({ callId: call.id, approvalGate }),
          waiting
        ),
      } as unknown as PoolAgents;
      const withPool = new RunnerToolPort(new ToolGate({ catalog, client: new ToolClient({ nc, logger }) }), {
        tenantId: 'acme',
        conversationId: 'c1',
        agents,
      });
      expect(await withPool.execute({ id: 'g2', name: 'wipe', arguments: { disk: 'sda' } }, context())).toEqual(
        waiting,
      );
      expect(started).toEqual([{ callId: 'g2', approvalGate: true }]);
      // A plain tool without the flag still runs directly.
      expect(await withPool.execute({ id: 'g3', name: 'double', arguments: { n: 1 } }, context())).toMatchObject({
        status: 'success',
      });
      expect(ran).toBe(0);
    } finally {
      await gated.stop(10);
      await gatedConnection.close();
      await catalog.refresh();
    }
  });

  it('refuses a tool at once while its breaker is open (it kept timing out), then tries it again after the cooldown', async () => {
    let started = 0;
    let slow = true;
    const stall = defineTool({
      name: 'stall',
      description: 'Answers late while slow.',
      input: z.object({}),
      handler: async () => {
        started++;
        if (slow) await new Promise((r) => setTimeout(r, 500));
        return 'ok';
      },
    });
    const stallConnection = await connectNats({ servers: server.url, name: 'stalling', logger });
    const stalling = await serveRunner({
      nc: stallConnection,
      name: 'stalling-tools',
      version: '1.0.0',
      tools: [stall],
      logger,
    });
    try {
      await catalog.refresh();
      const breakers = new ToolBreakers({ failureThreshold: 2, cooldownMs: 300, logger });
      const guarded = new RunnerToolPort(new ToolGate({ catalog, client: new ToolClient({ nc, logger }), breakers }), {
        tenantId: 'acme',
        conversationId: 'c1',
      });
      const shortCall = (id: string) =>
        guarded.execute({ id, name: 'stall', arguments: {} }, { ...context(), deadlineAt: Date.now() + 100 });
      expect(await shortCall('s1')).toMatchObject({ status: 'timeout' });
      expect(await shortCall('s2')).toMatchObject({ status: 'timeout' });
      const refused = await shortCall('s3');
      expect(refused).toMatchObject({ status: 'failed', errorCode: 'TOOL_CIRCUIT_OPEN' });
      expect(refused.content).toContain('temporarily unavailable');
      expect(started).toBe(2);
      // Other tools are not affected.
      expect(await guarded.execute({ id: 's4', name: 'double', arguments: { n: 1 } }, context())).toMatchObject({
        status: 'success',
      });
      // After the cooldown one trial call goes through; it answers, and the breaker closes.
      slow = false;
      await new Promise((r) => setTimeout(r, 300));
      const call = (id: string) => guarded.execute({ id, name: 'stall', arguments: {} }, context());
      expect(await call('s5')).toMatchObject({ status: 'success' });
      expect(await call('s6')).toMatchObject({ status: 'success' });
      expect(started).toBe(4);
    } finally {
      await stalling.stop(10);
      await stallConnection.close();
      await catalog.refresh();
    }
  });

  it('maps every runner status onto a loop outcome', () => {
    const cases: Array<[Parameters<typeof toOutcome>[0], ToolOutcome['status']]> = [
      [{ status: 'success', output: 'x' }, 'success'],
      [{ status: 'invalid', error: { code: 'INVALID_ARGUMENTS', message: 'm' } }, 'invalid'],
      [{ status: 'failed', error: { code: 'HANDLER_FAILED', message: 'm' } }, 'failed'],
      [{ status: 'timeout', error: { code: 'DEADLINE_EXCEEDED', message: 'm' } }, 'timeout'],
      [{ status: 'busy', error: { code: 'RUNNER_BUSY', message: 'm' } }, 'failed'],
    ];
    for (const [response, status] of cases) expect(toOutcome(response).status).toBe(status);
  });

  it('reports a call that did not finish in time as TIMEOUT, as the loop does, and carries transport repairs', () => {
    expect(toOutcome({ status: 'timeout', error: { code: 'DEADLINE_EXCEEDED', message: 'late' } })).toEqual({
      status: 'timeout',
      content: 'late',
      errorCode: 'TIMEOUT',
    });
    expect(toOutcome({ status: 'success', output: 'x', diagnostics: ['bad bytes'] })).toEqual({
      status: 'success',
      content: 'x',
      diagnostics: ['bad bytes'],
    });
  });
});

describe('the engine over real tool runners', () => {
  it('runs a turn: tool calls over NATS, results in order, final answer', async () => {
    const model = new ScriptedModel([
      reply.calls(['a', 'double', { n: 2 }], ['b', 'echo', {}], ['c', 'double', '{"n":']),
      reply.text('4, and echo is gone'),
    ]);
    const result = await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model, tools: port },
    );
    expect(result.stopReason).toBe('final_answer');
    const results = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(results.map((r) => [r.toolCallId, r.status, r.errorCode])).toEqual([
      ['a', 'success', undefined],
      ['b', 'failed', 'RUNNER_UNAVAILABLE'],
      ['c', 'invalid', 'INVALID_ARGUMENTS'],
    ]);
  });

  it("denies a tool outside the profile's allowlist or a plan subtask's scope as TOOL_NOT_ALLOWED (not an unknown tool); a name nobody serves stays unknown", async () => {
    const gate = new ToolGate({ catalog, client: new ToolClient({ nc, logger }) });
    const echo = defineTool({
      name: 'echo_again',
      description: 'Echoes.',
      input: z.object({}),
      handler: async () => 'echo',
    });
    const extra = await serveRunner({ nc, name: 'extra-tools', version: '1.0.0', tools: [echo], logger });
    try {
      await catalog.refresh();
      const profileOnly = new RunnerToolPort(gate, {
        tenantId: 'acme',
        conversationId: 'c1',
        allowsTool: (name) => name === 'double',
      });
      const subtask = new RunnerToolPort(gate, {
        tenantId: 'acme',
        conversationId: 'c1',
        allowsTool: (name) => name === 'double',
        subtaskScope: ['double'],
      });
      for (const scoped of [profileOnly, subtask]) {
        const model = new ScriptedModel([
          reply.calls(['a', 'double', { n: 2 }], ['b', 'echo_again', {}], ['c', 'no_such_tool', {}]),
          reply.text('done'),
        ]);
        const result = await runAgentLoop(
          { runId: 'run_2', messages: [{ role: 'user', content: 'go' }] },
          { model, tools: scoped },
        );
        const results = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
        expect(results.map((r) => [r.toolCallId, r.status, r.errorCode])).toEqual([
          ['a', 'success', undefined],
          ['b', 'denied', 'TOOL_NOT_ALLOWED'],
          ['c', 'invalid', 'UNKNOWN_TOOL'],
        ]);
        expect(results[1]!.content).not.toContain('there is no tool');
        // The loop classifies it as the documented `not_allowed` failure (docs/plans-and-teams.md).
        expect(result.toolCalls.find((c) => c.errorCode === 'TOOL_NOT_ALLOWED')?.failures).toEqual([
          expect.objectContaining({ class: 'tool', kind: 'not_allowed' }),
        ]);
      }
      expect(subtask.refuse('echo_again')?.content).toContain("this subtask (held to 'double')");
      // The allowlist is applied at execution too, whoever reaches the port.
      expect(await subtask.execute({ id: 'x', name: 'echo_again', arguments: {} }, context())).toMatchObject({
        status: 'denied',
        errorCode: 'TOOL_NOT_ALLOWED',
      });
    } finally {
      await extra.stop(10);
      await catalog.refresh();
    }
  });
});
