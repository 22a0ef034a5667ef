import type { agentPoolV1 } from '@platform/proto';
import { describe, expect, it } from 'vitest';
import { runSourceOf } from '../grpc-messages.js';
import { PoolAgents, type AgentPoolClient } from './pool-agents.js';

const TASK = 'task_00000000-0000-4000-8000-000000000001';

/** A pool that records what it was asked and answers with an entry waiting for approval. */
function recordingPool(seen: agentPoolV1.StartAgentRequest[]): AgentPoolClient {
  return {
    startAgent: async (request: agentPoolV1.StartAgentRequest) => {
      seen.push(request);
      return {
        entry: { entryId: 'e1', status: 'waiting_for_approval', agentName: request.agentName, callId: request.callId },
        duplicate: false,
      };
    },
  } as unknown as AgentPoolClient;
}

const context = { runId: 'run_fire_1', deadlineAt: Date.now() + 10_000, signal: new AbortController().signal };
const call = { id: 'call_1', name: 'send_email', arguments: { to: 'team' } };

describe('the source of an agent the orchestrator starts', () => {
  it('is the trigger task when the run was triggered, and the user otherwise', async () => {
    const seen: agentPoolV1.StartAgentRequest[] = [];
    const agents = new PoolAgents(recordingPool(seen), async () => undefined);
    await agents.start(
      { tenantId: 'acme', conversationId: TASK, source: { kind: 'trigger', taskId: TASK, triggerType: 'schedule' } },
      call,
      context,
    );
    await agents.start({ tenantId: 'acme', conversationId: 'trip-42' }, call, context);
    expect(seen.map((r) => r.source)).toEqual([
      { kind: 'trigger', taskId: TASK },
      { kind: 'user', taskId: '' },
    ]);
  });

  it('is checked at HandleMessage: kind, task id and trigger type', () => {
    expect(runSourceOf(undefined)).toBeUndefined();
    expect(runSourceOf({ kind: 'user', taskId: '', triggerType: '', originRunId: '' })).toBeUndefined();
    expect(runSourceOf({ kind: 'trigger', taskId: TASK, triggerType: 'event', originRunId: '' })).toEqual({
      kind: 'trigger',
      taskId: TASK,
      triggerType: 'event',
    });
    expect(runSourceOf({ kind: 'trigger', taskId: TASK, triggerType: 'approval', originRunId: 'run_fire_1' })).toEqual({
      kind: 'trigger',
      taskId: TASK,
      triggerType: 'approval',
      originRunId: 'run_fire_1',
    });
    for (const bad of [
      { kind: 'robot', taskId: '', triggerType: '', originRunId: '' },
      { kind: 'trigger', taskId: 'not-a-task', triggerType: 'schedule', originRunId: '' },
      { kind: 'trigger', taskId: TASK, triggerType: 'whenever', originRunId: '' },
      { kind: 'trigger', taskId: TASK, triggerType: 'approval', originRunId: 'bad id!' },
      { kind: 'user', taskId: TASK, triggerType: '', originRunId: '' },
    ]) {
      expect(() => runSourceOf(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'INVALID_SOURCE' }));
    }
  });
});
