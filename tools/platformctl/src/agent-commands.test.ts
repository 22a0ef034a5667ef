import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

// How `platformctl agents …` turns into HTTP calls and prints the answers. The api side stands in
// as a small HTTP server that records what it is asked; test/e2e/src/agents.test.ts drives the
// real platform.
interface Seen {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  body: unknown;
}
const seen: Seen[] = [];
let server: Server;
let baseUrl: string;

const AGENT = {
  id: 'agt_00000000-0000-4000-8000-000000000001',
  name: 'support-bot',
  builtIn: false,
  activeVersion: 2,
  latestVersion: 3,
  revision: 7,
  createdAt: null,
  updatedAt: '2026-06-02T10:00:00.000Z',
  deletedAt: null,
  createdBy: 'alice',
  spec: { name: 'support-bot', model: 'gpt-4o-mini', labels: { team: 'billing' } },
};

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      seen.push({
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      });
      const url = new URL(request.url!, 'http://x');
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(body));
      };
      if (
        request.method === 'PUT' &&
        url.pathname === '/v1/agents/support-bot' &&
        request.headers['if-match'] === '"1"'
      )
        return json(412, { error: { code: 'STALE_REVISION', message: 'revision 1 is not 7' } });
      if (url.pathname.endsWith('/diff'))
        return json(200, {
          agentId: AGENT.id,
          from: 1,
          to: 2,
          changes: [
            { path: 'labels.team', op: 'replace', before: 'billing', after: 'support' },
            { path: 'tools[2]', op: 'add', after: 'send_email' },
            { path: 'loop', op: 'remove', before: { maxTurns: 3 } },
          ],
        });
      if (url.pathname.endsWith('/agent'))
        return json(200, {
          conversationId: 'conv-1',
          agentId: AGENT.id,
          version: null,
          pinnedAt: '2026-06-02T10:00:00.000Z',
          pinnedBy: 'alice',
        });
      if (url.pathname === '/v1/agents' && request.method === 'GET')
        return json(200, { agents: [AGENT], nextPageToken: null });
      return json(request.method === 'POST' && url.pathname === '/v1/agents' ? 201 : 200, AGENT, { etag: '"7"' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const files: Record<string, string> = {
  'spec.json': JSON.stringify({ name: 'support-bot', instructions: 'Help.' }),
  'broken.json': '{ name: ',
};

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli([...argv, '--api', baseUrl, '--token', 'tok'], {
    env: {},
    out: (t) => (out += t),
    err: (t) => (err += t),
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error('no such file');
      return text;
    },
  });
  return { code, out, err };
}

describe('platformctl agents', () => {
  it('lists agents with filters as query parameters', async () => {
    const result = await run(['agents', 'list', '--search', 'bot', '--label', 'team=billing', '--label', 'tier=gold']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^NAME\s+AGENT\s+ACTIVE/);
    expect(result.out).toContain('support-bot');
    expect(result.out).toContain('team=billing');
    const url = new URL(seen.at(-1)!.url, baseUrl);
    expect(url.searchParams.getAll('label')).toEqual(['team=billing', 'tier=gold']);
    expect(url.searchParams.get('search')).toBe('bot');
  });

  it('creates from a spec file (as a draft with --draft) and prints the agent with its ETag', async () => {
    const result = await run(['agents', 'create', '-f', 'spec.json', '--draft']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('etag:');
    expect(result.out).toContain('"7"');
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/v1/agents?draft=true',
      body: { name: 'support-bot', instructions: 'Help.' },
    });
  });

  it('updates with the ETag it reads first, or the one --if-match gives; a stale one exits 1 with the code', async () => {
    const before = seen.length;
    expect((await run(['agents', 'update', 'support-bot', '-f', 'spec.json'])).code).toBe(0);
    expect(seen.slice(before).map((s) => [s.method, s.headers['if-match']])).toEqual([
      ['GET', undefined],
      ['PUT', '"7"'],
    ]);
    const stale = await run(['agents', 'update', 'support-bot', '-f', 'spec.json', '--if-match', '"1"']);
    expect(stale).toMatchObject({ code: 1, err: 'platformctl: STALE_REVISION (HTTP 412): revision 1 is not 7\n' });
  });

  it('diffs two versions, one line per path', async () => {
    const result = await run(['agents', 'diff', 'support-bot', '1', '2']);
    expect(result.out).toBe(
      '~ labels.team: "billing" -> "support"\n+ tools[2]: "send_email"\n- loop: {"maxTurns":3}\n',
    );
    expect(seen.at(-1)!.url).toBe('/v1/agents/support-bot/versions/2/diff?against=1');
  });

  it('publishes, rolls back, deletes (If-Match when given) and pins', async () => {
    await run(['agents', 'publish', 'support-bot', 'v3', '--if-match', '"7"']);
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/v1/agents/support-bot/versions/3/publish',
      headers: expect.objectContaining({ 'if-match': '"7"' }),
    });
    await run(['agents', 'rollback', 'support-bot']);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/agents/support-bot/rollback' });
    expect(seen.at(-1)!.headers['if-match']).toBeUndefined();
    await run(['agents', 'delete', 'support-bot']);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/v1/agents/support-bot' });
    const pinned = await run(['agents', 'pin', 'support-bot', 'conv-1', '--version', '2']);
    expect(seen.at(-1)).toMatchObject({
      method: 'PUT',
      url: '/v1/conversations/conv-1/agent',
      body: { agent: 'support-bot', version: 2 },
    });
    expect(pinned.out).toContain('the active one');
    await run(['agents', 'unpin', 'conv-1']);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/v1/conversations/conv-1/agent' });
  });

  it('refuses bad usage with exit code 2 before calling the api', async () => {
    const before = seen.length;
    const cases: [string[], string][] = [
      [['agents', 'create'], 'missing -f <spec.json>'],
      [['agents', 'create', '-f', 'missing.json'], 'cannot read missing.json'],
      [['agents', 'create', '-f', 'broken.json'], 'broken.json is not JSON'],
      [['agents', 'get'], 'missing <agent>'],
      [['agents', 'version', 'support-bot', 'latest'], '<n> must be a version number'],
      [['agents', 'diff', 'support-bot', '1'], 'missing <b>'],
      [['agents', 'pin', 'support-bot'], 'missing <conversation>'],
      [['agents', 'pin', 'support-bot', 'c', '--version', '0'], '--version must be a version number'],
      [['agents', 'frobnicate'], "unknown command 'agents frobnicate'"],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect([argv.join(' '), result.code]).toEqual([argv.join(' '), 2]);
      expect(result.err).toContain(message);
    }
    expect(seen.length).toBe(before);
  });
});
