// Finished agents as tool exchanges: the resumed call and its one result, counted in toolCalls,
// and put before the loop's own messages.
import { ZERO_USAGE, type LoopResult } from '@platform/agent-loop';
import { agentPoolV1 } from '@platform/proto';
import { describe, expect, it } from 'vitest';
import { agentResultsOf, NO_AGENT_RESULTS, withAgentResults } from './agent-results.js';

const entry = (fields: Partial<agentPoolV1.AgentEntry>) =>
  agentPoolV1.AgentEntry.fromPartial({
    entryId: 'e1',
    callId: 'call_1',
    agentName: 'send_email',
    collectedJson: '{"recipient":"a@example.com"}',
    ...fields,
  });

const loopResult = (fields: Partial<LoopResult> = {}): LoopResult => ({
  runId: 'run_1',
  response: 'Done.',
  stopReason: 'final_answer',
  turns: 1,
  usage: ZERO_USAGE,
  durationMs: 5,
  pendingAgents: [],
  toolCalls: [],
  messages: [{ role: 'assistant', content: 'Done.' }],
  transcript: [],
  ...fields,
});

describe('agentResultsOf', () => {
  it('pairs a completed agent with its result under the resumed call id, and records it as a success', () => {
    const results = agentResultsOf([
      { entry: entry({ status: 'completed', resultJson: '"Email sent (message id m1)"' }), durationMs: 12.6 },
    ]);
    expect(results.messages).toEqual([
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_1:resumed', name: 'send_email', arguments: '{"recipient":"a@example.com"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'call_1:resumed',
        toolName: 'send_email',
        content: 'Email sent (message id m1)',
        status: 'success',
        isError: false,
      },
    ]);
    expect(results.records).toEqual([
      expect.objectContaining({
        callId: 'call_1:resumed',
        name: 'send_email',
        status: 'success',
        success: true,
        durationMs: 13,
        synthetic: false,
        argumentsSummary: { recipient: 'a@example.com' },
      }),
    ]);
  });

  it('records a cancelled agent as a failed call with its code', () => {
    const results = agentResultsOf([{ entry: entry({ status: 'cancelled' }), durationMs: 3 }]);
    expect(results.messages[1]).toMatchObject({
      role: 'tool',
      status: 'cancelled',
      isError: true,
      errorCode: 'USER_CANCELLED',
    });
    expect(results.records[0]).toMatchObject({ status: 'cancelled', success: false, errorCode: 'USER_CANCELLED' });
  });

  it('cuts long argument values in the record but keeps them whole in the stored call', () => {
    const body = 'x'.repeat(5000);
    const results = agentResultsOf([
      { entry: entry({ status: 'completed', collectedJson: JSON.stringify({ body }) }), durationMs: 1 },
    ]);
    expect(String(results.records[0]!.argumentsSummary['body']).length).toBeLessThan(300);
    expect(results.messages[0]).toMatchObject({ toolCalls: [{ arguments: JSON.stringify({ body }) }] });
  });
});

describe('withAgentResults', () => {
  it('puts the agents first, in history and in toolCalls', () => {
    const agents = agentResultsOf([{ entry: entry({ status: 'completed', resultJson: '"sent"' }), durationMs: 1 }]);
    const loopRecord = { ...agents.records[0]!, callId: 'call_2', name: 'calculator', iteration: 1 };
    const turn = withAgentResults(loopResult({ toolCalls: [loopRecord] }), agents);
    expect(turn.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(turn.toolCalls.map((c) => c.callId)).toEqual(['call_1:resumed', 'call_2']);
  });

  it('leaves a result without agent results as it is', () => {
    const result = loopResult();
    expect(withAgentResults(result, NO_AGENT_RESULTS)).toBe(result);
  });
});
