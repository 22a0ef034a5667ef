import type { ResolvedAddress } from '@platform/egress';
import type { ToolDefinition } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf, startServer, testContext, type TestServer } from './test-support/http-fixture.js';
import { webFetchTool } from './web-fetch.js';

/**
 * web_fetch through the egress guard: a host that a wildcard entry admits must resolve to public
 * addresses (internal DNS or a rebind cannot turn `*.example.test` into a way inside), while an
 * entry the operator listed exactly is reached as listed. The resolver is the test's, so names
 * under example.test can point at the loopback server.
 */
let inside: TestServer;
const dns = new Map<string, ResolvedAddress[]>();

beforeAll(async () => {
  inside = await startServer((req, res) => {
    if (req.url === '/hop')
      return void res.writeHead(302, { location: `http://wiki.example.test:${inside.port}/secret` }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('internal page');
  });
  dns.set('wiki.example.test', [{ address: '127.0.0.1', family: 4 }]);
  dns.set('docs.internal', [{ address: '127.0.0.1', family: 4 }]);
});
afterAll(async () => {
  await inside.close();
});

function tool(allowedHosts: string[], egressAllow?: { hosts: string[]; cidrs: string[] }): ToolDefinition {
  return webFetchTool({
    allowedHosts,
    maxBytes: 64 * 1024,
    timeoutMs: 5_000,
    maxRedirects: 3,
    ...(egressAllow ? { egressAllow } : {}),
    resolve: async (hostname) =>
      dns.get(hostname) ?? Promise.reject(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })),
  });
}

const run = (definition: ToolDefinition, url: string) =>
  definition.handler(definition.input.parse({ url }), testContext());

describe('web_fetch: egress', () => {
  it('does not reach a wildcard-matched host that resolves to loopback, and says why without the address', async () => {
    const failure = await failureOf(
      run(tool([`*.example.test:${inside.port}`]), `http://wiki.example.test:${inside.port}/secret`),
    );
    expect(failure.message).toContain('is not public');
    expect(failure.message).not.toContain('127.0.0.1');
    expect(inside.requests).toEqual([]);
  });

  it('does not follow a redirect from an exact entry to a wildcard-matched host that resolves inside', async () => {
    const failure = await failureOf(run(tool([inside.host, `*.example.test:${inside.port}`]), `${inside.origin}/hop`));
    expect(failure.message).toContain('is not public');
    expect(inside.requests).toEqual(['/hop']);
    inside.requests.length = 0;
  });

  it('reaches entries listed exactly, and wildcard hosts the operator allows with EGRESS_ALLOW_*', async () => {
    expect(await run(tool([`docs.internal:${inside.port}`]), `http://docs.internal:${inside.port}/page`)).toMatchObject(
      { status: 200, text: 'internal page' },
    );
    expect(
      await run(
        tool([`*.example.test:${inside.port}`], { hosts: ['wiki.example.test'], cidrs: [] }),
        `http://wiki.example.test:${inside.port}/a`,
      ),
    ).toMatchObject({ status: 200 });
    expect(
      await run(
        tool([`*.example.test:${inside.port}`], { hosts: [], cidrs: ['127.0.0.0/8'] }),
        `http://wiki.example.test:${inside.port}/b`,
      ),
    ).toMatchObject({ status: 200 });
    expect(inside.requests).toEqual(['/page', '/a', '/b']);
  });
});
