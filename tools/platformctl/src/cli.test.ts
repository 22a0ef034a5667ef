import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

// The commands against the real platform are tested in test/e2e/src/platformctl.test.ts; this
// file covers the command line itself: usage errors, and how api failures reach the operator.
let server: Server;
let baseUrl: string;
const seen: Array<{ method: string; url: string; headers: Record<string, unknown>; body: string }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      response.writeHead(403, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'FORBIDDEN', message: 'this route is for operators' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { env, out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('platformctl command line', () => {
  it('sends a conversation deletion, a deletion read and an end-user erasure to their routes', async () => {
    const env = { PLATFORM_TOKEN: 't', PLATFORM_API_URL: baseUrl };
    expect((await run(['conversations', 'delete', 'chat 1'], env)).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/v1/conversations/chat%201' });
    expect((await run(['conversations', 'deletion', 'del_1'], env)).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/conversation-deletions/del_1' });
    expect((await run(['users', 'erase', 'erin'], env)).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/end-users/erin/erasure' });
    expect(await run(['users', 'erase'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('missing <subject>'),
    });
  });

  it('reads one approval with GET /v1/approvals/{id}, and refuses approvals show without an id', async () => {
    const env = { PLATFORM_TOKEN: 't', PLATFORM_API_URL: baseUrl };
    expect((await run(['approvals', 'show', '0b5c2f3e-1d1a-4c1e-9a57-8d0c2b7d9e11'], env)).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/approvals/0b5c2f3e-1d1a-4c1e-9a57-8d0c2b7d9e11' });
    expect(await run(['approvals', 'show'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('missing <approvalId>'),
    });
  });

  it('prints its usage with --help and exits 2 without a command', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, out: expect.stringContaining('runs show <runId>') });
    expect((await run([])).code).toBe(2);
  });

  it('refuses bad usage with exit code 2 and says what is wrong', async () => {
    expect(await run(['tools'])).toMatchObject({ code: 2, err: expect.stringContaining('no token') });
    expect(await run(['frobnicate'], { PLATFORM_TOKEN: 't' })).toMatchObject({
      code: 2,
      err: expect.stringContaining("unknown command 'frobnicate'"),
    });
    expect(await run(['runs', 'show'], { PLATFORM_TOKEN: 't' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('missing <runId>'),
    });
    expect(await run(['runs', 'list', '--all', '--page-token', 'x'], { PLATFORM_TOKEN: 't' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--all or --page-token'),
    });
    expect(await run(['runs', 'list', '--limit', 'lots'], { PLATFORM_TOKEN: 't' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--limit'),
    });
    expect(
      await run(['tasks', 'fires', 'task_1', '--limit', 'many'], { PLATFORM_TOKEN: 't', PLATFORM_API_URL: baseUrl }),
    ).toMatchObject({ code: 2, err: expect.stringContaining('--limit') });
    expect(await run(['tools', '--bogus'], { PLATFORM_TOKEN: 't' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--bogus'),
    });
  });

  it("prints the api's error code and exits 1 when the api refuses", async () => {
    const result = await run(['credentials', 'keys', '--api', baseUrl, '--token', 'tok', '--tenant', 'acme']);
    expect(result).toMatchObject({ code: 1, err: 'platformctl: FORBIDDEN (HTTP 403): this route is for operators\n' });
    expect(seen.at(-1)).toMatchObject({
      url: '/v1/admin/credential-keys',
      headers: expect.objectContaining({ authorization: 'Bearer tok', 'platform-tenant': 'acme' }),
    });
  });

  it('lists runs without a conversation: filters and paging become GET /v1/runs query parameters', async () => {
    const argv = [
      'runs',
      'list',
      '--api',
      baseUrl,
      '--token',
      'tok',
      '--status',
      'failed,running',
      '--tool',
      'search',
      '--since',
      '2026-01-01T00:00:00Z',
      '--source',
      'trigger',
    ];
    expect((await run([...argv, '--limit', '10', '--page-token', 'abc'])).code).toBe(1);
    const url = new URL(seen.at(-1)!.url, baseUrl);
    expect(url.pathname).toBe('/v1/runs');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      status: 'failed,running',
      tool: 'search',
      createdAfter: '2026-01-01T00:00:00Z',
      source: 'trigger',
      pageSize: '10',
      pageToken: 'abc',
    });
    await run(['runs', 'list', '--api', baseUrl, '--token', 'tok', '--conversation', 'c1']);
    expect(Object.fromEntries(new URL(seen.at(-1)!.url, baseUrl).searchParams)).toEqual({ conversationId: 'c1' });
  });

  it('lists conversations: filters and paging become GET /v1/conversations query parameters', async () => {
    const base = ['conversations', 'list', '--api', baseUrl, '--token', 'tok'];
    const filters = ['--agent', 'helper', '--user', 'alice', '--label', 'billing', '--metadata', 'crm=T-1'];
    expect((await run([...base, ...filters, '--waiting', '--search', 'refund', '--limit', '5'])).code).toBe(1);
    const url = new URL(seen.at(-1)!.url, baseUrl);
    expect(url.pathname).toBe('/v1/conversations');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      agent: 'helper',
      user: 'alice',
      label: 'billing',
      metadata: 'crm=T-1',
      waitingForUser: 'true',
      search: 'refund',
      pageSize: '5',
    });
    expect(await run([...base, '--waiting', '--not-waiting'])).toMatchObject({ code: 2 });
  });

  it('gets and updates a conversation with GET and PATCH /v1/conversations/{id}', async () => {
    const auth = ['--api', baseUrl, '--token', 'tok'];
    await run(['conversations', 'get', 'conv 1', ...auth]);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/conversations/conv%201' });
    const update = ['conversations', 'update', 'c1', ...auth];
    await run([...update, '--title', 'Refund', '--label', 'a', '--label', 'b', '--metadata', 'k=v', '--share']);
    expect(seen.at(-1)).toMatchObject({ method: 'PATCH', url: '/v1/conversations/c1' });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({
      title: 'Refund',
      labels: ['a', 'b'],
      metadata: { k: 'v' },
      shared: true,
    });
    await run([...update, '--no-labels', '--unshare']);
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ labels: [], shared: false });
    await run([...update, '--webhook-url', 'https://hooks.example.com/runs']);
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ webhookUrl: 'https://hooks.example.com/runs' });
    await run([...update, '--no-webhook-url']);
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ webhookUrl: null });
    expect(await run([...update, '--no-webhook-url', '--webhook-url', 'https://h.example/x'])).toMatchObject({
      code: 2,
    });
    expect(await run(update)).toMatchObject({ code: 2, err: expect.stringContaining('needs --title') });
    expect(await run([...update, '--metadata', 'nokey'])).toMatchObject({ code: 2 });
    expect(await run(['conversations', 'get', ...auth])).toMatchObject({
      code: 2,
      err: expect.stringContaining('missing'),
    });
  });

  it("adds a model connection with the key from the environment only, for the token's own tenant", async () => {
    const argv = ['model-connections', 'add', 'acme-llm', '--base-url', 'https://llm.example/v1', '--models', 'a, b'];
    expect(await run(argv, { PLATFORM_TOKEN: 't', PLATFORM_API_URL: baseUrl })).toMatchObject({
      code: 2,
      err: expect.stringContaining('MODEL_CONNECTION_API_KEY'),
    });
    const sent = await run([...argv, '--tenant', 'other'], {
      PLATFORM_TOKEN: 't',
      PLATFORM_API_URL: baseUrl,
      MODEL_CONNECTION_API_KEY: 'sk-from-env',
    });
    expect(sent.code).toBe(1);
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/model-connections' });
    expect(JSON.parse(request.body)).toEqual({
      name: 'acme-llm',
      baseUrl: 'https://llm.example/v1',
      apiKey: 'sk-from-env',
      models: ['a', 'b'],
    });
    // Writes act for the token's tenant: the operators' read header is not sent with them.
    expect(request.headers['platform-tenant']).toBeUndefined();
    expect(
      await run(['model-connections', 'add', 'x'], { PLATFORM_TOKEN: 't', MODEL_CONNECTION_API_KEY: 'k' }),
    ).toMatchObject({
      code: 2,
      err: expect.stringContaining('--base-url'),
    });
  });

  it('registers a remote agent with its card URL and the credential its calls carry, and refuses one without --url', async () => {
    const env = { PLATFORM_TOKEN: 't', PLATFORM_API_URL: baseUrl };
    const argv = ['remote-agents', 'add', 'forecaster', '--url', 'https://agents.example/.well-known/agent-card.json'];
    expect((await run([...argv, '--credential', 'partner/work', '--description', 'Forecasts'], env)).code).toBe(1);
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/remote-agents' });
    expect(JSON.parse(request.body)).toEqual({
      name: 'forecaster',
      url: 'https://agents.example/.well-known/agent-card.json',
      description: 'Forecasts',
      auth: { credentialService: 'partner', credentialAccount: 'work' },
    });
    expect(await run(['remote-agents', 'add', 'forecaster'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('--url'),
    });
    expect(await run([...argv, '--credential', 'a/b/c'], env)).toMatchObject({ code: 2 });
    expect((await run(['remote-agents', 'delete', 'fore caster'], env)).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/v1/remote-agents/fore%20caster' });
    expect((await run(['remote-agents'], env)).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/remote-agents' });
  });

  it('takes an API key with --key or PLATFORM_API_KEY and sends it as the bearer', async () => {
    expect((await run(['keys', 'list', '--api', baseUrl, '--key', 'plk_k1'])).code).toBe(1);
    expect(seen.at(-1)).toMatchObject({ url: '/v1/keys', method: 'GET' });
    expect(seen.at(-1)!.headers).toMatchObject({ authorization: 'Bearer plk_k1' });
    await run(['keys', 'revoke', '0123456789abcdef', '--api', baseUrl], { PLATFORM_API_KEY: 'plk_k2' });
    expect(seen.at(-1)).toMatchObject({ url: '/v1/keys/0123456789abcdef', method: 'DELETE' });
    expect(seen.at(-1)!.headers).toMatchObject({ authorization: 'Bearer plk_k2' });
    expect(await run(['keys', 'list', '--key', 'plk_a', '--token', 't'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--key or --token'),
    });
  });

  it('creates a key with POST /v1/keys, and refuses keys create without --name and --role', async () => {
    expect(await run(['keys', 'create', '--role', 'member'], { PLATFORM_TOKEN: 't' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--name and --role'),
    });
    expect(
      (await run(['keys', 'create', '--name', 'b', '--role', 'member', '--api', baseUrl, '--token', 't'])).code,
    ).toBe(1);
    expect(seen.at(-1)).toMatchObject({ url: '/v1/keys', method: 'POST' });
    expect(seen.at(-1)!.headers).toMatchObject({ 'content-type': 'application/json' });
  });

  it('forks a conversation with POST …/fork, sending --at-seq as atSeq (and nothing without it)', async () => {
    expect(
      (await run(['conversations', 'fork', 'conv-1', '--at-seq', '4', '--api', baseUrl, '--token', 't'])).code,
    ).toBe(1);
    expect(seen.at(-1)).toMatchObject({ url: '/v1/conversations/conv-1/fork', method: 'POST', body: '{"atSeq":4}' });
    await run(['conversations', 'fork', 'conv-1', '--api', baseUrl, '--token', 't']);
    expect(seen.at(-1)).toMatchObject({ url: '/v1/conversations/conv-1/fork', body: '{}' });
    expect(await run(['conversations', 'fork', '--token', 't'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('<conversationId>'),
    });
  });

  it('replays a run with POST /v1/runs/{runId}/replays, sending what is given', async () => {
    await run(['runs', 'replay', 'run_1', '--from-step', '2', '--model', 'gpt-4o', '--api', baseUrl, '--token', 't']);
    expect(seen.at(-1)).toMatchObject({
      url: '/v1/runs/run_1/replays',
      method: 'POST',
      body: '{"fromStep":2,"model":"gpt-4o"}',
    });
    await run([
      'runs',
      'replay',
      'run_1',
      '--from-step',
      '0',
      '--agent-version',
      '3',
      '--api',
      baseUrl,
      '--token',
      't',
    ]);
    expect(seen.at(-1)).toMatchObject({ body: '{"fromStep":0,"agentVersion":3}' });
    expect(await run(['runs', 'replay', 'run_1', '--token', 't'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--from-step'),
    });
  });

  it('says the api is unreachable (exit 1)', async () => {
    const result = await run(['tools', '--api', 'http://127.0.0.1:1', '--token', 'tok']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^platformctl: UNREACHABLE: cannot reach http:\/\/127\.0\.0\.1:1/);
  });
});
