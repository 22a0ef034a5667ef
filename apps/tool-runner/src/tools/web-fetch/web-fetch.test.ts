import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolDefinition } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, failureOf, startServer, testContext, type TestServer } from './test-support/http-fixture.js';
import { webFetchTool, type WebFetchSettings } from './web-fetch.js';

const PAGE = `<!doctype html><html><head><title>Docs &amp; notes</title><style>body { color: red }</style>
<script>alert("hidden")</script></head><body><h1>Hello</h1><p>First   paragraph with <b>bold</b> text.</p>
<ul><li>one</li><li>two</li></ul><!-- a comment --></body></html>`;

function route(req: IncomingMessage, res: ServerResponse): void {
  switch (req.url) {
    case '/text':
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello, world');
    case '/json':
      return void res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"answer":42}');
    case '/html':
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    case '/latin1':
      return void res
        .writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' })
        .end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    case '/image':
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    case '/untyped':
      return void res.writeHead(200).end('no content type');
    case '/missing':
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
    case '/broken':
      return void res.writeHead(500, { 'content-type': 'text/html' }).end(`<p>${'error '.repeat(1000)}</p>`);
    default:
      res.writeHead(404).end();
  }
}

let site: TestServer;
let outsider: TestServer;

function tool(overrides: Partial<WebFetchSettings> = {}): ToolDefinition {
  return webFetchTool({
    allowedHosts: [site.host],
    maxBytes: 64 * 1024,
    timeoutMs: 5_000,
    maxRedirects: 3,
    ...overrides,
  });
}

/** Runs the tool and checks its result against the published output schema, as the runner does. */
async function fetchWith(definition: ToolDefinition, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const output = await definition.handler(definition.input.parse(input), testContext());
  return definition.output!.parse(output) as Record<string, unknown>;
}

beforeAll(async () => {
  site = await startServer(route);
  outsider = await startServer(route);
});
afterAll(async () => {
  await site.close();
  await outsider.close();
});

describe('web_fetch: content', () => {
  it('returns plain text with its status, type and size', async () => {
    expect(await fetchWith(tool(), { url: `${site.origin}/text` })).toEqual({
      url: `${site.origin}/text`,
      status: 200,
      contentType: 'text/plain',
      text: 'hello, world',
      truncated: false,
      bytes: 12,
    });
  });

  it('returns JSON as text', async () => {
    const result = await fetchWith(tool(), { url: `${site.origin}/json` });
    expect(result).toMatchObject({ contentType: 'application/json', text: '{"answer":42}' });
  });

  it('turns HTML into readable text without scripts, styles or tags', async () => {
    const { text } = await fetchWith(tool(), { url: `${site.origin}/html` });
    expect(text).toBe('Docs & notes\n\nHello\n\nFirst paragraph with bold text.\n\n- one\n- two');
  });

  it('decodes with the declared charset', async () => {
    expect((await fetchWith(tool(), { url: `${site.origin}/latin1` })).text).toBe('café');
  });

  it('cuts the text at maxChars and says so', async () => {
    expect(await fetchWith(tool(), { url: `${site.origin}/text`, maxChars: 5 })).toMatchObject({
      text: 'hello',
      truncated: true,
      bytes: 12,
    });
  });

  it('refuses binary and untyped content, naming the type', async () => {
    expect((await failureOf(fetchWith(tool(), { url: `${site.origin}/image` }))).message).toMatch(/'image\/png'/);
    expect((await failureOf(fetchWith(tool(), { url: `${site.origin}/untyped` }))).message).toMatch(/'\(none\)'/);
  });

  it('returns a non-2xx status with the body, not an error', async () => {
    expect(await fetchWith(tool(), { url: `${site.origin}/missing` })).toMatchObject({
      status: 404,
      text: 'no such page',
      truncated: false,
    });
    const broken = await fetchWith(tool(), { url: `${site.origin}/broken` });
    expect(broken).toMatchObject({ status: 500, truncated: true });
    expect((broken.text as string).length).toBeLessThanOrEqual(2_000);
  });
});

describe('web_fetch: what it refuses', () => {
  it('refuses a host not on the allowlist before any request', async () => {
    const failure = await failureOf(fetchWith(tool(), { url: `${outsider.origin}/text` }));
    expect(failure.status).toBe('invalid');
    expect(failure.message).toContain(`'${outsider.host}' is not on this tool's allowlist`);
    expect(failure.message).toContain(site.host);
    expect(outsider.requests).toEqual([]);
  });

  it('refuses localhost unless listed, even on an allowed port', async () => {
    const failure = await failureOf(fetchWith(tool(), { url: `http://localhost:${site.port}/text` }));
    expect(failure.message).toMatch(/not on this tool's allowlist/);
  });

  it.each([
    ['ftp://127.0.0.1/file.txt', /only http and https/],
    ['file:///etc/passwd', /only http and https/],
    ['http://user:secret@{host}/text', /user name or password/],
    ['http://user@{host}/text', /user name or password/],
    ['not a url', /not an absolute URL/],
  ])('refuses %s', async (template, message) => {
    const before = site.requests.length;
    const failure = await failureOf(fetchWith(tool(), { url: template.replace('{host}', site.host) }));
    expect(failure).toMatchObject({ status: 'invalid', message: expect.stringMatching(message) });
    expect(site.requests.length).toBe(before);
  });

  it('reports a refused connection without internals', async () => {
    const port = await closedPort();
    const failure = await failureOf(
      fetchWith(tool({ allowedHosts: [`127.0.0.1:${port}`] }), { url: `http://127.0.0.1:${port}/x` }),
    );
    expect(failure.message).toBe(
      `could not fetch http://127.0.0.1:${port}/x: 127.0.0.1:${port} refused the connection`,
    );
  });
});
