import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import { compileLoopConfig } from './loop-config.js';
import { FakeClock, FakeTools, reply, ScriptedModel } from './testing/index.js';

const messages: ChatMessage[] = [
  { role: 'system', content: 'persona' },
  { role: 'user', content: 'book it' },
];

describe('incoming messages (steering)', () => {
  it('adds them after the step in progress, before the next model call, which sees them; the turn keeps them in order', async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel([reply.calls(['a', 'lookup', {}]), reply.text('done, on wednesday')]);
    const tools = new FakeTools({ lookup: { run: () => ({ status: 'success', content: 'found' }) } }, clock);
    const asked: number[] = [];
    const result = await clock.settle(
      runAgentLoop(
        { runId: 'run-1', messages },
        {
          model,
          tools,
          clock,
          config: compileLoopConfig({}),
          incoming: ({ iteration }) => {
            asked.push(iteration);
            return iteration === 2 ? [{ role: 'user', content: 'make it wednesday' }] : [];
          },
        },
      ),
    );
    expect(result.stopReason).toBe('final_answer');
    expect(asked).toEqual([1, 2]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.messages.some((m) => m.content === 'make it wednesday')).toBe(false);
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(model.requests[1]?.messages.at(-1)?.content).toBe('make it wednesday');
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'user', 'assistant']);
  });

  it('goes on without messages when the source throws', async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel([reply.text('hello')]);
    const result = await clock.settle(
      runAgentLoop(
        { runId: 'run-2', messages },
        {
          model,
          tools: new FakeTools({}, clock),
          clock,
          config: compileLoopConfig({}),
          incoming: () => Promise.reject(new Error('the store is down')),
        },
      ),
    );
    expect(result.stopReason).toBe('final_answer');
    expect(result.messages.map((m) => m.role)).toEqual(['assistant']);
  });
});
