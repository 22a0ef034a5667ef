// Reading free-text replies to waiting agents: plain yes/no, model-mapped decisions, failures.
import { ModelError } from '@platform/agent-loop';
import { reply, ScriptedModel } from '@platform/agent-loop/testing';
import { createLogger } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { ReplyInterpreter, type PendingApproval } from './reply-interpreter.js';

const interpreter = new ReplyInterpreter(createLogger({ service: 'test', level: 'silent' }));
const pending: PendingApproval[] = [
  {
    approvalId: 'a1',
    agentName: 'send_email',
    actionSummary: 'Send email to team@example.com',
    details: {},
    allowModification: true,
  },
  {
    approvalId: 'a2',
    agentName: 'book_flight',
    actionSummary: 'Book UA 100',
    details: { seat: 'aisle' },
    allowModification: true,
  },
];
const decisions = (args: unknown) => new ScriptedModel([reply.calls(['d1', 'record_approval_decisions', args])]);

describe('approval replies', () => {
  it('applies a plain yes or no to every waiting approval without asking the model', async () => {
    const model = new ScriptedModel([reply.text('must not be asked')]);
    expect(await interpreter.approvals(model, 'yes', pending)).toEqual([
      { approvalId: 'a1', decision: 'approve' },
      { approvalId: 'a2', decision: 'approve' },
    ]);
    expect(await interpreter.approvals(model, 'no', pending)).toEqual([
      { approvalId: 'a1', decision: 'cancel' },
      { approvalId: 'a2', decision: 'cancel' },
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it('maps a mixed reply through the model, in the order the user confirmed, numbered as shown', async () => {
    const model = decisions({
      decisions: [
        { approval: 2, decision: 'edit', changes: { seat: 'window' } },
        { approval: 1, decision: 'approve' },
      ],
    });
    const choices = await interpreter.approvals(
      model,
      'approve the email, change the flight to a window seat',
      pending,
    );
    expect(choices).toEqual([
      { approvalId: 'a2', decision: 'edit', changes: { seat: 'window' } },
      { approvalId: 'a1', decision: 'approve' },
    ]);
    const request = model.requests[0]!;
    expect(request.tools.map((t) => t.name)).toEqual(['record_approval_decisions']);
    expect(request.messages[0]?.content).toContain('1. send_email: Send email to team@example.com');
    expect(request.messages[0]?.content).toContain('2. book_flight: Book UA 100');
  });

  it('ignores numbers that name no approval and repeated decisions', async () => {
    const model = decisions({
      decisions: [
        { approval: 7, decision: 'approve' },
        { approval: 1, decision: 'cancel' },
        { approval: 1, decision: 'approve' },
      ],
    });
    expect(await interpreter.approvals(model, 'cancel the first one', pending)).toEqual([
      { approvalId: 'a1', decision: 'cancel' },
    ]);
  });

  it('decides nothing when the model fails, answers without the tool, or sends malformed arguments', async () => {
    expect(
      await interpreter.approvals(new ScriptedModel([new ModelError('server', 'down')]), 'hmm, maybe', pending),
    ).toEqual([]);
    expect(
      await interpreter.approvals(new ScriptedModel([reply.text('I am not sure')]), 'hmm, maybe', pending),
    ).toEqual([]);
    expect(
      await interpreter.approvals(decisions('{"decisions": [{"approval": "one"}]}'), 'hmm, maybe', pending),
    ).toEqual([]);
    expect(
      await interpreter.approvals(
        new ScriptedModel([reply.calls(['x', 'record_approval_decisions', '{not json'])]),
        'hmm',
        pending,
      ),
    ).toEqual([]);
  });
});

describe('field replies', () => {
  it('offers only the missing fields and returns what the reply gives', async () => {
    const model = new ScriptedModel([reply.calls(['f1', 'provide_fields', { destination: 'NYC' }])]);
    const fields = await interpreter.fields(model, 'to New York please', {
      agentName: 'flight_search',
      prompt: 'Where to?',
      properties: { destination: { type: 'string', description: 'IATA code' } },
    });
    expect(fields).toEqual({ destination: 'NYC' });
    expect(model.requests[0]?.tools[0]?.parameters).toEqual({
      type: 'object',
      properties: { destination: { type: 'string', description: 'IATA code' } },
    });
  });
});
