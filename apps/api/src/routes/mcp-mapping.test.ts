import type { RunEventEnvelope } from '@platform/contracts';
import type { agentsV1, orchestratorV1 } from '@platform/proto';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { bearerChallenge, resourceMetadataUrlOf } from './mcp-auth.js';
import { elicitationFor, replyOf, supportsFormElicitation } from './mcp-elicitation.js';
import { progressMessageOf } from './mcp-progress.js';
import { toolCallResult, type PendingItem } from './mcp-results.js';
import { McpSessions } from './mcp-sessions.js';
import { AgentToolArguments, agentTools, type AgentTool } from './mcp-tools.js';

function agent(
  name: string,
  fields: Partial<agentsV1.Agent> & { spec?: Record<string, unknown> } = {},
): agentsV1.Agent {
  const { spec, ...rest } = fields;
  return {
    agentId: `agt_${name}`,
    name,
    builtIn: false,
    activeVersion: 1,
    latestVersion: 1,
    revision: 1,
    specJson: JSON.stringify({ name, instructions: 'x', ...spec }),
    createdAt: undefined,
    updatedAt: undefined,
    deletedAt: undefined,
    createdBy: 'alice',
    ...rest,
  };
}
const builtIn = (name: string): agentsV1.Agent =>
  agent(name, { agentId: `builtin:${name}`, builtIn: true, activeVersion: 0, latestVersion: 0 });
const CALLER = { subject: 'alice', tier: 'default' };
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('agentTools', () => {
  it('names each tool after its agent, with the message in and the agent id to run', () => {
    const [tool] = agentTools([agent('support.bot-2', { spec: { description: 'Billing questions.' } })], CALLER);
    expect(tool).toMatchObject({ agentId: 'agt_support.bot-2', structured: 'none' });
    expect(tool!.tool).toMatchObject({ name: 'support.bot-2', inputSchema: { required: ['message'] } });
    expect(tool!.tool.description).toMatch(/^Billing questions\. /);
    expect(tool!.tool.outputSchema).toBeUndefined();
  });

  it('leaves out a built-in agent a tenant agent of the same name shadows, so a name means one agent', () => {
    const tools = agentTools([agent('default'), builtIn('default'), builtIn('concierge')], CALLER);
    expect(tools.map((t) => [t.tool.name, t.agentId])).toEqual([
      ['default', 'agt_default'],
      ['concierge', 'builtin:concierge'],
    ]);
  });

  it('leaves out deleted agents, agents with only a draft, and agents the caller may not use', () => {
    const tools = agentTools(
      [
        agent('gone', { deletedAt: new Date() }),
        agent('draft', { activeVersion: 0 }),
        agent('gold', { spec: { access: { tiers: ['gold'] } } }),
        agent('bobs', { spec: { access: { subjects: ['bob'] } } }),
        agent('alices', { spec: { access: { subjects: ['alice'], tiers: ['default'] } } }),
      ],
      CALLER,
    );
    expect(tools.map((t) => t.tool.name)).toEqual(['alices']);
  });

  it('declares an object output schema as it is, and wraps any other under `value`', () => {
    const [object, list] = agentTools(
      [
        agent('weather', { spec: { outputSchema: WEATHER } }),
        agent('list', { spec: { outputSchema: { type: 'array' } } }),
      ],
      CALLER,
    );
    expect(object).toMatchObject({ structured: 'object', tool: { outputSchema: WEATHER } });
    expect(list).toMatchObject({
      structured: 'wrapped',
      tool: { outputSchema: { type: 'object', properties: { value: { type: 'array' } }, required: ['value'] } },
    });
  });
});

describe('AgentToolArguments', () => {
  it('takes a message and a conversation id, nothing else', () => {
    expect(AgentToolArguments.safeParse({ message: 'hi', conversationId: 'mcp-1' }).success).toBe(true);
    expect(AgentToolArguments.safeParse({ message: '' }).success).toBe(false);
    expect(AgentToolArguments.safeParse({ message: 'hi', extra: 1 }).success).toBe(false);
    expect(AgentToolArguments.safeParse({ message: 'hi', conversationId: 'a b/c' }).success).toBe(false);
  });
});

function turn(fields: Partial<orchestratorV1.HandleMessageResponse>): orchestratorV1.HandleMessageResponse {
  return {
    runId: 'run_1',
    status: 'completed',
    stopReason: 'final_answer',
    response: '84',
    turns: 1,
    toolCalls: [],
    durationMs: 1,
    usage: undefined,
    pendingJson: '[]',
    ...fields,
  };
}
const [plainTool, weatherTool, listTool] = agentTools(
  [
    agent('plain'),
    agent('weather', { spec: { outputSchema: WEATHER } }),
    agent('list', { spec: { outputSchema: { type: 'array' } } }),
  ],
  CALLER,
) as [AgentTool, AgentTool, AgentTool];
const APPROVAL: PendingItem = {
  callId: 'call_1',
  agentName: 'archive_orders',
  waitingFor: 'approval',
  prompt: 'archive_orders needs your approval',
  approval: {
    approvalId: '0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
    actionSummary: 'Run archive_orders',
    details: { region: 'emea' },
    options: ['approve', 'edit', 'cancel'],
    allowModification: true,
  },
};
const QUESTION: PendingItem = { callId: 'call_2', agentName: 'booking', waitingFor: 'input', prompt: 'Which date?' };

describe('toolCallResult', () => {
  it('answers the text, then the conversation and run, with both in _meta', () => {
    const result = toolCallResult(plainTool, { result: turn({}), conversationId: 'mcp-1' });
    expect(result.isError).toBeUndefined();
    expect(result.content[0]).toEqual({ type: 'text', text: '84' });
    expect(result.content[1]!.text).toContain('conversationId: mcp-1');
    expect(result._meta).toEqual({
      conversationId: 'mcp-1',
      runId: 'run_1',
      status: 'completed',
      stopReason: 'final_answer',
    });
  });

  it('carries a structured answer as structuredContent (wrapped for a schema that is no object) and as its JSON', () => {
    const object = toolCallResult(weatherTool, {
      result: turn({ outputJson: '{"city":"Berlin"}' }),
      conversationId: 'c',
    });
    expect(object.structuredContent).toEqual({ city: 'Berlin' });
    expect(object.content[0]!.text).toBe('{"city":"Berlin"}');
    const list = toolCallResult(listTool, { result: turn({ outputJson: '[1,2]' }), conversationId: 'c' });
    expect(list.structuredContent).toEqual({ value: [1, 2] });
  });

  it('is an error when a structured agent gave no valid answer, or the run failed', () => {
    const invalid = toolCallResult(weatherTool, {
      result: turn({ stopReason: 'invalid_output', response: 'not json' }),
      conversationId: 'c',
    });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]!.text).toContain('without an answer matching the output schema');
    const failed = toolCallResult(plainTool, {
      result: turn({ status: 'failed', stopReason: 'model_error' }),
      conversationId: 'c',
    });
    expect(failed).toMatchObject({ isError: true });
    expect(failed.content[0]!.text).toContain('failed (model_error)');
  });

  it('says what a waiting run waits for and how to answer it: the approval id, the REST call, the conversation', () => {
    const result = toolCallResult(plainTool, {
      result: turn({
        status: 'waiting',
        stopReason: 'agent_waiting',
        pendingJson: JSON.stringify([APPROVAL, QUESTION]),
      }),
      conversationId: 'mcp-9',
    });
    expect(result.isError).toBe(true);
    const words = result.content[0]!.text;
    expect(words).toContain('Waiting for approval: Run archive_orders');
    expect(words).toContain(`POST /v1/approvals/${APPROVAL.approval!.approvalId}`);
    expect(words).toContain('conversationId "mcp-9" and the message "yes" or "no"');
    expect(words).toContain("Waiting for input to 'booking': Which date?");
  });
});

describe('elicitation', () => {
  it('is used for clients that declare form elicitation (an empty capability means form)', () => {
    expect(supportsFormElicitation({ elicitation: {} })).toBe(true);
    expect(supportsFormElicitation({ elicitation: { form: {} } })).toBe(true);
    expect(supportsFormElicitation({ elicitation: { url: {} } })).toBe(false);
    expect(supportsFormElicitation({})).toBe(false);
  });

  it('asks an approval as a choice of the offered decisions, with changes for an edit', () => {
    const params = elicitationFor(APPROVAL);
    expect(params.message).toContain('Run archive_orders');
    expect(params.requestedSchema.properties['decision']!.enum).toEqual(['approve', 'edit', 'cancel']);
    expect(params.requestedSchema.properties['changes']).toBeDefined();
    const fixed = elicitationFor({ ...APPROVAL, approval: { ...APPROVAL.approval!, allowModification: false } });
    expect(fixed.requestedSchema.properties['decision']!.enum).toEqual(['approve', 'cancel']);
    expect(fixed.requestedSchema.properties['changes']).toBeUndefined();
  });

  it('turns the answers into a decision, a message, or leaves the run waiting', () => {
    const id = APPROVAL.approval!.approvalId;
    expect(replyOf(APPROVAL, { action: 'accept', content: { decision: 'approve' } })).toEqual({
      kind: 'decision',
      approvalId: id,
      decision: { decision: 'approve' },
    });
    expect(replyOf(APPROVAL, { action: 'decline' })).toMatchObject({
      kind: 'decision',
      decision: { decision: 'cancel' },
    });
    expect(
      replyOf(APPROVAL, { action: 'accept', content: { decision: 'edit', changes: '{"region":"apac"}' } }),
    ).toMatchObject({ kind: 'decision', decision: { decision: 'edit', changes: { region: 'apac' } } });
    expect(replyOf(APPROVAL, { action: 'accept', content: { decision: 'edit', changes: '[1]' } }).kind).toBe('none');
    expect(replyOf(APPROVAL, { action: 'cancel' }).kind).toBe('none');
    expect(replyOf(QUESTION, { action: 'accept', content: { answer: 'Friday' } })).toEqual({
      kind: 'message',
      content: 'Friday',
    });
    expect(replyOf(QUESTION, { action: 'decline' }).kind).toBe('none');
    expect(replyOf(QUESTION, { action: 'accept', content: { answer: ' ' } }).kind).toBe('none');
  });
});

describe('progressMessageOf', () => {
  const event = (type: RunEventEnvelope['type'], data: Record<string, unknown> = {}): RunEventEnvelope => ({
    id: 1,
    runId: 'run_1',
    type,
    at: 0,
    data,
  });
  it('tells tool calls, states and delegations, and nothing for chunks and the end', () => {
    expect(progressMessageOf(event('tool_call_start', { name: 'calculator' }))).toBe('calling calculator');
    expect(progressMessageOf(event('tool_result', { name: 'calculator', status: 'success' }))).toBe(
      'calculator: success',
    );
    expect(progressMessageOf(event('state_change', { state: 'waiting_for_approval' }))).toBe('waiting for approval');
    expect(progressMessageOf(event('child_run_started', { role: 'researcher' }))).toBe('delegated to researcher');
    expect(progressMessageOf(event('message_chunk', { delta: 'x' }))).toBeUndefined();
    expect(progressMessageOf(event('execution_end'))).toBeUndefined();
  });
});

describe('MCP authorization', () => {
  const request = { protocol: 'https', host: 'api.example.com' } as FastifyRequest;
  it('puts the well-known path before the resource path (RFC 9728)', () => {
    expect(resourceMetadataUrlOf('https://api.example.com/v1/mcp')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource/v1/mcp',
    );
  });
  it('names the metadata on every 401, and invalid_token only when a token was sent', () => {
    const options = { authorizationServers: [] };
    expect(bearerChallenge(options, request, { code: 'MISSING_TOKEN', message: 'send one' })).toBe(
      'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/v1/mcp"',
    );
    expect(bearerChallenge(options, request, { code: 'TOKEN_EXPIRED', message: 'the "exp" passed' })).toContain(
      'error="invalid_token", error_description="TOKEN_EXPIRED: the \\"exp\\" passed"',
    );
  });
});

describe('McpSessions', () => {
  const closable = () => {
    const session = { closed: false, close: async () => void (session.closed = true) };
    return session;
  };
  const alice = { tenantId: 'acme', subject: 'alice' };

  it('finds a session for its owner only', () => {
    const sessions = new McpSessions({ maxSessions: 10, maxPerTenant: 10, idleMs: 1_000 });
    const session = closable();
    sessions.add('s1', alice, session);
    expect(sessions.find('s1', alice)).toBe(session);
    expect(sessions.find('s1', { tenantId: 'other', subject: 'alice' })).toBeUndefined();
    expect(sessions.find('s1', { tenantId: 'acme', subject: 'bob' })).toBeUndefined();
  });

  it("makes room by closing the tenant's least recently used idle session; refuses when all are busy", async () => {
    let now = 0;
    const sessions = new McpSessions({ maxSessions: 10, maxPerTenant: 2, idleMs: 60_000 }, () => now);
    const [a, b] = [closable(), closable()];
    sessions.add('a', alice, a);
    now = 1;
    sessions.add('b', alice, b);
    expect(await sessions.admit('acme')).toBe(true);
    expect([a.closed, b.closed]).toEqual([true, false]);
    const release = sessions.hold('b');
    sessions.add('c', alice, closable());
    sessions.hold('c');
    expect(await sessions.admit('acme')).toBe(false);
    release();
    expect(await sessions.admit('acme')).toBe(true);
    expect(b.closed).toBe(true);
  });

  it('closes sessions idle past their time', async () => {
    let now = 0;
    const sessions = new McpSessions({ maxSessions: 10, maxPerTenant: 10, idleMs: 100 }, () => now);
    const session = closable();
    sessions.add('s', alice, session);
    now = 101;
    await sessions.sweep();
    expect(session.closed).toBe(true);
    expect(sessions.size).toBe(0);
  });
});
