import type { ModelPort, ModelRequest, ModelResponse } from '@platform/agent-loop';
import type { AssistantMessage } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { defineTool, serveRunner, ToolCatalog, ToolClient, type ToolRunner } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTurn, type TurnDependencies } from './run-turn.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let runner: ToolRunner;
let catalog: ToolCatalog;

/** A model that answers from a script, one reply per call, and records what it was sent. */
class ScriptedModel implements ModelPort {
  readonly provider = 'scripted';
  readonly model = 'script-1';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly replies: Array<AssistantMessage | Error>) {}
  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const reply = this.replies[this.requests.length - 1] ?? this.replies.at(-1)!;
    if (reply instanceof Error) throw reply;
    return { message: reply, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, finishReason: reply.toolCalls ? 'tool_calls' : 'stop' };
  }
}

const call = (id: string, name: string, args: string): AssistantMessage => ({ role: 'assistant', content: null, toolCalls: [{ id, name, arguments: args }] });
const answer = (text: string): AssistantMessage => ({ role: 'assistant', content: text });

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'test', logger });
  const double = defineTool({ name: 'double', description: 'Doubles a number.', input: z.object({ n: z.number() }), handler: async ({ n }) => ({ value: n * 2 }) });
  runner = await serveRunner({ nc, name: 'test-tools', version: '1.0.0', tools: [double], logger });
  catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 200 });
  await catalog.refresh();
});
afterAll(async () => {
  await runner.stop(100);
  await nc.close();
  await server.stop();
});

function deps(model: ModelPort, maxTurns = 5): TurnDependencies {
  return { model, catalog, tools: new ToolClient({ nc, logger }), logger, maxTurns, toolTimeoutMs: 2_000 };
}
const input = { tenantId: 'acme', conversationId: 'c1', runId: 'run_1', turnDeadlineAt: Date.now() + 30_000, systemPrompt: 'persona', history: [], userMessage: 'double 21' };

describe('runTurn', () => {
  it('runs the requested tools and returns the final answer with every message in order', async () => {
    const model = new ScriptedModel([
      { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'double', arguments: '{"n":21}' }, { id: 'b', name: 'double', arguments: '{"n":1}' }] },
      answer('42 and 2'),
    ]);
    const result = await runTurn(input, deps(model));
    expect(result).toMatchObject({ response: '42 and 2', stopReason: 'final_answer', turns: 2, usage: { totalTokens: 30 } });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.toolCallId)).toEqual(['a', 'b']);
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['double']);
    expect(model.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'persona' });
  });

  it('answers unknown tools and bad arguments with invalid results the model can act on', async () => {
    const model = new ScriptedModel([
      { role: 'assistant', content: null, toolCalls: [{ id: 'x', name: 'triple', arguments: '{}' }, { id: 'y', name: 'double', arguments: '{"n":' }, { id: 'z', name: 'double', arguments: '{"n":"two"}' }] },
      answer('sorry'),
    ]);
    const result = await runTurn(input, deps(model));
    const tools = result.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.role === 'tool' && [m.status, m.errorCode])).toEqual([
      ['invalid', 'UNKNOWN_TOOL'],
      ['invalid', 'INVALID_ARGUMENTS'],
      ['invalid', 'INVALID_ARGUMENTS'],
    ]);
    expect(tools[0]!.role === 'tool' && tools[0]!.content).toContain('Available tools: double');
  });

  it('stops at the turn limit with one last call that may not use tools', async () => {
    const model = new ScriptedModel([call('loop', 'double', '{"n":1}'), call('loop2', 'double', '{"n":1}'), answer('summary')]);
    const result = await runTurn(input, deps(model, 2));
    expect(result).toMatchObject({ stopReason: 'max_turns', response: 'summary', turns: 2 });
    expect(model.requests.at(-1)!.toolChoice).toBe('none');
  });

  it('ends the turn with a clear message when the model fails, keeping completed tool results', async () => {
    const model = new ScriptedModel([call('ok', 'double', '{"n":2}'), new Error('connection refused')]);
    const result = await runTurn(input, deps(model));
    expect(result.stopReason).toBe('model_error');
    expect(result.response).toContain('connection refused');
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });
});
