import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import type { LoopEvent } from './events.js';
import { classifyModelFailure, classifyToolResult, withRecovery } from './failures.js';
import { compileLoopConfig } from './loop-config.js';
import { ModelError } from './model-errors.js';
import { FakeClock, FakeTools, reply, ScriptedModel, type FakeTool, type ScriptStep } from './testing/index.js';

describe('classifying failures', () => {
  it('classifies model failures by kind and by what the retry layer did', () => {
    expect(classifyModelFailure('server', 'retry', true)).toEqual({
      class: 'llm',
      kind: 'server',
      severity: 'medium',
      recovery: 'retry',
    });
    expect(classifyModelFailure('context_overflow', 'shrink_view', false)).toEqual({
      class: 'llm',
      kind: 'context_overflow',
      severity: 'medium',
      recovery: 'retry',
    });
    expect(classifyModelFailure('quota_exhausted', 'next_model', true)).toEqual({
      class: 'llm',
      kind: 'quota_exhausted',
      severity: 'high',
      recovery: 'fallback',
    });
    // Nothing left to try: the run stops on it, so it is at least high.
    expect(classifyModelFailure('server', 'next_model', false)).toEqual({
      class: 'llm',
      kind: 'server',
      severity: 'high',
      recovery: 'none',
    });
    expect(classifyModelFailure('rate_limit', 'give_up', false)).toMatchObject({ severity: 'high', recovery: 'none' });
    expect(classifyModelFailure('cancelled', 'give_up', false)).toBeUndefined();
  });

  it('classifies tool results by error code, and delegations as coordination', () => {
    expect(classifyToolResult('timeout', 'TIMEOUT')).toEqual({
      class: 'tool',
      kind: 'timeout',
      severity: 'medium',
      recovery: 'none',
    });
    expect(classifyToolResult('invalid', 'UNKNOWN_TOOL')).toEqual({
      class: 'tool',
      kind: 'unknown_tool',
      severity: 'low',
      recovery: 'none',
    });
    expect(classifyToolResult('failed', 'TOOL_CIRCUIT_OPEN')).toMatchObject({ class: 'tool', kind: 'breaker_open' });
    expect(classifyToolResult('denied', 'DENIED')).toMatchObject({
      class: 'tool',
      kind: 'approval_denied',
      recovery: 'escalate',
    });
    expect(classifyToolResult('failed', 'TOOL_PORT_FAILED')).toMatchObject({ class: 'system', severity: 'high' });
    expect(classifyToolResult('timeout', 'TIMEOUT', 'coordination')).toEqual({
      class: 'coordination',
      kind: 'child_timeout',
      severity: 'medium',
      recovery: 'none',
    });
    expect(classifyToolResult('denied', 'DELEGATION_LOOP', 'coordination')).toMatchObject({
      class: 'coordination',
      kind: 'delegation_loop',
    });
    expect(classifyToolResult('failed', 'CHILD_RUN_FAILED', 'coordination')).toMatchObject({
      class: 'coordination',
      kind: 'child_failed',
    });
    // A code nobody listed keeps its name, in the tool's class.
    expect(classifyToolResult('failed', 'HANDLER_FAILED')).toEqual({
      class: 'tool',
      kind: 'handler_failed',
      severity: 'medium',
      recovery: 'none',
    });
    expect(withRecovery(classifyToolResult('failed', 'CHILD_RUN_FAILED', 'coordination')!, 'reassign').recovery).toBe(
      'reassign',
    );
  });

  it('does not count successes, cancellations or calls waiting for the user as failures', () => {
    expect(classifyToolResult('success', undefined)).toBeUndefined();
    expect(classifyToolResult('cancelled', 'CANCELLED')).toBeUndefined();
    expect(classifyToolResult('skipped', 'AWAITING_APPROVAL')).toBeUndefined();
  });
});

async function runLoop(script: ScriptStep[], tools: Record<string, FakeTool> = {}, fallback?: ScriptedModel) {
  const clock = new FakeClock();
  const events: LoopEvent[] = [];
  const result = await clock.settle(
    runAgentLoop(
      { runId: 'run-f', messages: [{ role: 'user', content: 'go' }] },
      {
        model: new ScriptedModel(script),
        tools: new FakeTools(tools, clock),
        clock,
        config: compileLoopConfig({ toolTimeoutMs: 1_000, llmMaxRetries: 1, llmRetryJitter: 0 }),
        events: (e) => events.push(e),
        ...(fallback ? { fallbackModels: [fallback] } : {}),
      },
    ),
  );
  return {
    result,
    failed: events.filter((e): e is Extract<LoopEvent, { type: 'step_failed' }> => e.type === 'step_failed'),
  };
}

describe('failed steps of a run', () => {
  it('records a tool timeout and an unknown tool in the transcript, the call records and step_failed events', async () => {
    const { result, failed } = await runLoop([reply.calls(['a', 'slow', {}], ['b', 'nope', {}]), reply.text('done')], {
      slow: { takesMs: 60_000, run: () => ({ status: 'success', content: 'late' }) },
    });
    const tools = result.transcript[0]!.tools;
    expect(tools.map((t) => [t.name, t.status, t.failures])).toEqual([
      ['slow', 'timeout', [{ class: 'tool', kind: 'timeout', severity: 'medium', recovery: 'none' }]],
      ['nope', 'invalid', [{ class: 'tool', kind: 'unknown_tool', severity: 'low', recovery: 'none' }]],
    ]);
    expect(result.toolCalls.map((c) => c.failures?.[0]?.kind)).toEqual(['timeout', 'unknown_tool']);
    expect(failed.map((e) => [e.step, e.callId, e.failure.kind])).toEqual(
      expect.arrayContaining([
        ['tool', 'a', 'timeout'],
        ['tool', 'b', 'unknown_tool'],
      ]),
    );
  });

  it('records model 500s: a retry, then the fallback model that answered', async () => {
    const fallback = new ScriptedModel([reply.text('from the fallback')], { provider: 'other', model: 'backup' });
    const { result, failed } = await runLoop([new ModelError('server', 'HTTP 500', { status: 500 })], {}, fallback);
    expect(result.response).toBe('from the fallback');
    expect(result.transcript[0]!.model).toMatchObject({
      fallbackUsed: true,
      failures: [
        { class: 'llm', kind: 'server', severity: 'medium', recovery: 'retry' },
        { class: 'llm', kind: 'server', severity: 'medium', recovery: 'fallback' },
      ],
    });
    expect(failed.map((e) => [e.step, e.failure.recovery])).toEqual([
      ['model', 'retry'],
      ['model', 'fallback'],
    ]);
  });

  it('classifies the error a run stops on, and a malformed reply the model is asked to redo', async () => {
    const stopped = await runLoop([new ModelError('auth', 'bad key', { status: 401 })]);
    expect(stopped.result.error).toEqual({
      kind: 'auth',
      message: 'bad key',
      failure: { class: 'llm', kind: 'auth', severity: 'high', recovery: 'none' },
    });
    const malformed = await runLoop([
      () => ({
        message: { role: 'assistant', content: 'Action: {' },
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        finishReason: 'stop',
        protocolFeedback: 'Observation: Error parsing',
      }),
      reply.text('ok'),
    ]);
    expect(malformed.result.transcript[0]!.model.failures).toEqual([
      { class: 'llm', kind: 'malformed_output', severity: 'low', recovery: 'retry' },
    ]);
    expect(malformed.result.transcript[1]!.model.failures).toBeUndefined();
  });

  it('keeps failures a tool port recovered from before the outcome, e.g. a reassigned delegation', async () => {
    const reassigned = {
      class: 'coordination' as const,
      kind: 'child_failed',
      severity: 'medium' as const,
      recovery: 'reassign' as const,
    };
    const { result } = await runLoop([reply.calls(['a', 'delegate', {}]), reply.text('done')], {
      delegate: { run: () => ({ status: 'success', content: 'the fallback role did it', failures: [reassigned] }) },
    });
    expect(result.transcript[0]!.tools[0]).toMatchObject({ status: 'success', failures: [reassigned] });
  });
});
