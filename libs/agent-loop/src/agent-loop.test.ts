import type { ChatMessage, ToolMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgentLoop, type LoopDependencies } from './agent-loop.js';
import type { LoopEvent } from './events.js';
import { finalAnswerMarker } from './hooks.js';
import { compileLoopConfig, type LoopConfigInput } from './loop-config.js';
import type { AgentLoopResult } from './loop-result.js';
import { ModelError } from './model-errors.js';
import { RunControl } from './run-control.js';
import { FakeClock, FakeTools, reply, ScriptedModel, type FakeTool, type ScriptStep } from './testing/index.js';

const input = (content = 'hello'): { runId: string; messages: ChatMessage[] } => ({
  runId: 'run-1',
  messages: [
    { role: 'system', content: 'persona' },
    { role: 'user', content },
  ],
});

const ok = (content: string) => ({ status: 'success' as const, content });

interface Harness {
  clock: FakeClock;
  model: ScriptedModel;
  tools: FakeTools;
  events: LoopEvent[];
  run(overrides?: Partial<LoopDependencies>): Promise<AgentLoopResult>;
}

function harness(script: ScriptStep[], tools: Record<string, FakeTool> = {}, config: LoopConfigInput = {}): Harness {
  const clock = new FakeClock();
  const model = new ScriptedModel(script);
  const fakeTools = new FakeTools(tools, clock);
  const events: LoopEvent[] = [];
  return {
    clock,
    model,
    tools: fakeTools,
    events,
    run: (overrides = {}) =>
      clock.settle(
        runAgentLoop(input(), {
          model,
          tools: fakeTools,
          clock,
          config: compileLoopConfig(config),
          events: (e) => events.push(e),
          ...overrides,
        }),
      ),
  };
}

/** Closure: every call in the produced messages has exactly one result, right after its message. */
function expectClosure(messages: readonly ChatMessage[]): void {
  messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.toolCalls?.length) return;
    const ids = message.toolCalls.map((c) => c.id);
    const following = messages.slice(index + 1, index + 1 + ids.length) as ToolMessage[];
    expect(following.map((m) => m.role)).toEqual(ids.map(() => 'tool'));
    expect(following.map((m) => m.toolCallId).sort()).toEqual([...ids].sort());
  });
  const resultIds = messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
  expect(new Set(resultIds).size).toBe(resultIds.length);
}

describe('runAgentLoop: answers and tools', () => {
  it('returns the final answer and only the messages the turn produced', async () => {
    const h = harness([reply.text('hi there')]);
    const result = await h.run();
    expect(result).toMatchObject({
      response: 'hi there',
      stopReason: 'final_answer',
      turns: 1,
      usage: { totalTokens: 15 },
    });
    expect(result.messages).toEqual([
      { role: 'assistant', content: 'hi there', provider: 'scripted', model: 'script-1' },
    ]);
    expect(result.transcript).toHaveLength(1);
  });

  it('cuts long argument values in its records without splitting a character (Postgres refuses half an emoji in jsonb)', async () => {
    const body = `${'a'.repeat(199)}😀 and more`;
    const h = harness([reply.calls(['e', 'mail', { body, to: 'x' }]), reply.text('sent')], {
      mail: { run: () => ok('queued') },
    });
    const result = await h.run();
    const summary = result.toolCalls[0]!.argumentsSummary;
    expect(summary).toEqual({ body: `${'a'.repeat(199)}…`, to: 'x' });
    // What Postgres would store: well-formed JSON text with no escaped lone surrogate.
    expect(JSON.stringify(summary)).not.toMatch(/\\ud[89ab]/i);
  });

  it('gives every call a usable, new id: repeated, reused, empty or malformed ids are replaced, the same way on a replay', async () => {
    // A server that numbers calls from 0 in every response, repeats an id, and sends an empty one.
    const script = () => [
      reply.calls(['call_0', 't', { n: 1 }], ['call_0', 't', { n: 2 }]),
      reply.calls(['call_0', 't', { n: 3 }], ['', 't', { n: 4 }], ['has space', 't', { n: 5 }]),
      reply.text('done'),
    ];
    const first = harness(script(), { t: { run: () => ok('ok') } });
    const result = await first.run();
    const ids = first.tools.calls.map((c) => c.id);
    expect(ids[0]).toBe('call_0');
    expect(new Set(ids).size).toBe(5);
    for (const id of ids.slice(1)) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expectClosure(result.messages);
    // The stored assistant messages carry the ids the calls ran with.
    const asked = result.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(asked).toEqual(ids);
    // The same run replayed derives the same ids (journaled outcomes are found by them).
    const again = harness(script(), { t: { run: () => ok('ok') } });
    await again.run();
    expect(again.tools.calls.map((c) => c.id)).toEqual(ids);
  });

  it('replaces a call id the conversation already used in an earlier turn', async () => {
    const h = harness([reply.calls(['call_0', 't', {}]), reply.text('done')], { t: { run: () => ok('ok') } });
    const history: ChatMessage[] = [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_0', name: 't', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_0', toolName: 't', content: 'old', status: 'success', isError: false },
      { role: 'user', content: 'again' },
    ];
    await h.clock.settle(
      runAgentLoop({ runId: 'run_1', messages: history }, { model: h.model, tools: h.tools, clock: h.clock }),
    );
    expect(h.tools.calls.map((c) => c.id)).toEqual([expect.stringMatching(/^call_[0-9a-f]{24}$/)]);
  });

  it('runs all calls of one response concurrently and appends results in call order', async () => {
    const h = harness([reply.calls(['a', 'slow', {}], ['b', 'fast', {}]), reply.text('done')], {
      slow: { takesMs: 2_000, run: () => ok('slow result') },
      fast: { takesMs: 500, run: () => ok('fast result') },
    });
    const result = await h.run();
    // Both started before either ended: they overlapped.
    expect(h.tools.log).toEqual(['start a', 'start b', 'end b', 'end a']);
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.toolCallId)).toEqual([
      'a',
      'b',
    ]);
    expect(result.toolCalls.map((c) => [c.name, c.success])).toEqual([
      ['slow', true],
      ['fast', true],
    ]);
    expectClosure(result.messages);
  });

  it('turns a tool failure into an error result and lets the model decide', async () => {
    const h = harness([reply.calls(['a', 'flaky', {}]), reply.text('it failed, sorry')], {
      flaky: { run: () => ({ status: 'failed', content: 'upstream 503', errorCode: 'HANDLER_FAILED' }) },
    });
    const result = await h.run();
    expect(result.stopReason).toBe('final_answer');
    expect(result.messages[1]).toMatchObject({
      role: 'tool',
      status: 'failed',
      isError: true,
      content: 'Error: upstream 503',
    });
    expect(h.model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', isError: true });
  });

  it('answers unknown tools, bad JSON and schema violations with invalid results naming what is available', async () => {
    const h = harness(
      [
        reply.calls(
          ['a', 'nope', {}],
          ['b', 'add', '{"x": 1,'],
          ['c', 'add', { x: 'one' }],
          ['d', 'add<|im_end|>', { x: 1, y: 2 }],
        ),
        reply.text('ok'),
      ],
      {
        add: {
          input: z.object({ x: z.number(), y: z.number() }),
          run: (args) => ok(String(Number(args['x']) + Number(args['y']))),
        },
      },
    );
    const result = await h.run();
    const tools = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(tools.map((t) => [t.toolCallId, t.status, t.errorCode])).toEqual([
      ['a', 'invalid', 'UNKNOWN_TOOL'],
      ['b', 'invalid', 'INVALID_ARGUMENTS'],
      ['c', 'invalid', 'INVALID_ARGUMENTS'],
      ['d', 'success', undefined],
    ]);
    expect(tools[0]!.content).toContain('Available tools: add');
    expect(tools[1]!.content).toContain('not a valid JSON object');
    expect(tools[3]!.content).toBe('3');
  });

  it('blocks calls past the per-iteration cap', async () => {
    const h = harness(
      [reply.calls(['a', 't', { n: 1 }], ['b', 't', { n: 2 }], ['c', 't', { n: 3 }]), reply.text('ok')],
      { t: { run: () => ok('x') } },
      { maxToolCallsPerIteration: 2 },
    );
    const result = await h.run();
    expect(result.toolCalls.map((c) => c.status)).toEqual(['success', 'success', 'blocked']);
    expectClosure(result.messages);
  });
});

describe('runAgentLoop: stop reasons', () => {
  it('max turns: one more call without tools, with the instruction only in the request view', async () => {
    const h = harness(
      [reply.calls(['a', 't', { n: 1 }]), reply.calls(['b', 't', { n: 2 }]), reply.text('summary')],
      { t: { run: () => ok('x') } },
      { maxTurns: 2 },
    );
    const result = await h.run();
    expect(result).toMatchObject({ stopReason: 'max_turns', response: 'summary', turns: 3 });
    const last = h.model.requests.at(-1)!;
    expect(last.toolChoice).toBe('none');
    expect(last.tools).toEqual([]);
    expect(last.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Answer now') });
    expect(result.messages.some((m) => m.role === 'user')).toBe(false);
    expectClosure(result.messages);
  });

  it('deadline: a call still running is closed and the loop stops', async () => {
    const h = harness(
      [reply.calls(['a', 'forever', {}]), reply.text('never')],
      { forever: { takesMs: 1_000_000, run: () => ok('x') } },
      { turnDeadlineMs: 10_000, toolTimeoutMs: 500_000 },
    );
    const result = await h.run();
    expect(result.stopReason).toBe('deadline');
    expect(result.messages[1]).toMatchObject({ role: 'tool', toolCallId: 'a', isError: true });
    expect(['timeout', 'cancelled', 'blocked']).toContain((result.messages[1] as ToolMessage).status);
    expectClosure(result.messages);
  });

  it('tool timeout: the call gets a timeout result and the loop continues', async () => {
    const h = harness(
      [reply.calls(['a', 'slow', {}]), reply.text('gave up on it')],
      { slow: { takesMs: 60_000, run: () => ok('x') } },
      { toolTimeoutMs: 1_000 },
    );
    const result = await h.run();
    expect(result.messages[1]).toMatchObject({ status: 'timeout', errorCode: 'TIMEOUT', synthetic: true });
    expect(result.stopReason).toBe('final_answer');
  });

  it('agent-tools get the longer timeout', async () => {
    const h = harness(
      [reply.calls(['a', 'agent', {}]), reply.text('ok')],
      { agent: { kind: 'agent', takesMs: 5_000, run: () => ok('booked') } },
      { toolTimeoutMs: 1_000, agentToolTimeoutMs: 10_000 },
    );
    const result = await h.run();
    expect(result.messages[1]).toMatchObject({ status: 'success', content: 'booked' });
  });

  it('repeat guard: identical calls past the threshold are skipped, then the loop stops', async () => {
    const h = harness(
      [
        reply.calls(['a', 't', { q: 'x' }]),
        reply.calls(['b', 't', { q: 'x' }]),
        reply.calls(['c', 't', { q: 'x' }]),
        reply.text('summary'),
      ],
      { t: { run: () => ok('same') } },
      { repeatGuardThreshold: 2 },
    );
    const result = await h.run();
    expect(result.stopReason).toBe('repeat_guard');
    expect(result.toolCalls.map((c) => c.status)).toEqual(['success', 'success', 'skipped']);
    expect(result.messages.find((m) => m.role === 'tool' && m.toolCallId === 'c')).toMatchObject({
      errorCode: 'REPEATED_CALL',
    });
    expect(result.response).toBe('summary');
    expectClosure(result.messages);
  });

  it('agent waiting: stops with the pending request and the prompt as the response', async () => {
    const pending = {
      agentName: 'SendEmailAgent',
      waitingFor: 'approval' as const,
      prompt: 'Send the email to team@example.com?',
      approval: { actionSummary: 'Send email' },
    };
    const h = harness([reply.calls(['a', 'send_email', {}], ['b', 'weather', {}])], {
      send_email: {
        kind: 'agent',
        run: () => ({ status: 'waiting', content: 'Waiting for the user to approve sending the email.', pending }),
      },
      weather: { run: () => ok('sunny') },
    });
    const result = await h.run();
    expect(result).toMatchObject({
      stopReason: 'agent_waiting',
      response: 'Send the email to team@example.com?',
      pendingAgents: [{ callId: 'a', ...pending }],
    });
    expect(h.events.some((e) => e.type === 'state_change' && e.state === 'waiting_for_approval')).toBe(true);
    expectClosure(result.messages);
  });

  it('cancelled: calls in flight get cancelled results', async () => {
    const control = new RunControl();
    const h = harness([reply.calls(['a', 'slow', {}], ['b', 'slow', {}]), reply.text('never')], {
      slow: {
        run: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () =>
              resolve({ status: 'failed', content: 'aborted', errorCode: 'ABORTED' }),
            );
            setImmediate(() => control.cancel('user pressed stop'));
          }),
      },
    });
    const result = await h.run({ control });
    expect(result.stopReason).toBe('cancelled');
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.status)).toEqual(['cancelled', 'cancelled']);
    expectClosure(result.messages);
  });

  it('stop predicate: the FINAL_ANSWER marker ends the loop and closes calls of that response', async () => {
    const h = harness(
      [{ role: 'assistant', content: 'FINAL_ANSWER: 42', toolCalls: [{ id: 'x', name: 't', arguments: '{}' }] }],
      { t: { run: () => ok('x') } },
    );
    const result = await h.run({ stopWhen: finalAnswerMarker() });
    expect(result).toMatchObject({ stopReason: 'stop_condition', response: 'FINAL_ANSWER: 42' });
    expect(result.messages[1]).toMatchObject({ status: 'skipped', errorCode: 'STOP_CONDITION' });
    expect(h.tools.calls).toEqual([]);
  });

  it('model error: an auth failure is not retried and ends the turn with a clear response', async () => {
    const h = harness([new ModelError('auth', 'invalid api key; check OPENAI_API_KEY', { status: 401 })]);
    const result = await h.run();
    expect(result).toMatchObject({ stopReason: 'model_error', error: { kind: 'auth' } });
    expect(result.response).toContain('check OPENAI_API_KEY');
    expect(h.model.requests).toHaveLength(1);
  });

  it('protocol feedback: an unparseable text-protocol reply becomes an observation and the loop goes on', async () => {
    const h = harness([
      () => ({
        message: { role: 'assistant', content: 'Action: {broken' },
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        finishReason: 'stop',
        protocolFeedback: 'Observation: Error parsing your response',
      }),
      reply.text('Final'),
    ]);
    const result = await h.run();
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    // The feedback is the platform's, not the user's: marked so, in history too.
    expect(result.messages[1]).toEqual({
      role: 'user',
      content: 'Observation: Error parsing your response',
      synthetic: true,
    });
    expect(result.response).toBe('Final');
  });
});

describe('runAgentLoop: model call recovery', () => {
  it('honours retry-after on a rate limit (fake clock), then succeeds', async () => {
    const h = harness([new ModelError('rate_limit', 'slow down', { retryAfterMs: 5_000 }), reply.text('ok')]);
    const sleepsBefore = h.clock.sleeps.length;
    const result = await h.run();
    expect(result.response).toBe('ok');
    expect(h.clock.sleeps.slice(sleepsBefore)).toContain(5_000);
    expect(result.transcript[0]!.model.retries).toBe(1);
  });

  it('backs off exponentially and gives up after the configured retries', async () => {
    const h = harness(
      [new ModelError('server', 'boom')],
      {},
      { llmMaxRetries: 2, llmRetryBaseDelayMs: 1_000, llmRetryJitter: 0 },
    );
    const result = await h.run();
    expect(result.stopReason).toBe('model_error');
    expect(h.model.requests).toHaveLength(3);
    expect(h.clock.sleeps).toEqual(expect.arrayContaining([1_000, 2_000]));
  });

  it('retries a timeout once', async () => {
    const h = harness([new ModelError('timeout', 't1'), new ModelError('timeout', 't2'), reply.text('late')]);
    const result = await h.run();
    expect(result.stopReason).toBe('model_error');
    expect(h.model.requests).toHaveLength(2);
  });

  it('moves to the fallback model when the primary cannot recover', async () => {
    const h = harness([new ModelError('quota_exhausted', 'no credit')]);
    const fallback = new ScriptedModel([reply.text('from fallback')], { provider: 'other', model: 'backup-1' });
    const result = await h.run({ fallbackModels: [fallback] });
    expect(result.response).toBe('from fallback');
    expect(result.transcript[0]!.model).toMatchObject({ provider: 'other', fallbackUsed: true });
  });

  it('recovers from context overflow by trim, then tool-result truncation, then force trim, in that order', async () => {
    // A long history with big tool results, still under the trim threshold: the first view sends it all.
    const history: ChatMessage[] = [{ role: 'system', content: 'persona' }];
    for (let i = 0; i < 10; i++) {
      history.push({ role: 'user', content: `question ${i}` });
      history.push({ role: 'assistant', content: null, toolCalls: [{ id: `h${i}`, name: 'search', arguments: '{}' }] });
      history.push({
        role: 'tool',
        toolCallId: `h${i}`,
        toolName: 'search',
        content: 'r'.repeat(5_000),
        status: 'success',
        isError: false,
      });
    }
    history.push({ role: 'user', content: 'latest' });
    const seen: Array<{ messages: number; biggestTool: number }> = [];
    const clock = new FakeClock();
    const model = new ScriptedModel([
      (request) => {
        const tools = request.messages.filter((m) => m.role === 'tool').map((m) => m.content?.length ?? 0);
        seen.push({ messages: request.messages.length, biggestTool: Math.max(0, ...tools) });
        return seen.length < 4 ? new ModelError('context_overflow', 'too long') : reply.text('fits now');
      },
    ]);
    const config = compileLoopConfig({ maxHistoryMessages: 12, forceTrimMessages: 4, overflowToolResultChars: 1_000 });
    const result = await clock.settle(
      runAgentLoop({ runId: 'r', messages: history }, { model, tools: new FakeTools({}, clock), clock, config }),
    );
    expect(result.response).toBe('fits now');
    expect(seen[0]).toEqual({ messages: 32, biggestTool: 5_000 }); // full
    expect(seen[1]).toEqual({ messages: 13, biggestTool: 5_000 }); // trimmed: system + last 12
    expect(seen[2]!.messages).toBe(13); // tool results truncated
    expect(seen[2]!.biggestTool).toBeLessThan(1_100);
    expect(seen[3]!.messages).toBeLessThanOrEqual(5); // force trimmed: system + last 4
    expect(result.transcript[0]!.view.stage).toBe('force_trimmed');
    expect(history).toHaveLength(32); // raw input untouched
  });

  it('spreads retries with jitter: each wait is between half and all of the exponential delay', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 50; i++) {
      const h = harness([new ModelError('server', 'boom'), reply.text('ok')], {}, { llmRetryBaseDelayMs: 1_000 });
      await h.run();
      // The other sleep is the turn's deadline timer (turnTimeoutMs, 120 s by default).
      waits.push(...h.clock.sleeps.filter((ms) => ms !== 120_000));
    }
    expect(waits).toHaveLength(50);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1_000);
    expect(new Set(waits).size).toBeGreaterThan(10);
  });

  it('tries the fallback model with the full view when even the force-trimmed view overflows the primary', async () => {
    const h = harness([new ModelError('context_overflow', 'too long')]);
    const fallback = new ScriptedModel([reply.text('a larger context fits it')], {
      provider: 'other',
      model: 'long-context',
    });
    const result = await h.run({ fallbackModels: [fallback] });
    expect(result.response).toBe('a larger context fits it');
    expect(h.model.requests).toHaveLength(4);
    expect(fallback.requests).toHaveLength(1);
    expect(result.transcript[0]!.model).toMatchObject({ model: 'long-context', fallbackUsed: true });
  });

  it('gives up with context_overflow when even the force-trimmed view is too long', async () => {
    const h = harness([new ModelError('context_overflow', 'too long')]);
    const result = await h.run();
    expect(result.stopReason).toBe('context_overflow');
    expect(h.model.requests).toHaveLength(4);
    expect(result.response).toContain('start a new conversation');
  });
});

describe('runAgentLoop: events', () => {
  it('streams model text and numbers every event of the run', async () => {
    const h = harness([reply.calls(['a', 't', {}]), reply.text('streamed answer')], { t: { run: () => ok('x') } });
    await h.run({ stream: true });
    const types = h.events.map((e) => e.type);
    expect(types[0]).toBe('execution_start');
    expect(types.at(-1)).toBe('execution_end');
    expect(types).toEqual(
      expect.arrayContaining([
        'message_start',
        'message_chunk',
        'message_end',
        'tool_call_start',
        'tool_result',
        'iteration_complete',
        'state_change',
      ]),
    );
    expect(h.events.map((e) => e.seq)).toEqual(h.events.map((_, i) => i + 1));
    // An iteration's events in order: the model's message ends before its tool calls start.
    const first = types
      .slice(types.indexOf('message_start'), types.indexOf('iteration_complete') + 1)
      .filter((t) => t !== 'message_chunk' && t !== 'tool_call_args_delta');
    expect(first).toEqual(['message_start', 'message_end', 'tool_call_start', 'tool_result', 'iteration_complete']);
    expect(new Set(h.events.map((e) => e.runId))).toEqual(new Set(['run-1']));
    const text = h.events.flatMap((e) => (e.type === 'message_chunk' ? [e.delta] : [])).join('');
    expect(text).toBe('streamed answer');
  });
});
