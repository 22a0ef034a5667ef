import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import type { LoopEvent } from './events.js';
import { compileLoopConfig } from './loop-config.js';
import { FakeClock, FakeTools, reply, ScriptedModel, type ScriptStep } from './testing/index.js';

type Of<T extends LoopEvent['type']> = Extract<LoopEvent, { type: T }>;

const tools = { calc: { run: () => ({ status: 'success' as const, content: '84' }) } };

async function run(script: ScriptStep[], stream: boolean, history: ChatMessage[] = []): Promise<LoopEvent[]> {
  const clock = new FakeClock();
  const events: LoopEvent[] = [];
  await clock.settle(
    runAgentLoop(
      { runId: 'run-1', messages: [...history, { role: 'user', content: 'go' }] },
      {
        model: new ScriptedModel(script, { chunkChars: 5 }),
        tools: new FakeTools(tools, clock),
        clock,
        config: compileLoopConfig({}),
        events: (e) => events.push(e),
        stream,
      },
    ),
  );
  return events;
}

const ofType = <T extends LoopEvent['type']>(events: LoopEvent[], type: T): Array<Of<T>> =>
  events.filter((e): e is Of<T> => e.type === type);

describe('runAgentLoop: tool call arguments as the model writes them', () => {
  it('streams each call when it appears and its argument pieces in order, before the message ends', async () => {
    const events = await run(
      [
        reply.calls(['call_a', 'calc', { expression: '12 * (3 + 4)' }], ['call_b', 'calc', { expression: '1 + 1' }]),
        reply.text('84'),
      ],
      true,
    );
    const deltas = ofType(events, 'tool_call_args_delta');
    const [end] = ofType(events, 'message_end');
    const calls = end!.message.toolCalls ?? [];
    expect(calls).toHaveLength(2);
    for (const [index, call] of calls.entries()) {
      const own = deltas.filter((d) => d.index === index);
      expect(own[0]).toMatchObject({ iteration: 1, callId: call.id, name: 'calc', delta: '' });
      expect(own.length).toBeGreaterThan(2);
      expect(own.every((d) => d.callId === call.id)).toBe(true);
      expect(own.map((d) => d.delta).join('')).toBe(call.arguments);
    }
    // Every delta comes before the message's end, and that before the calls start.
    const lastDelta = events.indexOf(deltas.at(-1)!);
    expect(lastDelta).toBeLessThan(events.indexOf(end!));
    const starts = ofType(events, 'tool_call_start');
    expect(starts.map((s) => s.callId)).toEqual(calls.map((c) => c.id));
    expect(events.indexOf(end!)).toBeLessThan(events.indexOf(starts[0]!));
  });

  it('tells the ids the calls keep when the model gives none, or one the conversation used', async () => {
    const history: ChatMessage[] = [
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_used', name: 'calc', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_used', toolName: 'calc', content: '1', status: 'success', isError: false },
    ];
    const events = await run(
      [
        reply.calls(
          ['call_used', 'calc', { expression: '1' }],
          ['', 'calc', { expression: '2' }],
          ['call_used', 'calc', '{}'],
        ),
        reply.text('done'),
      ],
      true,
      history,
    );
    const starts = ofType(events, 'tool_call_start');
    expect(starts).toHaveLength(3);
    expect(new Set(starts.map((s) => s.callId)).size).toBe(3);
    expect(starts.map((s) => s.callId)).not.toContain('call_used');
    const deltas = ofType(events, 'tool_call_args_delta');
    for (const [index, start] of starts.entries()) {
      const own = deltas.filter((d) => d.index === index);
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((d) => d.callId === start.callId)).toBe(true);
      expect(own.map((d) => d.delta).join('')).toBe(start.arguments);
    }
  });

  it("starts afresh on a retried model call: the new call's deltas again from the start", async () => {
    let calls = 0;
    const flaky: ScriptStep = (request) => {
      calls += 1;
      const message = reply.calls(['call_a', 'calc', { expression: '3' }]);
      // The first attempt streams its call, then the connection breaks.
      if (calls === 1) {
        request.onToolCallDelta?.({ index: 0, id: 'call_a', name: 'calc', arguments: '{"exp' });
        throw new (class extends Error {})('cut');
      }
      return message;
    };
    // One script step per model call: the failed attempt, its retry, the answer.
    const events = await run([flaky, flaky, reply.text('3')], true);
    const retry = events.findIndex((e) => e.type === 'state_change' && e.state === 'retrying_model');
    expect(retry).toBeGreaterThan(0);
    const after = ofType(events.slice(retry), 'tool_call_args_delta');
    expect(after.map((d) => d.delta).join('')).toBe(JSON.stringify({ expression: '3' }));
  });

  it('sends no deltas when the run does not stream', async () => {
    const events = await run([reply.calls(['call_a', 'calc', { expression: '1' }]), reply.text('1')], false);
    expect(ofType(events, 'tool_call_args_delta')).toEqual([]);
    expect(ofType(events, 'tool_call_start')).toHaveLength(1);
  });
});
