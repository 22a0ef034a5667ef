import type { agentPoolV1, triggerV1 } from '@platform/proto';
import { errors, type PromiseClient } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { approvalSources } from './approval-sources.js';

const TASK = 'task_00000000-0000-4000-8000-00000000000a';
const OTHER_TENANTS_TASK = 'task_00000000-0000-4000-8000-00000000000b';

function entry(entryId: string, conversationId: string, source?: agentPoolV1.AgentSource): agentPoolV1.AgentEntry {
  return { entryId, conversationId, source } as agentPoolV1.AgentEntry;
}

const asked: string[] = [];
const trigger = {
  getTask: async ({ tenantId, taskId }: { tenantId: string; taskId: string }) => {
    asked.push(taskId);
    if (tenantId === 'acme' && taskId === TASK) return { task: { taskId } };
    throw errors.notFound('TASK_NOT_FOUND', 'no task');
  },
} as unknown as PromiseClient<triggerV1.TriggerServiceClient>;

describe('approval sources', () => {
  it('names the task of approvals in a task conversation of the tenant; others keep the pool source', async () => {
    const sources = await approvalSources(trigger, 'acme', [
      entry('e1', TASK),
      entry('e2', 'trip-42'),
      entry('e3', OTHER_TENANTS_TASK),
      entry('e4', 'conv-9', { kind: 'trigger', taskId: 'task-x' }),
      entry('e5', TASK),
    ]);
    expect(Object.fromEntries(sources)).toEqual({
      e1: { kind: 'trigger', taskId: TASK },
      e2: { kind: 'user' },
      e3: { kind: 'user' },
      e4: { kind: 'trigger', taskId: 'task-x' },
      e5: { kind: 'trigger', taskId: TASK },
    });
    // One question per conversation that looks like a task, none for the others.
    expect(asked.sort()).toEqual([TASK, OTHER_TENANTS_TASK]);
  });

  it('keeps the pool source when the trigger service cannot answer', async () => {
    const down = { getTask: () => Promise.reject(errors.unavailable('UNAVAILABLE', 'down')) } as unknown as PromiseClient<triggerV1.TriggerServiceClient>;
    expect((await approvalSources(down, 'acme', [entry('e1', TASK)])).get('e1')).toEqual({ kind: 'user' });
  });
});
