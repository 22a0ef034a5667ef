import { beforeAll, describe, expect, it } from 'vitest';
import { useAgentEdgeApp } from '../test-support/agent-edge-app.js';
import { agentCall, specNamed } from '../test-support/agent-requests.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const edge = useAgentEdgeApp(SECRET);
let acme: string;
let globex: string;
let id: string;

beforeAll(async () => {
  acme = await edge.bearer('acme', 'alice');
  globex = await edge.bearer('globex', 'mallory');
  id = (await agentCall(edge, acme, 'POST', '/v1/agents', { body: specNamed('pinned-bot') })).json().id;
});

describe('/v1/conversations/{conversationId}/agent', () => {
  it('pins a conversation to a version, reads the pin, unpins it; then it has none (404 PIN_NOT_FOUND)', async () => {
    const pinned = await agentCall(edge, acme, 'PUT', '/v1/conversations/conv-pin/agent', {
      body: { agent: 'pinned-bot', version: 1 },
    });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.json()).toMatchObject({ conversationId: 'conv-pin', agentId: id, version: 1, pinnedBy: 'alice' });
    expect((await agentCall(edge, acme, 'GET', '/v1/conversations/conv-pin/agent')).json()).toEqual(pinned.json());

    const unpinned = await agentCall(edge, acme, 'DELETE', '/v1/conversations/conv-pin/agent');
    expect(unpinned.statusCode).toBe(200);
    expect(unpinned.json().version).toBe(1);
    const none = await agentCall(edge, acme, 'GET', '/v1/conversations/conv-pin/agent');
    expect(none.statusCode).toBe(404);
    expect(none.json().error.code).toBe('PIN_NOT_FOUND');
    expect((await agentCall(edge, acme, 'DELETE', '/v1/conversations/conv-pin/agent')).json().error.code).toBe(
      'PIN_NOT_FOUND',
    );
  });

  it('pins to follow the active version when no version is given (version null)', async () => {
    const pinned = await agentCall(edge, acme, 'PUT', '/v1/conversations/conv-follow/agent', { body: { agent: id } });
    expect(pinned.json()).toMatchObject({ agentId: id, version: null });
  });

  it("keeps tenants apart: another tenant cannot pin to this agent nor see this conversation's pin", async () => {
    await agentCall(edge, acme, 'PUT', '/v1/conversations/conv-mine/agent', { body: { agent: id, version: 1 } });
    const pin = await agentCall(edge, globex, 'PUT', '/v1/conversations/conv-theirs/agent', { body: { agent: id } });
    expect(pin.statusCode).toBe(404);
    expect(pin.json().error.code).toBe('AGENT_NOT_FOUND');
    const read = await agentCall(edge, globex, 'GET', '/v1/conversations/conv-mine/agent');
    expect(read.statusCode).toBe(404);
    expect(read.json().error.code).toBe('PIN_NOT_FOUND');
    expect((await agentCall(edge, globex, 'DELETE', '/v1/conversations/conv-mine/agent')).statusCode).toBe(404);
    expect((await agentCall(edge, acme, 'GET', '/v1/conversations/conv-mine/agent')).statusCode).toBe(200);
  });

  it('refuses bad input with 400 naming the field, and a version that does not exist with 404', async () => {
    const version = await agentCall(edge, acme, 'PUT', '/v1/conversations/conv-bad/agent', {
      body: { agent: id, version: 0 },
    });
    expect(version.statusCode).toBe(400);
    expect(version.json().error).toMatchObject({ code: 'INVALID_BODY', message: expect.stringContaining('version') });
    const extra = await agentCall(edge, acme, 'PUT', '/v1/conversations/conv-bad/agent', {
      body: { agent: id, colour: 'red' },
    });
    expect(extra.statusCode).toBe(400);
    const conversation = await agentCall(edge, acme, 'PUT', `/v1/conversations/${'x'.repeat(300)}/agent`, {
      body: { agent: id },
    });
    expect(conversation.json().error.code).toBe('INVALID_CONVERSATION_ID');
    const missing = await agentCall(edge, acme, 'PUT', '/v1/conversations/conv-bad/agent', {
      body: { agent: id, version: 9 },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('AGENT_VERSION_NOT_FOUND');
  });
});
