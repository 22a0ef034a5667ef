import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolDefinition } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf, startServer, testContext, type TestServer } from './test-support/http-fixture.js';
import { webFetchTool, type WebFetchSettings } from './web-fetch.js';

let site: TestServer;
let other: TestServer;
let outsider: TestServer;
/** State of the last /endless response: whether the server ever finished it, and when the client hung up. */
let endless: { finished: boolean; closed: Promise<void> } | undefined;

function redirect(res: ServerResponse, location: string, status = 302): void {
  res.writeHead(status, { location, 'content-type': 'text/plain' }).end('moved');
}

/** Writes 'a' for as long as the client keeps reading (up to 64 MiB, so a broken client cannot hang the test). */
function streamForever(res: ServerResponse): void {
  let finished = false;
  const closed = new Promise<void>((resolve) => res.on('close', resolve));
  endless = {
    get finished() {
      return finished;
    },
    closed,
  };
  res.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(16 * 1024, 'a');
  let sent = 0;
  const pump = (): void => {
    while (sent < 64 * 1024 * 1024 && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    finished = !res.destroyed;
    res.end();
  };
  pump();
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '';
  const chain = /^\/chain\/(\d+)$/.exec(url);
  if (chain) {
    const left = Number(chain[1]);
    return left === 0
      ? void res.writeHead(200, { 'content-type': 'text/plain' }).end('end of chain')
      : redirect(res, `/chain/${left - 1}`, 307);
  }
  switch (url) {
    case '/text':
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`text from ${req.headers.host}`);
    case '/to-other':
      return redirect(res, `${other.origin}/text`, 301);
    case '/to-outsider':
      return redirect(res, `${outsider.origin}/text`);
    case '/to-localhost':
      return redirect(res, `http://localhost:${site.port}/text`);
    case '/to-ftp':
      return redirect(res, 'ftp://127.0.0.1/file');
    case '/to-credentials':
      return redirect(res, `http://user:pw@${other.host}/text`);
    case '/endless':
      return streamForever(res);
    case '/slow':
      return; // never answers
    case '/slow-body':
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.write('partial'); // and never ends
    default:
      res.writeHead(404).end();
  }
}

function tool(overrides: Partial<WebFetchSettings> = {}): ToolDefinition {
  return webFetchTool({
    allowedHosts: [site.host, other.host],
    maxBytes: 64 * 1024,
    timeoutMs: 5_000,
    maxRedirects: 3,
    ...overrides,
  });
}

async function fetchWith(
  definition: ToolDefinition,
  url: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  return (await definition.handler({ url }, testContext(signal))) as Record<string, unknown>;
}

beforeAll(async () => {
  [site, other, outsider] = await Promise.all([startServer(route), startServer(route), startServer(route)]);
});
afterAll(async () => {
  await Promise.all([site.close(), other.close(), outsider.close()]);
});

describe('web_fetch: redirects', () => {
  it('follows a redirect to another allowed host and reports the final URL', async () => {
    expect(await fetchWith(tool(), `${site.origin}/to-other`)).toMatchObject({
      url: `${other.origin}/text`,
      status: 200,
      text: `text from ${other.host}`,
    });
  });

  it('refuses a redirect to a host not on the allowlist without requesting it or naming it', async () => {
    const failure = await failureOf(fetchWith(tool(), `${site.origin}/to-outsider`));
    expect(failure).toMatchObject({
      status: 'failed',
      message: `${site.origin}/to-outsider redirected to a host that is not on the allowlist; the redirect was not followed`,
    });
    expect(outsider.requests).toEqual([]);
  });

  it.each([
    ['/to-localhost', /a host that is not on the allowlist/],
    ['/to-ftp', /a scheme other than http or https/],
    ['/to-credentials', /a user name or password/],
  ])('refuses the redirect of %s', async (path, message) => {
    expect((await failureOf(fetchWith(tool(), `${site.origin}${path}`))).message).toMatch(message);
  });

  it('follows up to WEB_FETCH_MAX_REDIRECTS hops and refuses one more', async () => {
    expect(await fetchWith(tool(), `${site.origin}/chain/3`)).toMatchObject({
      url: `${site.origin}/chain/0`,
      text: 'end of chain',
    });
    const failure = await failureOf(fetchWith(tool(), `${site.origin}/chain/4`));
    expect(failure.message).toBe(`${site.origin}/chain/4 redirected more than 3 times; not following further`);
    expect(site.requests.filter((path) => path === '/chain/0')).toHaveLength(1); // only the successful run got there
  });

  it('follows no redirect when the limit is 0', async () => {
    expect((await failureOf(fetchWith(tool({ maxRedirects: 0 }), `${site.origin}/to-other`))).message).toMatch(
      /more than 0 times/,
    );
  });
});

describe('web_fetch: size and time limits', () => {
  it('reads no more than WEB_FETCH_MAX_BYTES of an endless body and hangs up', async () => {
    const result = await fetchWith(tool({ maxBytes: 1_000 }), `${site.origin}/endless`);
    expect(result).toMatchObject({ status: 200, bytes: 1_000, truncated: true, text: 'a'.repeat(1_000) });
    await endless!.closed; // the client cancelled the body: the server saw the connection close
    expect(endless!.finished).toBe(false);
  });

  it('fails with a timeout when the server does not answer in time', async () => {
    const failure = await failureOf(fetchWith(tool({ timeoutMs: 200 }), `${site.origin}/slow`));
    expect(failure).toMatchObject({ status: 'failed', message: `fetching ${site.origin}/slow timed out after 200 ms` });
  });

  it('fails with a timeout when the body stalls', async () => {
    expect((await failureOf(fetchWith(tool({ timeoutMs: 200 }), `${site.origin}/slow-body`))).message).toMatch(
      /timed out after 200 ms/,
    );
  });

  it('stops when the call is cancelled (context.signal)', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('deadline exceeded')), 50);
    const failure = await failureOf(fetchWith(tool(), `${site.origin}/slow`, controller.signal));
    expect(failure.message).toMatch(/was stopped: the call was cancelled or reached its deadline/);
  });
});
