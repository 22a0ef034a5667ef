// The tenant's agents as an MCP server (`/v1/mcp`, Streamable HTTP), driven only by the official
// MCP SDK's Client and StreamableHTTPClientTransport: the agents are tools, a call is a durable
// run (protocol `mcp`) with progress notifications, an approval the run waits for or an
// agent-tool's question is asked over elicitation (or, for a client without it, the result says
// how to answer), DELETE ends a session, a 401 leads the client's OAuth flow through the resource
// metadata to a real authorization server where the user signs in and whose JWT then lists the
// tenant's agents, and another tenant's token reaches none of it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type ElicitRequest, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { ManagedProcess } from '@platform/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool as call, connectWithToken, rawMcp, RecordingOAuthClient, textOf, type Elicit } from './mcp-client.js';
import { signIn, startAuthorizationServer, type AuthorizationServer } from './oauth-server.js';
import { api, bootPlatform, startRunnerProcess, tokenFor, waitForCatalog, type SuitePlatform } from './support.js';
import { startTravelRunner, type TravelRunner } from './travel.js';

const TENANT = 'mcp-tenant';
const OTHER_TENANT = 'mcp-other-tenant';
const QUESTION = '[scenario:calculator] What is 12 * (3 + 4)?';
const ARCHIVE = '[scenario:gated-archive] Archive the EMEA orders older than 90 days.';
const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

let platform: SuitePlatform;
let runner: ManagedProcess;
let travel: TravelRunner;
let authServer: AuthorizationServer;
const clients: Client[] = [];

beforeAll(async () => {
  // Its users: alice of the tenant, bob of the other tenant.
  authServer = await startAuthorizationServer({ alice: TENANT, bob: OTHER_TENANT });
  platform = await bootPlatform('mcp', {
    env: {
      orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' },
      api: { MCP_AUTHORIZATION_SERVERS: authServer.issuer },
    },
    // The second api replica also trusts the authorization server's tokens: its keys and issuer,
    // and only tokens for its own MCP endpoint (it keeps the shared secret as well).
    apiReplicas: 2,
    apiReplicaEnv: (replica, port): Record<string, string> =>
      replica === 1
        ? {
            AUTH_JWKS_URL: authServer.jwksUrl,
            AUTH_ISSUER: authServer.issuer,
            AUTH_AUDIENCE: `http://127.0.0.1:${port}/v1/mcp`,
          }
        : {},
  });
  runner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  travel = await startTravelRunner(platform);
  await waitForCatalog(platform.apiUrl, ['archive_orders', 'flight_search']);
  const created = await api(
    platform,
    'POST',
    '/v1/agents',
    { tenant: TENANT, roles: ['developer'] },
    {
      name: 'weather',
      description: 'Reports the weather of a city.',
      instructions: 'You report the weather.',
      tools: [],
      outputSchema: WEATHER,
    },
  );
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await runner?.stop();
  await travel?.stop();
  await platform?.stop();
  await authServer?.stop();
});

const mcpUrl = (): URL => new URL(`${platform.apiUrl}/v1/mcp`);
/** The MCP endpoint of the replica that trusts the authorization server. */
const oauthMcpUrl = (): URL => new URL(`${platform.apiUrls[1]!}/v1/mcp`);

async function connect(tenant: string, elicit?: Elicit): Promise<Client> {
  const client = await connectWithToken(mcpUrl(), await tokenFor(tenant), elicit);
  clients.push(client);
  return client;
}

async function runOf(tenant: string, runId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return api(platform, 'GET', `/v1/runs/${runId}`, tenant);
}

describe('tools/list', () => {
  it("lists the tenant's agents as tools: the message in, an output schema for a structured agent", async () => {
    const client = await connect(TENANT);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('default');
    expect(names).toContain('weather');
    const weather = tools.find((t) => t.name === 'weather')!;
    expect(weather.description).toContain('Reports the weather of a city.');
    expect(weather.inputSchema).toMatchObject({ type: 'object', required: ['message'] });
    expect(Object.keys(weather.inputSchema.properties ?? {}).sort()).toEqual(['conversationId', 'message']);
    expect(weather.outputSchema).toEqual(WEATHER);
    expect(tools.find((t) => t.name === 'default')!.outputSchema).toBeUndefined();
  });
});

describe('tools/call', () => {
  it("runs the agent as a durable run with protocol 'mcp', telling its progress, and continues its conversation", async () => {
    const client = await connect(TENANT);
    const progress: Progress[] = [];
    const result = await call(client, 'default', { message: QUESTION }, (p) => progress.push(p));
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('84');
    const { conversationId, runId } = result._meta;
    expect(textOf(result, 1)).toContain(conversationId);
    expect(progress.map((p) => p.message)).toContain('calling calculator');
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));

    const run = await runOf(TENANT, runId);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ protocol: 'mcp', status: 'completed', conversationId });

    const next = await call(client, 'default', { message: '[scenario:plain] thanks', conversationId });
    expect(next.isError).toBeFalsy();
    expect(next._meta.conversationId).toBe(conversationId);
    expect((await runOf(TENANT, next._meta.runId)).body).toMatchObject({ conversationId, protocol: 'mcp' });
  });

  it('answers a structured agent with structuredContent valid against its output schema', async () => {
    const client = await connect(TENANT);
    await client.listTools(); // the SDK checks structuredContent against the listed outputSchema
    const result = await call(client, 'weather', { message: '[scenario:structured-valid] Berlin?' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ city: 'Berlin', celsius: 21 });
    expect(JSON.parse(textOf(result))).toEqual({ city: 'Berlin', celsius: 21 });
  });

  it('refuses an unknown tool with a protocol error and bad arguments with an isError result', async () => {
    const client = await connect(TENANT);
    await expect(call(client, 'no-such-agent', { message: 'hi' })).rejects.toThrow(/unknown tool 'no-such-agent'/);
    const bad = await call(client, 'default', { text: 'hi' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^INVALID_ARGUMENTS: /);
  });
});

describe('a run that waits for approval', () => {
  it('is asked over elicitation; the approval decided there, the run continues and the call returns its answer', async () => {
    const asked: ElicitRequest[] = [];
    const client = await connect(TENANT, async (request) => {
      asked.push(request);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const result = await call(client, 'default', { message: `${ARCHIVE} (mcp-elicit-approve)` });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain('archive_orders');
    expect(asked[0]!.params).toHaveProperty('requestedSchema');
    expect((asked[0]!.params as { requestedSchema: unknown }).requestedSchema).toMatchObject({
      properties: { decision: { type: 'string', enum: ['approve', 'edit', 'cancel'] } },
      required: ['decision'],
    });
    expect(result.isError).toBeFalsy();
    expect(result._meta.status).toBe('completed');
    expect(JSON.parse(textOf(result).replace(/^Archive result: /, ''))).toEqual({
      archived: 42,
      region: 'emea',
      olderThanDays: 90,
    });
    // The decision's run came over MCP too, in the same conversation.
    expect((await runOf(TENANT, result._meta.runId)).body).toMatchObject({
      protocol: 'mcp',
      conversationId: result._meta.conversationId,
    });
  });

  it('cancels the action when the user declines the elicitation', async () => {
    const client = await connect(TENANT, async () => ({ action: 'decline' }));
    const result = await call(client, 'default', { message: `${ARCHIVE} (mcp-elicit-decline)` });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('User cancelled this action.');
  });

  it('without elicitation, returns what it waits for and how to answer; calling again with the conversation answers it', async () => {
    const client = await connect(TENANT);
    const waiting = await call(client, 'default', { message: `${ARCHIVE} (mcp-no-elicitation)` });
    expect(waiting.isError).toBe(true);
    expect(waiting._meta.status).toBe('waiting');
    const { conversationId } = waiting._meta;
    const approvals = await api<{ approvals: Array<{ approvalId: string; conversationId: string }> }>(
      platform,
      'GET',
      '/v1/approvals',
      TENANT,
    );
    const approval = approvals.body.approvals.find((a) => a.conversationId === conversationId)!;
    const words = textOf(waiting);
    expect(words).toContain('Waiting for approval');
    expect(words).toContain(approval.approvalId);
    expect(words).toContain(`POST /v1/approvals/${approval.approvalId}`);
    expect(words).toContain(`conversationId "${conversationId}"`);

    const yes = await call(client, 'default', { message: 'yes', conversationId });
    expect(yes.isError).toBeFalsy();
    expect(textOf(yes)).toMatch(/^Archive result: /);
  });
});

describe('an agent-tool that asks for input', () => {
  it("asks its question over elicitation; the answer is the conversation's next message and the call returns the final answer", async () => {
    const asked: ElicitRequest[] = [];
    const client = await connect(TENANT, async (request) => {
      asked.push(request);
      return { action: 'accept', content: { answer: 'To New York, JFK is fine.' } };
    });
    const result = await call(client, 'default', {
      message: '[scenario:travel-missing-field] Find me flights from SFO next Friday.',
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain('destination');
    expect((asked[0]!.params as { requestedSchema: unknown }).requestedSchema).toEqual({
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', minLength: 1 } },
      required: ['answer'],
    });
    expect(result.isError).toBeFalsy();
    expect(result._meta.status).toBe('completed');
    expect(textOf(result)).toMatch(/^Here are your flights: .*SFO->NYC/s);
    // The answer's run continued the same conversation, over MCP.
    expect((await runOf(TENANT, result._meta.runId)).body).toMatchObject({
      protocol: 'mcp',
      status: 'completed',
      conversationId: result._meta.conversationId,
    });
  });
});

describe('another tenant', () => {
  it("sees none of the tenant's agents, cannot continue its conversation, nor use its session", async () => {
    const mine = await connect(TENANT);
    const { _meta } = await call(mine, 'default', { message: '[scenario:plain] private words' });
    const other = await connect(OTHER_TENANT);
    expect((await other.listTools()).tools.map((t) => t.name)).not.toContain('weather');
    await expect(call(other, 'weather', { message: 'hi' })).rejects.toThrow(McpError);
    const hijack = await call(other, 'default', { message: 'what did I say?', conversationId: _meta.conversationId });
    expect(hijack.isError).toBe(true);
    expect(textOf(hijack)).toMatch(/^CONVERSATION_NOT_FOUND: /);
    expect((await runOf(OTHER_TENANT, _meta.runId)).status).toBe(404);

    // The tenant's session id with the other tenant's token: unknown, as any id it does not own.
    const sessionId = (mine.transport as StreamableHTTPClientTransport).sessionId!;
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect(await rawMcp(mcpUrl(), 'POST', await tokenFor(OTHER_TENANT), sessionId, list)).toEqual({
      status: 404,
      code: 'MCP_SESSION_NOT_FOUND',
    });
    // Nor end it: the session lives on for its owner.
    expect(await rawMcp(mcpUrl(), 'DELETE', await tokenFor(OTHER_TENANT), sessionId)).toEqual({
      status: 404,
      code: 'MCP_SESSION_NOT_FOUND',
    });
    expect((await mine.listTools()).tools.map((t) => t.name)).toContain('weather');
  });
});

describe('ending a session', () => {
  it('DELETE ends it: its id is then unknown (404 MCP_SESSION_NOT_FOUND) and the client initializes a new one', async () => {
    const client = await connect(TENANT);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^mcps_/);
    await transport.terminateSession(); // the SDK's DELETE /v1/mcp with the session id
    expect(transport.sessionId).toBeUndefined();

    const token = await tokenFor(TENANT);
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    expect(await rawMcp(mcpUrl(), 'POST', token, sessionId, list)).toEqual({
      status: 404,
      code: 'MCP_SESSION_NOT_FOUND',
    });
    expect(await rawMcp(mcpUrl(), 'DELETE', token, sessionId)).toEqual({ status: 404, code: 'MCP_SESSION_NOT_FOUND' });

    const again = await connect(TENANT);
    const renewed = (again.transport as StreamableHTTPClientTransport).sessionId;
    expect(renewed).toMatch(/^mcps_/);
    expect(renewed).not.toBe(sessionId);
    expect((await again.listTools()).tools.map((t) => t.name)).toContain('weather');
  });
});

describe('authorization', () => {
  it('answers 401 with WWW-Authenticate naming the resource metadata; the SDK follows it to the authorization server', async () => {
    const provider = new RecordingOAuthClient();
    const client = new Client({ name: 'e2e-oauth', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })),
    ).rejects.toThrow(UnauthorizedError);
    const resource = mcpUrl().href;
    expect(provider.discovery?.resourceMetadataUrl).toBe(
      `${platform.apiUrl}/.well-known/oauth-protected-resource/v1/mcp`,
    );
    expect(provider.discovery?.resourceMetadata).toMatchObject({
      resource,
      authorization_servers: [authServer.issuer],
      bearer_methods_supported: ['header'],
    });
    expect(provider.discovery?.authorizationServerUrl).toBe(authServer.issuer);
    expect(provider.discovery?.authorizationServerMetadata?.issuer).toBe(authServer.issuer);
    // It registered with the authorization server and was sent to its authorization endpoint, for this resource.
    expect(provider.client?.client_id).toBeTruthy();
    expect(provider.authorizationUrl?.origin).toBe(new URL(authServer.issuer).origin);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(resource);
    expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it("ends in a JWT of the authorization server: the user signs in, the client exchanges the code, and lists that tenant's agents", async () => {
    const url = oauthMcpUrl();
    /** The whole flow for one user: 401, sign-in and consent, the code to finishAuth, then a client with the token. */
    const signedIn = async (accountId: string): Promise<{ client: Client; token: string }> => {
      const oauth = new RecordingOAuthClient();
      const first = new StreamableHTTPClientTransport(url, { authProvider: oauth });
      await expect(new Client({ name: 'e2e-oauth', version: '1.0.0' }).connect(first)).rejects.toThrow(
        UnauthorizedError,
      );
      expect(oauth.tokens()).toBeUndefined();
      const code = await signIn(oauth.authorizationUrl!, oauth.redirectUrl, accountId);
      await first.finishAuth(code);
      const token = oauth.tokens()?.access_token ?? '';
      const client = new Client({ name: 'e2e-oauth', version: '1.0.0' });
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth }));
      return { client, token };
    };

    const alice = await signedIn('alice');
    expect(decodeProtectedHeader(alice.token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(decodeJwt(alice.token)).toMatchObject({
      iss: authServer.issuer,
      aud: url.href,
      sub: 'alice',
      tenant: TENANT,
    });
    const names = (await alice.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('weather');
    expect(names).toContain('default');

    const bob = await signedIn('bob');
    expect(decodeJwt(bob.token)).toMatchObject({ sub: 'bob', tenant: OTHER_TENANT });
    const theirs = (await bob.client.listTools()).tools.map((t) => t.name);
    expect(theirs).toContain('default');
    expect(theirs).not.toContain('weather');

    // A replica without the authorization server's keys refuses it.
    const elsewhere = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(elsewhere.status).toBe(401);
  });

  it('says invalid_token for a token it refuses', async () => {
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-jwt', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${platform.apiUrl}/.well-known/oauth-protected-resource/v1/mcp"`);
    expect(challenge).toContain('error="invalid_token"');
  });
});
