import { beforeAll, describe, expect, it } from 'vitest';
import { useAgentEdgeApp } from '../test-support/agent-edge-app.js';
import { agentCall } from '../test-support/agent-requests.js';

// A message's agent, version, overrides and output schema reach the orchestrator's HandleMessage
// fields; the answers say which agent and version ran. The orchestrator's own suite tests what it does with them.
const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const edge = useAgentEdgeApp(SECRET);
const RUN_ID = 'run_00000000-0000-4000-8000-000000000001';
let acme: string;

beforeAll(async () => {
  acme = await edge.bearer('acme', 'alice');
});

const send = (body: Record<string, unknown>) =>
  agentCall(edge, acme, 'POST', '/v1/conversations/conv-1/messages', { body: { content: 'hi', ...body } });

describe('POST /v1/conversations/{id}/messages with an agent', () => {
  it('passes agent, agentVersion, overrides, outputSchema and the token user on; answers the agent and version', async () => {
    const outputSchema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const response = await send({
      agent: 'support-bot',
      agentVersion: 3,
      overrides: { model: 'gpt-4o', instructions: 'Be terse.', tools: ['search_*'], maxTurns: 2 },
      outputSchema,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().agent).toEqual({ id: 'agt_00000000-0000-4000-8000-000000000001', version: 3 });
    const request = edge.orchestrator.messages.at(-1)!;
    expect(request).toMatchObject({ tenantId: 'acme', profile: 'support-bot', agentVersion: 3, subject: 'alice' });
    expect(JSON.parse(request.overridesJson!)).toEqual({
      model: 'gpt-4o',
      instructions: 'Be terse.',
      tools: ['search_*'],
      maxTurns: 2,
    });
    expect(JSON.parse(request.outputSchemaJson!)).toEqual(outputSchema);
  });

  it('sends no agent fields when the message names none', async () => {
    expect((await send({})).statusCode).toBe(200);
    const request = edge.orchestrator.messages.at(-1)!;
    expect(request).toMatchObject({ profile: '', subject: 'alice' });
    // Unset, not empty: the orchestrator's defaults apply.
    expect([request.agentVersion, request.overridesJson, request.outputSchemaJson]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('takes `profile` as the older name of `agent`; both naming the same agent is fine, two different ones a 400', async () => {
    expect((await send({ profile: 'concierge' })).statusCode).toBe(200);
    expect(edge.orchestrator.messages.at(-1)!.profile).toBe('concierge');
    expect((await send({ profile: 'concierge', agent: 'concierge' })).statusCode).toBe(200);
    const count = edge.orchestrator.messages.length;
    const both = await send({ profile: 'concierge', agent: 'support-bot' });
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toMatchObject({ code: 'INVALID_BODY', details: { field: 'agent' } });
    expect(edge.orchestrator.messages).toHaveLength(count);
  });

  it('refuses overrides, versions and schemas of the wrong shape with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ overrides: { maxTurns: 0 } }, 'overrides.maxTurns'],
      [{ overrides: { temperature: 2 } }, 'overrides'],
      [{ agentVersion: 0 }, 'agentVersion'],
      [{ agentVersion: '2' }, 'agentVersion'],
      [{ outputSchema: 'json' }, 'outputSchema'],
      [{ agent: 'no spaces allowed' }, 'agent'],
    ];
    for (const [body, field] of cases) {
      const response = await send(body);
      expect([field, response.statusCode, response.json().error.code]).toEqual([field, 400, 'INVALID_BODY']);
      expect(response.json().error.message).toContain(field);
    }
  });

  it('answers an agent that is not there as AGENT_NOT_FOUND when named with `agent`, PROFILE_NOT_FOUND with `profile`', async () => {
    const byAgent = await send({ agent: 'nobody' });
    expect(byAgent.statusCode).toBe(404);
    expect(byAgent.json().error).toMatchObject({ code: 'AGENT_NOT_FOUND', details: { field: 'agent' } });
    const byProfile = await send({ profile: 'nobody' });
    expect(byProfile.statusCode).toBe(404);
    expect(byProfile.json().error.code).toBe('PROFILE_NOT_FOUND');
  });

  it("answers the orchestrator's refusals: a deleted agent 410 AGENT_DELETED, an override not allowed 400", async () => {
    const deleted = await send({ agent: 'gone-bot' });
    expect(deleted.statusCode).toBe(410);
    expect(deleted.json().error.code).toBe('AGENT_DELETED');
    const override = await send({ agent: 'support-bot', overrides: { model: 'forbidden' } });
    expect(override.statusCode).toBe(400);
    expect(override.json().error.code).toBe('OVERRIDE_NOT_ALLOWED');
  });
});

describe('POST /v1/chat/completions', () => {
  it('runs the agent `model` names, for the token user', async () => {
    const response = await agentCall(edge, acme, 'POST', '/v1/chat/completions', {
      body: { model: 'support-bot', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().model).toBe('support-bot');
    expect(edge.orchestrator.messages.at(-1)).toMatchObject({ profile: 'support-bot', subject: 'alice' });
  });
});

describe('GET /v1/runs/{runId}', () => {
  it('says which agent and version the run runs under, its overrides and its user', async () => {
    const response = await agentCall(edge, acme, 'GET', `/v1/runs/${RUN_ID}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      profile: 'support-bot',
      agent: { id: 'agt_00000000-0000-4000-8000-000000000001', version: 2 },
      overrides: { maxTurns: 3 },
      subject: 'alice',
    });
    const other = await agentCall(edge, await edge.bearer('globex'), 'GET', `/v1/runs/${RUN_ID}`);
    expect(other.statusCode).toBe(404);
  });
});
