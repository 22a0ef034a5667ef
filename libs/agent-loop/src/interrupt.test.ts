import type { ChatMessage, ToolMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import { compileLoopConfig } from './loop-config.js';
import { RunControl } from './run-control.js';
import { FakeClock, FakeTools, reply, ScriptedModel } from './testing/index.js';

const messages: ChatMessage[] = [
  { role: 'system', content: 'persona' },
  { role: 'user', content: 'look it up' },
];

describe('interrupt', () => {
  it('stops after the step in progress: its tool calls finish and keep their results, no further model call', async () => {
    const clock = new FakeClock();
    const control = new RunControl();
    const model = new ScriptedModel([reply.calls(['a', 'lookup', {}], ['b', 'lookup', {}]), reply.text('never')]);
    const tools = new FakeTools(
      {
        lookup: {
          // The interrupt arrives while the step's calls run: they are not aborted.
          run: () => {
            control.interrupt();
            return { status: 'success', content: 'found' };
          },
        },
      },
      clock,
    );
    const result = await clock.settle(
      runAgentLoop({ runId: 'run-1', messages }, { model, tools, clock, control, config: compileLoopConfig({}) }),
    );
    expect(result.stopReason).toBe('interrupted');
    expect(result.turns).toBe(1);
    expect(model.requests).toHaveLength(1);
    const results = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(results.map((m) => [m.toolCallId, m.status, m.synthetic ?? false])).toEqual([
      ['a', 'success', false],
      ['b', 'success', false],
    ]);
  });

  it('waits while mayInterrupt says no (a journal replaying), then stops at the next boundary', async () => {
    const clock = new FakeClock();
    const control = new RunControl();
    control.interrupt();
    let replaying = true;
    const model = new ScriptedModel([reply.calls(['a', 'lookup', {}]), reply.text('never')]);
    const tools = new FakeTools(
      {
        lookup: {
          run: () => {
            replaying = false;
            return { status: 'success', content: 'found' };
          },
        },
      },
      clock,
    );
    const result = await clock.settle(
      runAgentLoop(
        { runId: 'run-1', messages },
        { model, tools, clock, control, mayInterrupt: () => !replaying, config: compileLoopConfig({}) },
      ),
    );
    expect(result.stopReason).toBe('interrupted');
    expect(model.requests).toHaveLength(1);
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
  });
});
