import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../api/types.js';
import { applyRunEvent, chatFromHistory, NEW_TURN } from './chat.js';

const entry = (seq: number, runId: string, message: HistoryEntry['message']): HistoryEntry => ({
  seq,
  runId,
  createdAt: null,
  message,
});

describe('chatFromHistory', () => {
  it("folds each run's tool calls, with their results, into its answer", () => {
    const items = chatFromHistory([
      entry(1, 'run_1', { role: 'user', content: 'What is 6*7?' }),
      entry(2, 'run_1', {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' }],
      }),
      entry(3, 'run_1', {
        role: 'tool',
        toolCallId: 'c1',
        toolName: 'calculator',
        content: '{"result":42}',
        status: 'success',
        isError: false,
      }),
      entry(4, 'run_1', { role: 'assistant', content: '6*7 = 42.' }),
      entry(5, 'run_2', { role: 'user', content: 'parse error', synthetic: true }),
      entry(6, 'run_2', { role: 'user', content: 'Thanks' }),
      entry(7, 'run_2', { role: 'assistant', content: 'You are welcome.' }),
    ]);
    expect(items).toEqual([
      { kind: 'user', key: 'u-1', text: 'What is 6*7?', runId: 'run_1', seq: 1 },
      {
        kind: 'assistant',
        key: 'a-2',
        text: '6*7 = 42.',
        runId: 'run_1',
        // Where "Fork from here" cuts: the bubble's last message, after its tool results.
        seq: 4,
        toolCalls: [
          {
            callId: 'c1',
            name: 'calculator',
            arguments: '{"expression":"6*7"}',
            status: 'success',
            result: '{"result":42}',
          },
        ],
      },
      { kind: 'user', key: 'u-6', text: 'Thanks', runId: 'run_2', seq: 6 },
      { kind: 'assistant', key: 'a-7', text: 'You are welcome.', runId: 'run_2', toolCalls: [], seq: 7 },
    ]);
  });
});

describe('applyRunEvent', () => {
  it('builds the answer from chunks, restarts it when the model call is retried, and ends with the result', () => {
    const events = [
      { type: 'execution_start', data: {}, runId: 'run_9' },
      { type: 'message_start', data: { iteration: 1 } },
      { type: 'tool_call_start', data: { callId: 'c1', name: 'calculator', arguments: '{}' } },
      { type: 'tool_result', data: { callId: 'c1', status: 'success', content: '42' } },
      { type: 'message_start', data: { iteration: 2 } },
      { type: 'message_chunk', data: { delta: 'It is ' } },
      { type: 'state_change', data: { state: 'retrying_model' } },
      { type: 'message_chunk', data: { delta: 'The answer ' } },
      { type: 'message_chunk', data: { delta: 'is 42.' } },
    ];
    const live = events.reduce(applyRunEvent, NEW_TURN);
    expect(live).toMatchObject({
      runId: 'run_9',
      text: 'The answer is 42.',
      done: false,
      toolCalls: [{ callId: 'c1', status: 'success', result: '42' }],
    });
    const ended = applyRunEvent(live, {
      type: 'execution_end',
      data: { result: { response: 'The answer is 42.', stopReason: 'final_answer' } },
    });
    expect(ended).toMatchObject({ done: true, stopReason: 'final_answer', text: 'The answer is 42.' });
  });
});
