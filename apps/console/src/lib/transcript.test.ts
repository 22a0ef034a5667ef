import { describe, expect, it } from 'vitest';
import type { IterationRecord } from '../api/types.js';
import { transcriptSteps } from './transcript.js';

const iteration: IterationRecord = {
  iteration: 1,
  view: {
    messages: 3,
    estimatedTokens: 120,
    stage: 'full',
    diagnostics: [
      { kind: 'tool_result_truncated', detail: 'result c1 cut to 2000 chars', originalChars: 9000, keptChars: 2000 },
    ],
  },
  model: { provider: 'openai', model: 'sim', finishReason: 'tool_calls', retries: 0, fallbackUsed: false },
  output: {
    role: 'assistant',
    content: null,
    toolCalls: [
      { id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' },
      { id: 'c2', name: 'gone', arguments: '{}' },
    ],
  },
  tools: [
    { callId: 'c1', name: 'calculator', status: 'success', durationMs: 4, synthetic: false },
    {
      callId: 'c2',
      name: 'gone',
      status: 'failed',
      durationMs: 1,
      synthetic: true,
      failures: [{ class: 'tool', kind: 'runner_unavailable', severity: 'error', recovery: 'none' }],
    },
  ],
  usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
  durationMs: 12,
};

describe('transcriptSteps', () => {
  it('joins each tool call with its arguments, stored result and runner', () => {
    const steps = transcriptSteps(
      [iteration, { step: 'replan', planVersion: 2, reason: 'subtask failed' }],
      [
        {
          seq: 2,
          runId: 'run_1',
          createdAt: null,
          message: {
            role: 'tool',
            toolCallId: 'c1',
            toolName: 'calculator',
            content: '{"result":42}',
            status: 'success',
            isError: false,
          },
        },
        {
          seq: 3,
          runId: 'run_1',
          createdAt: null,
          message: {
            role: 'tool',
            toolCallId: 'c2',
            toolName: 'gone',
            content: 'no runner',
            status: 'failed',
            isError: true,
            errorCode: 'RUNNER_UNAVAILABLE',
          },
        },
      ],
      new Map([['calculator', 'builtin-tools']]),
    );
    expect(steps).toHaveLength(2);
    const [model, replan] = steps;
    expect(model).toMatchObject({
      kind: 'model',
      iteration: 1,
      view: { diagnostics: [{ kind: 'tool_result_truncated' }] },
    });
    if (model?.kind !== 'model') throw new Error('a model step first');
    expect(model.tools[0]).toEqual({
      callId: 'c1',
      name: 'calculator',
      status: 'success',
      durationMs: 4,
      synthetic: false,
      failures: [],
      arguments: '{"expression":"6*7"}',
      result: '{"result":42}',
      runner: 'builtin-tools',
    });
    expect(model.tools[1]).toMatchObject({
      errorCode: 'RUNNER_UNAVAILABLE',
      failures: [{ kind: 'runner_unavailable' }],
    });
    expect(model.tools[1]!.runner).toBeUndefined();
    expect(replan).toEqual({ kind: 'plan', step: 'replan', planVersion: 2, reason: 'subtask failed' });
  });
});
