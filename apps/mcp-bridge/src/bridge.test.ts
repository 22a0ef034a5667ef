import svcm from '@nats-io/services';
import { connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpBridge } from './bridge.js';
import { mcpServerSchema } from './server-config.js';
import { callTool, everythingServer, startBridge, testLogger as logger } from './test-support/everything.js';

let nats: NatsServerHandle;
let nc: NatsConnection;
let bridge: McpBridge;
let client: ToolClient;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'mcp-bridge-test', logger });
  client = new ToolClient({ nc, logger });
  const limited = everythingServer({
    name: 'limited',
    toolPrefix: 'lim_',
    include: ['echo', 'get-sum'],
    exclude: ['get-sum'],
    sideEffect: 'none',
  });
  // A server that cannot start must not keep the others from serving.
  const broken = mcpServerSchema().parse({
    name: 'broken',
    transport: 'stdio',
    command: process.execPath,
    args: ['-e', 'process.exit(3)'],
  });
  bridge = await startBridge(nc, [everythingServer(), limited, broken], {
    reconnectMinMs: 60_000,
    reconnectMaxMs: 60_000,
  });
});

afterAll(async () => {
  await bridge?.stop(100);
  await nc?.close();
  await nats?.stop();
});

describe('discovery', () => {
  it('reports each server and the tools it serves', () => {
    const status = bridge.status();
    expect(status.map(({ name, state }) => [name, state])).toEqual([
      ['everything', 'up'],
      ['limited', 'up'],
      ['broken', 'down'],
    ]);
    expect(status[0]?.tools).toEqual(
      expect.arrayContaining(['everything_echo', 'everything_get-sum', 'everything_trigger-long-running-operation']),
    );
    // simulate-research-query requires MCP tasks: not served.
    expect(status[0]?.tools).not.toContain('everything_simulate-research-query');
    expect(status[1]?.tools).toEqual(['lim_echo']);
  });

  it('is visible to the official NATS services client with the MCP JSON Schema', async () => {
    const infos = [];
    for await (const info of await new svcm.Svcm(nc).client({ strategy: 'timer', maxWait: 300 }).info('mcp-bridge'))
      infos.push(info);
    const endpoint = infos.flatMap((i) => i.endpoints).find((e) => e.name === 'everything_echo');
    expect(endpoint).toMatchObject({ subject: 'platform.tool.everything_echo', queue_group: 'platform-tool-runners' });
    expect(JSON.parse(endpoint!.metadata!['platform.input_schema']!)).toEqual({
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
    });
  });

  it('lands in the ToolCatalog with description, prefix, and per-server settings', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.get('everything_echo')).toMatchObject({
      runner: 'mcp-bridge',
      description: 'Echoes back the input string',
      sideEffect: 'external',
      timeoutMs: 30_000,
      version: '2.0.0',
    });
    expect(catalog.get('everything_get-sum')?.inputSchema).toMatchObject({ required: ['a', 'b'] });
    expect(catalog.get('lim_echo')).toMatchObject({ sideEffect: 'none' });
    expect(catalog.get('lim_get-sum')).toBeUndefined();
  });
});

describe('calls', () => {
  it('echoes through the MCP server', async () => {
    expect(await callTool(client, 'everything_echo', { message: 'hello' })).toMatchObject({
      status: 'success',
      output: 'Echo: hello',
    });
    expect(await callTool(client, 'lim_echo', { message: 'again' })).toMatchObject({
      status: 'success',
      output: 'Echo: again',
    });
  });

  it('answers schema violations with invalid and lists the problems, without calling the server', async () => {
    const response = await callTool(client, 'everything_get-sum', { a: 'two' });
    expect(response).toMatchObject({ status: 'invalid', error: { code: 'INVALID_ARGUMENTS' } });
    if (response.status === 'success') throw new Error('unreachable');
    expect(response.error.issues?.map((i) => i.path).sort()).toEqual(['a', 'b']);
  });

  it('turns an MCP tool error (isError) into failed with the server text', async () => {
    const response = await callTool(client, 'everything_get-resource-reference', { resourceId: 0 });
    expect(response).toMatchObject({
      status: 'failed',
      error: { code: 'HANDLER_FAILED', message: expect.stringContaining('Invalid resourceId: 0') },
    });
  });

  it('returns structuredContent as the output object', async () => {
    const response = await callTool(client, 'everything_get-structured-content', { location: 'Chicago' });
    expect(response).toMatchObject({
      status: 'success',
      output: { temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) },
    });
  });

  it('renders an image as a placeholder, not base64', async () => {
    const response = await callTool(client, 'everything_get-tiny-image', {});
    if (response.status !== 'success') throw new Error(JSON.stringify(response));
    expect(response.output).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(String(response.output).length).toBeLessThan(500);
  });

  it('honours the caller deadline on a long-running tool, and the server keeps serving', async () => {
    // The operation outlasts the test's own timeout: a call that waited for it fails the test.
    const response = await callTool(
      client,
      'everything_trigger-long-running-operation',
      { duration: 120, steps: 10 },
      500,
    );
    expect(response.status).toBe('timeout');
    expect(await callTool(client, 'everything_get-sum', { a: 2, b: 3 })).toMatchObject({
      status: 'success',
      output: 'The sum of 2 and 3 is 5.',
    });
  });
});
