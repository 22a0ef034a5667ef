import type { ModelResponse } from '@platform/agent-loop';
import type { memoryV1, orchestratorV1 } from '@platform/proto';
import { isPlatformError, type PromiseClient } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../journal/run-types.js';
import { RunReplays } from './run-replays.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const original = {
  runId: 'run_orig',
  tenantId: 't1',
  conversationId: 'conv-orig',
  status: 'completed',
  profile: 'bot',
  content: 'what is 2 + 2?',
  timeZone: 'Europe/Berlin',
  agent: { id: 'agt_1', version: 2 },
  overrides: { maxTurns: 3 },
} as unknown as RunRecord;

const journal = {
  models: [
    {
      message: { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{}' }] },
      usage,
      finishReason: 'tool_calls',
    },
    { message: { role: 'assistant', content: '4' }, usage, finishReason: 'stop' },
  ] as ModelResponse[],
  tools: new Map([['c1', { status: 'success' } as never]]),
};

/** A conversation whose history holds an earlier run's two messages, then the original's (seq 3 on). */
function replaysWith(run: RunRecord | undefined = original) {
  const forks: memoryV1.ForkConversationRequest[] = [];
  const memory = {
    listMessages: async () => ({
      messages: [
        { seq: 1, runId: 'run_before', messageJson: '{}' },
        { seq: 2, runId: 'run_before', messageJson: '{}' },
        { seq: 3, runId: 'run_orig', messageJson: '{}' },
      ],
      hasMore: false,
    }),
    forkConversation: async (request: memoryV1.ForkConversationRequest) => {
      forks.push(request);
      return {};
    },
  } as unknown as PromiseClient<memoryV1.MemoryServiceClient>;
  const replays = new RunReplays({
    records: { get: async (tenantId, runId) => (tenantId === 't1' && runId === run?.runId ? run : undefined) },
    steps: { load: async () => journal },
    memory,
    tiers: { basic: { agentModels: ['sim-*'] } },
    defaultTier: 'free',
  });
  return { replays, forks };
}

const request = (fields: Partial<orchestratorV1.HandleMessageRequest>) =>
  ({
    tenantId: 't1',
    conversationId: 'conv_new',
    tier: '',
    replayOf: 'run_orig',
    ...fields,
  }) as orchestratorV1.HandleMessageRequest;

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return isPlatformError(error) ? error.code : String(error);
  }
};

describe('RunReplays.prepare', () => {
  it('is nothing for a message that replays nothing', async () => {
    expect(await replaysWith().replays.prepare(request({ replayOf: '' }))).toBeUndefined();
  });

  it("gives the replay the original's message and agent, with the model on top of its overrides, and forks before its message", async () => {
    const { replays, forks } = replaysWith();
    const prepared = await replays.prepare(
      request({ replayFromStep: 1, overridesJson: JSON.stringify({ model: 'sim-large' }), tier: 'basic' }),
    );
    expect(prepared?.message).toEqual({
      content: 'what is 2 + 2?',
      profile: 'agt_1',
      agentVersion: 2,
      overridesJson: JSON.stringify({ maxTurns: 3, model: 'sim-large' }),
      timeZone: 'Europe/Berlin',
    });
    expect(prepared?.record).toEqual({ runId: 'run_orig', fromStep: 1 });
    expect(forks).toEqual([]);
    await prepared!.fork();
    expect(forks).toEqual([{ tenantId: 't1', conversationId: 'conv-orig', atSeq: 2, newConversationId: 'conv_new' }]);
  });

  it('takes the version asked for', async () => {
    const prepared = await replaysWith().replays.prepare(request({ agentVersion: 5 }));
    expect(prepared?.message.agentVersion).toBe(5);
  });

  it('refuses another tenant, a live run, a step out of range and a model the tier does not permit', async () => {
    const { replays } = replaysWith();
    expect(await codeOf(replays.prepare(request({ tenantId: 't2' })))).toBe('RUN_NOT_FOUND');
    expect(await codeOf(replays.prepare(request({ replayFromStep: 2 })))).toBe('INVALID_FROM_STEP');
    expect(
      await codeOf(replays.prepare(request({ tier: 'basic', overridesJson: JSON.stringify({ model: 'gpt-4o' }) }))),
    ).toBe('NOT_PERMITTED_BY_TIER');
    const running = replaysWith({ ...original, status: 'running' }).replays;
    expect(await codeOf(running.prepare(request({})))).toBe('RUN_NOT_FINISHED');
    const child = replaysWith({
      ...original,
      lineage: { parentRunId: 'p', parentCallId: 'c', chain: [] },
    });
    expect(await codeOf(child.replays.prepare(request({})))).toBe('REPLAY_UNSUPPORTED');
  });
});
