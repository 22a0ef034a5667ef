// Field collection in the start and input steps (seed 000, section 6), without NATS.
import { AgentStepOutput, type AgentCallRequest } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgentStep } from './agent-step.js';
import { defineAgentTool, type AgentToolDefinition } from './define-agent-tool.js';
import { emailAgent, stepContext, type Sent } from './test-support/email-agent.js';

async function step(agent: AgentToolDefinition, request: AgentCallRequest): Promise<AgentStepOutput> {
  // Every output must be a valid protocol message.
  return AgentStepOutput.parse(await runAgentStep(agent, request, stepContext()));
}

function expectState<S extends AgentStepOutput['state']>(
  output: AgentStepOutput,
  state: S,
): Extract<AgentStepOutput, { state: S }> {
  expect(output.state).toBe(state);
  return output as Extract<AgentStepOutput, { state: S }>;
}

describe('start step', () => {
  it('runs at once when every field is valid and no approval is needed, with defaults applied', async () => {
    const sent: Sent[] = [];
    const out = expectState(
      await step(emailAgent(sent), { arguments: { recipient: 'ops@internal.test', subject: 'Deploy' } }),
      'completed',
    );
    expect(out.result).toEqual({ sent: true, to: 'ops@internal.test' });
    expect(out.collected).toEqual({ recipient: 'ops@internal.test', subject: 'Deploy', body: '', priority: 'normal' });
    expect(out.schemaVersion).toBe(emailAgent([]).schemaVersion);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.fields).toEqual({
      recipient: 'ops@internal.test',
      subject: 'Deploy',
      body: '',
      priority: 'normal',
      cc: undefined,
    });
  });

  it('asks for absent required fields, with their descriptions and no reason', async () => {
    const sent: Sent[] = [];
    const out = expectState(await step(emailAgent(sent), { arguments: { subject: 'Hi' } }), 'waiting_for_input');
    expect(out.missing).toEqual([{ name: 'recipient', description: 'Recipient email address (must contain @)' }]);
    expect(out.collected).toEqual({ subject: 'Hi', body: '', priority: 'normal' });
    expect(out.prompt).toBe(
      'To continue with send_email, I need:\n- recipient: Recipient email address (must contain @)',
    );
    expect(sent).toHaveLength(0);
  });

  it('treats a value the validator rejects as missing, with the validator message as reason', async () => {
    const out = expectState(
      await step(emailAgent([]), { arguments: { recipient: 'bob', subject: 'Hi' } }),
      'waiting_for_input',
    );
    expect(out.missing).toEqual([
      {
        name: 'recipient',
        description: 'Recipient email address (must contain @)',
        reason: 'must be an email address with @',
      },
    ]);
    expect(out.collected).not.toHaveProperty('recipient');
    expect(out.prompt).toContain('"bob" was not accepted: must be an email address with @');
  });

  it('treats a value the schema rejects as missing, with the schema error as reason', async () => {
    const out = expectState(
      await step(emailAgent([]), { arguments: { recipient: 'a@b.c', subject: 42, priority: 'urgent' } }),
      'waiting_for_input',
    );
    expect(out.missing.map((m) => m.name)).toEqual(['subject', 'priority']);
    expect(out.missing[0]!.reason).toMatch(/expected string/);
    expect(out.missing[1]!.reason).toMatch(/low|normal|high/);
    // An invalid optional value is asked about, not silently replaced by the default.
    expect(out.collected).toEqual({ recipient: 'a@b.c', body: '' });
  });

  it('treats null as absent and ignores unknown keys', async () => {
    const out = expectState(
      await step(emailAgent([]), { arguments: { recipient: null, subject: 'Hi', attachment: 'x.pdf' } }),
      'waiting_for_input',
    );
    expect(out.missing).toEqual([expect.objectContaining({ name: 'recipient' })]);
    expect(out.missing[0]).not.toHaveProperty('reason');
    expect(out.collected).not.toHaveProperty('attachment');
  });

  it('keeps what the model gave as given, and gives run the parsed values', async () => {
    const sent: Sent[] = [];
    const out = expectState(
      await step(emailAgent(sent), {
        arguments: { recipient: 'ops@internal.test', subject: 'Hi', body: '  padded  ', cc: 'me@internal.test' },
      }),
      'completed',
    );
    expect(out.collected).toMatchObject({ body: '  padded  ', cc: 'me@internal.test' });
    expect(sent[0]!.fields).toMatchObject({ body: 'padded', cc: 'me@internal.test' });
  });

  it('keeps task_instruction for run (not as a field) and in collected', async () => {
    const sent: Sent[] = [];
    const out = await step(emailAgent(sent), {
      arguments: { recipient: 'ops@internal.test', subject: 'Hi', task_instruction: 'keep it short' },
    });
    expect(out.collected).toMatchObject({ task_instruction: 'keep it short' });
    expect(sent[0]!.taskInstruction).toBe('keep it short');
    expect(sent[0]!.fields).not.toHaveProperty('task_instruction');
  });

  it('asks for approval when the approval function returns a request', async () => {
    const sent: Sent[] = [];
    const out = expectState(
      await step(emailAgent(sent), { arguments: { recipient: 'team@example.com', subject: 'Q3' } }),
      'waiting_for_approval',
    );
    expect(out.approval).toEqual({
      agentName: 'send_email',
      actionSummary: 'Send email to team@example.com',
      details: { recipient: 'team@example.com', subject: 'Q3' },
      options: ['approve', 'edit', 'cancel'],
      timeoutMinutes: 30,
      allowModification: true,
    });
    expect(out.prompt).toBe(
      'Please confirm: Send email to team@example.com\n- recipient: team@example.com\n- subject: Q3\nReply "approve" to go ahead, say what to change, or "cancel".',
    );
    expect(sent).toHaveLength(0);
  });

  it('completes an approval: true request from the fields, and honours async approval functions', async () => {
    const always = emailAgent([], { approval: true, approvalTimeoutMinutes: 5 });
    const out = expectState(
      await step(always, { arguments: { recipient: 'ops@internal.test', subject: 'Hi', task_instruction: 'x' } }),
      'waiting_for_approval',
    );
    expect(out.approval).toMatchObject({
      actionSummary: 'send_email: recipient=ops@internal.test, subject=Hi, body=, priority=normal',
      details: { recipient: 'ops@internal.test', subject: 'Hi', body: '', priority: 'normal' },
      timeoutMinutes: 5,
    });
    const later = emailAgent([], {
      approval: async () => ({ actionSummary: 'Later', timeoutMinutes: 2, allowModification: false }),
    });
    const out2 = expectState(
      await step(later, { arguments: { recipient: 'a@b.c', subject: 'Hi' } }),
      'waiting_for_approval',
    );
    expect(out2.approval).toMatchObject({
      actionSummary: 'Later',
      timeoutMinutes: 2,
      allowModification: false,
      options: ['approve', 'cancel'],
    });
    expect(out2.prompt).toMatch(/Reply "approve" to go ahead or "cancel"\.$/);
  });

  it('propagates what run throws, so the runner answers failed', async () => {
    const failing = emailAgent([], { run: () => Promise.reject(new Error('smtp down')) });
    await expect(
      runAgentStep(failing, { arguments: { recipient: 'ops@internal.test', subject: 'Hi' } }, stepContext()),
    ).rejects.toThrow('smtp down');
  });

  it('runs an agent without fields at once', async () => {
    const ping = defineAgentTool({ name: 'ping_agent', description: 'Pings.', fields: {}, run: async () => 'pong' });
    expect(await step(ping, { arguments: {} })).toEqual({
      state: 'completed',
      schemaVersion: ping.schemaVersion,
      collected: {},
      result: 'pong',
    });
  });

  it('gives run a zod .default() for an absent optional field', async () => {
    let seen: unknown;
    const agent = defineAgentTool({
      name: 'count',
      description: 'Counts.',
      fields: { n: { schema: z.number().default(3), description: 'How many' } },
      run: async ({ n }) => (seen = n),
    });
    expect(await step(agent, { arguments: {} })).toMatchObject({ state: 'completed', collected: {}, result: 3 });
    expect(seen).toBe(3);
  });
});

describe('input step', () => {
  it('merges collected fields with the new ones and goes on to approval', async () => {
    const agent = emailAgent([]);
    const first = expectState(
      await step(agent, { arguments: { subject: 'Q3', task_instruction: 'be brief' } }),
      'waiting_for_input',
    );
    const out = expectState(
      await step(agent, {
        arguments: {},
        agent: {
          phase: 'input',
          collected: first.collected,
          fields: { recipient: 'team@example.com' },
          message: 'send it to team@example.com',
        },
      }),
      'waiting_for_approval',
    );
    expect(out.collected).toEqual({
      recipient: 'team@example.com',
      subject: 'Q3',
      body: '',
      priority: 'normal',
      task_instruction: 'be brief',
    });
  });

  it('lets a field given again override the collected one, and a null one keep it', async () => {
    const sent: Sent[] = [];
    const collected = { recipient: 'ops@internal.test', subject: 'Old', priority: 'high' };
    await step(emailAgent(sent), {
      arguments: {},
      agent: { phase: 'input', collected, fields: { subject: 'New', priority: null }, message: 'subject New' },
    });
    expect(sent[0]!.fields).toMatchObject({ subject: 'New', priority: 'high' });
  });

  it('asks again, with the reason, when the new value is invalid', async () => {
    const out = expectState(
      await step(emailAgent([]), {
        arguments: {},
        agent: { phase: 'input', collected: { subject: 'Hi' }, fields: { recipient: 'bob' }, message: 'bob' },
      }),
      'waiting_for_input',
    );
    expect(out.missing).toEqual([
      expect.objectContaining({ name: 'recipient', reason: 'must be an email address with @' }),
    ]);
  });

  it('re-validates collected values, so a stale value is asked for again', async () => {
    const out = expectState(
      await step(emailAgent([]), {
        arguments: {},
        agent: { phase: 'input', collected: { recipient: 'no-at-sign', subject: 'Hi' }, fields: {}, message: '' },
      }),
      'waiting_for_input',
    );
    expect(out.missing[0]).toMatchObject({ name: 'recipient', reason: 'must be an email address with @' });
  });
});

describe('defineAgentTool', () => {
  const base = { name: 'a', description: 'An agent.', run: async () => null };

  it('rejects fields it cannot serve', () => {
    expect(() =>
      defineAgentTool({ ...base, fields: { 'bad-name': { schema: z.string(), description: 'x' } } }),
    ).toThrow(/letters, digits or '_'/);
    expect(() =>
      defineAgentTool({ ...base, fields: { task_instruction: { schema: z.string(), description: 'x' } } }),
    ).toThrow(/added by the SDK/);
    expect(() => defineAgentTool({ ...base, fields: { x: { schema: z.string(), description: ' ' } } })).toThrow(
      /needs a description/,
    );
    expect(() =>
      defineAgentTool({
        ...base,
        fields: { x: { schema: z.string(), description: 'x', required: true, default: 'a' } },
      }),
    ).toThrow(/cannot be required/);
    expect(() =>
      defineAgentTool({ ...base, fields: { x: { schema: z.string(), description: 'x', required: false } } }),
    ).toThrow(/must accept undefined/);
    expect(() =>
      defineAgentTool({
        ...base,
        fields: { x: { schema: z.string(), description: 'x', default: 'bad', validate: () => 'nope' } },
      }),
    ).toThrow(/default is not a valid value \(nope\)/);
    expect(() => defineAgentTool({ ...base, name: 'a b', fields: {} })).toThrow(/agent name/);
  });

  it('applies defaults: side effect by approval, the agent timeout, exposure', () => {
    const plain = defineAgentTool({ ...base, fields: {} });
    expect(plain).toMatchObject({
      kind: 'agent',
      sideEffect: 'none',
      timeoutMs: 120_000,
      exposeToModel: true,
      version: '1.0.0',
      approvalTimeoutMinutes: 30,
    });
    expect(defineAgentTool({ ...base, fields: {}, approval: true }).sideEffect).toBe('external');
    expect(
      defineAgentTool({ ...base, fields: {}, approval: () => undefined, sideEffect: 'idempotent' }).sideEffect,
    ).toBe('idempotent');
  });
});
