// The approval step (seed 000, section 13): approve, edit, cancel, unclear replies; without NATS.
import { AgentStepOutput, USER_CANCELLED_MESSAGE, type AgentStepInput } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { APPROVAL_NOTICE, runAgentStep } from './agent-step.js';
import type { AgentToolDefinition } from './define-agent-tool.js';
import { emailAgent, stepContext, type Sent } from './test-support/email-agent.js';

type ApprovalStep = Omit<Extract<AgentStepInput, { phase: 'approval' }>, 'phase' | 'collected'> & {
  collected?: Record<string, unknown>;
};

const collected = {
  recipient: 'team@example.com',
  subject: 'Q3',
  body: '',
  priority: 'normal',
  task_instruction: 'be brief',
};

async function approve(agent: AgentToolDefinition, answer: ApprovalStep): Promise<AgentStepOutput> {
  const output = await runAgentStep(
    agent,
    { arguments: {}, agent: { phase: 'approval', collected, ...answer } },
    stepContext('call-approve'),
  );
  return AgentStepOutput.parse(output);
}

function expectState<S extends AgentStepOutput['state']>(
  output: AgentStepOutput,
  state: S,
): Extract<AgentStepOutput, { state: S }> {
  expect(output.state).toBe(state);
  return output as Extract<AgentStepOutput, { state: S }>;
}

describe('approval step', () => {
  it('runs on approve, with task_instruction in the context', async () => {
    const sent: Sent[] = [];
    const out = expectState(await approve(emailAgent(sent), { decision: 'approve' }), 'completed');
    expect(out).toMatchObject({ result: { sent: true, to: 'team@example.com' }, collected });
    expect(sent).toEqual([
      {
        fields: expect.objectContaining({ recipient: 'team@example.com', subject: 'Q3' }),
        taskInstruction: 'be brief',
        callId: 'call-approve',
      },
    ]);
  });

  it('cancels without running, with the message the model is told', async () => {
    const sent: Sent[] = [];
    const out = expectState(await approve(emailAgent(sent), { decision: 'cancel' }), 'cancelled');
    expect(out).toEqual({
      state: 'cancelled',
      schemaVersion: emailAgent([]).schemaVersion,
      collected,
      message: USER_CANCELLED_MESSAGE,
    });
    expect(out.message).toBe('User cancelled this action.');
    expect(sent).toHaveLength(0);
  });

  it('reads a free-text reply with the default reader', async () => {
    const sent: Sent[] = [];
    expect((await approve(emailAgent(sent), { reply: 'Yes, please!' })).state).toBe('completed');
    expect((await approve(emailAgent(sent), { reply: 'no' })).state).toBe('cancelled');
    expect(sent).toHaveLength(1);
  });

  it('asks again when the reply is unclear or missing', async () => {
    const sent: Sent[] = [];
    const unclear = expectState(
      await approve(emailAgent(sent), { reply: 'what would it say exactly?' }),
      'waiting_for_approval',
    );
    expect(
      unclear.prompt.startsWith(`${APPROVAL_NOTICE.unclear}\nPlease confirm: Send email to team@example.com`),
    ).toBe(true);
    expect(unclear.prompt).toContain('Reply "approve" to go ahead, say what to change, or "cancel".');
    expect(unclear.approval.actionSummary).toBe('Send email to team@example.com');
    expect(unclear.collected).toEqual(collected);
    const silent = expectState(await approve(emailAgent(sent), {}), 'waiting_for_approval');
    expect(silent.prompt.startsWith(APPROVAL_NOTICE.noDecision)).toBe(true);
    expect(sent).toHaveLength(0);
  });

  it('prefers an explicit decision over the reply text', async () => {
    expect((await approve(emailAgent([]), { decision: 'cancel', reply: 'yes' })).state).toBe('cancelled');
  });

  it('uses a custom reply reader, which may edit', async () => {
    const sent: Sent[] = [];
    const agent = emailAgent(sent, {
      readApprovalReply: (text) =>
        text.startsWith('make it high') ? { decision: 'edit', changes: { priority: 'high' } } : undefined,
    });
    const out = expectState(await approve(agent, { reply: 'make it high priority' }), 'completed');
    expect(out.collected).toMatchObject({ priority: 'high' });
    expect(sent[0]!.fields).toMatchObject({ priority: 'high' });
    expect((await approve(agent, { reply: 'yes' })).state).toBe('waiting_for_approval');
  });
});

describe('approval step: edit', () => {
  it('applies valid changes and runs the edited action', async () => {
    const sent: Sent[] = [];
    const out = expectState(
      await approve(emailAgent(sent), { decision: 'edit', changes: { subject: 'Q4 plan', cc: 'boss@example.com' } }),
      'completed',
    );
    expect(out.collected).toEqual({ ...collected, subject: 'Q4 plan', cc: 'boss@example.com' });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.fields).toMatchObject({
      subject: 'Q4 plan',
      cc: 'boss@example.com',
      recipient: 'team@example.com',
    });
  });

  it('lets null remove an optional field, restoring its default', async () => {
    const sent: Sent[] = [];
    await approve(emailAgent(sent), {
      decision: 'edit',
      changes: { priority: null },
      collected: { ...collected, priority: 'high' },
    });
    expect(sent[0]!.fields).toMatchObject({ priority: 'normal' });
  });

  it('rejects invalid changes, keeps the fields and asks again with the reasons', async () => {
    const sent: Sent[] = [];
    const out = expectState(
      await approve(emailAgent(sent), {
        decision: 'edit',
        changes: { recipient: 'bob', colour: 'red', subject: null },
      }),
      'waiting_for_approval',
    );
    expect(out.collected).toEqual(collected);
    expect(out.prompt).toContain(
      'The changes were not applied:\n- recipient: must be an email address with @\n- colour: there is no such field',
    );
    expect(out.prompt).toContain('- subject: is required and cannot be removed');
    expect(out.approval.options).toEqual(['approve', 'edit', 'cancel']);
    expect(sent).toHaveLength(0);
  });

  it('asks what to change when an edit has no changes', async () => {
    const out = expectState(await approve(emailAgent([]), { decision: 'edit' }), 'waiting_for_approval');
    expect(out.prompt.startsWith(APPROVAL_NOTICE.noChanges)).toBe(true);
  });

  it('refuses an edit when the approval does not allow modification', async () => {
    const sent: Sent[] = [];
    const agent = emailAgent(sent, { approval: () => ({ actionSummary: 'Wire the money', allowModification: false }) });
    const out = expectState(
      await approve(agent, { decision: 'edit', changes: { subject: 'x' } }),
      'waiting_for_approval',
    );
    expect(out.prompt.startsWith(APPROVAL_NOTICE.notModifiable)).toBe(true);
    expect(out.approval).toMatchObject({ allowModification: false, options: ['approve', 'cancel'] });
    expect(out.collected).toEqual(collected);
    expect(sent).toHaveLength(0);
  });
});

describe('approval step with fields that no longer hold', () => {
  it('collects again instead of running with an invalid stored value', async () => {
    const sent: Sent[] = [];
    const out = expectState(
      await approve(emailAgent(sent), { decision: 'approve', collected: { ...collected, recipient: 'nobody' } }),
      'waiting_for_input',
    );
    expect(out.missing).toEqual([
      expect.objectContaining({ name: 'recipient', reason: 'must be an email address with @' }),
    ]);
    expect(sent).toHaveLength(0);
  });

  it('still cancels', async () => {
    expect((await approve(emailAgent([]), { decision: 'cancel', collected: { recipient: 'nobody' } })).state).toBe(
      'cancelled',
    );
  });

  it('answers with the default request when the agent would not ask now', async () => {
    // Internal recipients need no approval; a caller that asks anyway still gets a full request.
    const out = expectState(
      await approve(emailAgent([]), { reply: '?', collected: { ...collected, recipient: 'ops@internal.test' } }),
      'waiting_for_approval',
    );
    expect(out.approval.actionSummary).toMatch(/^send_email: recipient=ops@internal.test/);
  });
});
