import { connectNats, type NatsConnection } from '@platform/service-kit';
import { freePort, ManagedProcess, startNatsServer, waitForPort, type NatsServerHandle } from '@platform/testing';
import { ToolClient } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpBridge } from './bridge.js';
import { mcpServerSchema } from './server-config.js';
import { callTool, EVERYTHING_ENTRY, startBridge, testLogger as logger, waitFor } from './test-support/everything.js';

let nats: NatsServerHandle;
let nc: NatsConnection;
let bridge: McpBridge;
let client: ToolClient;
let port: number;
let httpServer: ManagedProcess | undefined;

/** server-everything in its streamable HTTP mode, on a fixed port so a restart comes back at the same URL. */
async function startHttpServer(): Promise<void> {
  const proc = ManagedProcess.start('server-everything-http', process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
  });
  httpServer = proc;
  await waitForPort(port, 15_000, () => proc.isAlive);
}

beforeAll(async () => {
  port = await freePort();
  await startHttpServer();
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'mcp-bridge-http', logger });
  client = new ToolClient({ nc, logger });
  const remote = mcpServerSchema({ TEST_TOKEN: 'abc' }).parse({
    name: 'remote',
    transport: 'http',
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { 'x-api-key': '${TEST_TOKEN}' },
    include: ['echo'],
  });
  // Pings are how the bridge notices that an HTTP server went away: nothing "exits".
  bridge = await startBridge(nc, [remote], { pingIntervalMs: 200, reconnectMinMs: 200, reconnectMaxMs: 500 });
});

afterAll(async () => {
  await bridge?.stop(100);
  await httpServer?.stop();
  await nc?.close();
  await nats?.stop();
});

describe('a streamable HTTP MCP server', () => {
  it('serves its tools like a stdio one', async () => {
    expect(bridge.status()).toEqual([{ name: 'remote', transport: 'http', state: 'up', tools: ['remote_echo'] }]);
    expect(await callTool(client, 'remote_echo', { message: 'over http' })).toMatchObject({
      status: 'success',
      output: 'Echo: over http',
    });
  });

  it('is noticed as down by a failed ping, and reconnected when it is back', async () => {
    await httpServer?.kill();
    await waitFor(() => bridge.status()[0]?.state !== 'up', 5_000, 'the failed ping');
    await bridge.settled();
    expect(await callTool(client, 'remote_echo', { message: 'anyone?' })).toMatchObject({
      status: 'failed',
      error: { code: 'RUNNER_UNAVAILABLE' },
    });

    await startHttpServer();
    await waitFor(() => bridge.status()[0]?.state === 'up', 10_000, 'the reconnect');
    await bridge.settled();
    expect(await callTool(client, 'remote_echo', { message: 'back' })).toMatchObject({
      status: 'success',
      output: 'Echo: back',
    });
  });
});
