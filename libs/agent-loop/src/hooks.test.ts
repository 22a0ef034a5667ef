import type { ChatMessage, ToolMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import type { LoopEvent } from './events.js';
import type { LoopHooks } from './hooks.js';
import { RunControl } from './run-control.js';
import { FakeClock, FakeTools, reply, ScriptedModel } from './testing/index.js';

const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];

async function run(
  hooks: LoopHooks,
  script = [reply.calls(['a', 'echo', { text: 'hi' }]), reply.text('done')],
  control?: RunControl,
) {
  const clock = new FakeClock();
  const model = new ScriptedModel(script);
  const tools = new FakeTools(
    { echo: { run: (args) => ({ status: 'success', content: String(args['text']) }) } },
    clock,
  );
  const events: LoopEvent[] = [];
  const result = await clock.settle(
    runAgentLoop(
      { runId: 'r', messages },
      { model, tools, clock, hooks, events: (e) => events.push(e), ...(control ? { control } : {}) },
    ),
  );
  const results = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
  return { result, results, tools, model, events };
}

describe('tool hooks', () => {
  it('beforeTool may change the arguments', async () => {
    const { results, tools } = await run({
      beforeTool: async ({ call }) => ({ arguments: { ...call.arguments, text: 'changed' } }),
    });
    expect(results[0]).toMatchObject({ status: 'success', content: 'changed' });
    expect(tools.calls[0]!.arguments).toEqual({ text: 'changed' });
  });

  it('beforeTool may skip a call', async () => {
    const { results, tools } = await run({ beforeTool: async () => ({ skip: 'not needed today' }) });
    expect(results[0]).toMatchObject({ status: 'skipped', synthetic: true, content: 'Error: not needed today' });
    expect(tools.calls).toEqual([]);
  });

  it('beforeTool may supply the result', async () => {
    const { results, tools } = await run({
      beforeTool: async () => ({ result: { status: 'success', content: 'cached' } }),
    });
    expect(results[0]).toMatchObject({ status: 'success', content: 'cached' });
    expect(tools.calls).toEqual([]);
  });

  it('approveTool may deny a call, which the model sees as a denied result', async () => {
    const { results, tools, model } = await run({
      approveTool: async () => ({ approved: false, reason: 'the user said no' }),
    });
    expect(results[0]).toMatchObject({ status: 'denied', isError: true, errorCode: 'DENIED', synthetic: true });
    expect(results[0]!.content).toContain('the user said no');
    expect(tools.calls).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', status: 'denied' });
  });

  it('a throwing approval hook denies (fails closed) and is reported', async () => {
    const { results, events } = await run({
      approveTool: async () => {
        throw new Error('policy service down');
      },
    });
    expect(results[0]!.status).toBe('denied');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'hook_error', hook: 'approveTool', message: 'policy service down' }),
    );
  });

  it('afterTool may change the result', async () => {
    const { results } = await run({
      afterTool: async ({ outcome }) => ({ ...outcome, content: `[redacted ${outcome.content.length} chars]` }),
    });
    expect(results[0]!.content).toBe('[redacted 2 chars]');
  });
});

describe('model and step hooks', () => {
  it('beforeModelCall may change the request and afterModelCall the response', async () => {
    const { result, model } = await run(
      {
        beforeModelCall: async ({ request }) => ({
          ...request,
          messages: [...request.messages, { role: 'system', content: 'be brief' }],
        }),
        afterModelCall: async ({ response }) => ({
          ...response,
          message: { ...response.message, content: response.message.content?.toUpperCase() ?? null },
        }),
      },
      [reply.text('quiet')],
    );
    expect(model.requests[0]!.messages.at(-1)).toEqual({ role: 'system', content: 'be brief' });
    expect(result.response).toBe('QUIET');
  });

  it('prepareStep may replace the messages a view is built from, and stepFinished sees each record', async () => {
    const records: number[] = [];
    const { model } = await run({
      prepareStep: async ({ messages: current }) => [{ role: 'system', content: 'only this' }, ...current.slice(-1)],
      stepFinished: async ({ record }) => {
        records.push(record.iteration);
      },
    });
    expect(model.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'only this' });
    expect(records).toEqual([1, 2]);
  });
});

describe('pause and resume', () => {
  it('holds the run at an iteration boundary until resumed', async () => {
    const control = new RunControl();
    let asked = 0;
    const hooks: LoopHooks = {
      pauseCheck: async ({ iteration }) => {
        asked += 1;
        if (iteration === 2) setImmediate(() => control.resume());
        return { pause: iteration === 2, reason: 'operator pause' };
      },
    };
    const { result, events } = await run(hooks, undefined, control);
    expect(result.stopReason).toBe('final_answer');
    expect(asked).toBe(2);
    const states = events.flatMap((e) => (e.type === 'state_change' ? [e.state] : []));
    expect(states).toEqual(['running', 'paused', 'running', 'finished']);
  });

  it('cancelling a paused run stops it as cancelled', async () => {
    const control = new RunControl();
    const hooks: LoopHooks = {
      pauseCheck: async () => {
        setImmediate(() => control.cancel());
        return { pause: true };
      },
    };
    const { result } = await run(hooks, undefined, control);
    expect(result.stopReason).toBe('cancelled');
    expect(result.turns).toBe(0);
  });
});
