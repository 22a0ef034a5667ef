import { Writable } from 'node:stream';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpBridge } from './bridge.js';
import { McpConnection } from './mcp-connection.js';
import { mcpServerSchema } from './server-config.js';
import { callTool, everythingServer, startBridge, testLogger as logger, waitFor } from './test-support/everything.js';

let nats: NatsServerHandle;
let nc: NatsConnection;
let bridge: McpBridge;
let client: ToolClient;

const stateOf = (): string | undefined => bridge.connection('everything')?.state;
const pidOf = (): number | undefined => bridge.connection('everything')?.pid;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'mcp-bridge-reconnect', logger });
  client = new ToolClient({ nc, logger });
  // The first retry comes ~1.5 s after a crash: long enough to observe the server as down.
  bridge = await startBridge(nc, [everythingServer()], { reconnectMinMs: 1_500, reconnectMaxMs: 3_000 });
});

afterAll(async () => {
  await bridge?.stop(100);
  await nc?.close();
  await nats?.stop();
});

describe('a crashed stdio MCP server', () => {
  it('fails in-flight calls clearly, withdraws its tools, and serves again after reconnecting', async () => {
    const firstPid = pidOf();
    expect(firstPid).toBeGreaterThan(0);
    const inFlight = callTool(client, 'everything_trigger-long-running-operation', { duration: 10, steps: 10 }, 10_000);
    await new Promise((r) => setTimeout(r, 300));

    process.kill(firstPid!, 'SIGKILL');
    const failed = await inFlight;
    expect(failed).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/MCP server 'everything' (stopped during the call|is not running)/) },
    });

    // While it is down, nobody serves its tools: callers hear so at once instead of waiting.
    await waitFor(() => stateOf() !== 'up', 5_000, 'the bridge to notice the crash');
    await bridge.settled();
    expect(bridge.status()[0]).toMatchObject({ state: 'down', tools: [] });
    const whileDown = await callTool(client, 'everything_echo', { message: 'anyone?' });
    expect(whileDown).toMatchObject({ status: 'failed', error: { code: 'RUNNER_UNAVAILABLE' } });

    await waitFor(() => stateOf() === 'up', 15_000, 'the bridge to reconnect');
    await bridge.settled();
    expect(pidOf()).not.toBe(firstPid);
    expect(await callTool(client, 'everything_echo', { message: 'back' })).toMatchObject({
      status: 'success',
      output: 'Echo: back',
    });

    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.get('everything_echo')).toMatchObject({ runner: 'mcp-bridge', instances: [expect.any(String)] });
  });

  it('waits before reconnecting', async () => {
    const connection = bridge.connection('everything')!;
    const before = Date.now();
    process.kill(pidOf()!, 'SIGKILL');
    await waitFor(() => connection.state !== 'up', 5_000, 'the crash to be noticed');
    await waitFor(() => connection.state === 'up', 15_000, 'the reconnect');
    // The first retry waits about reconnectMinMs (1.5 s, with ±20% jitter).
    expect(Date.now() - before).toBeGreaterThanOrEqual(1_200);
  });
});

describe('a server that keeps failing to start', () => {
  it('is retried with doubling pauses up to the maximum, and its stderr is logged', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const events: string[] = [];
    const failing = mcpServerSchema().parse({
      name: 'failing',
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', "console.error('boom: API key missing'); process.exit(3)"],
    });
    const connection = new McpConnection(failing, {
      logger: createLogger({ service: 'test', level: 'info', destination }),
      listener: { up: () => events.push('up'), down: () => events.push('down') },
      connectTimeoutMs: 5_000,
      reconnectMinMs: 100,
      reconnectMaxMs: 400,
      pingIntervalMs: 0,
    });
    expect(await connection.start()).toBe(false);
    const delays = (): number[] =>
      lines.filter((l) => l['msg'] === 'reconnecting to MCP server after a pause').map((l) => l['delayMs'] as number);
    await waitFor(() => delays().length >= 4, 10_000, 'four reconnect attempts');
    await connection.close();

    const [d1, d2, d3, d4] = delays();
    expect(d1).toBeGreaterThanOrEqual(80);
    expect(d1).toBeLessThanOrEqual(120);
    expect(d2).toBeGreaterThanOrEqual(160);
    expect(d2).toBeLessThanOrEqual(240);
    expect(d3).toBeGreaterThanOrEqual(320);
    expect(d4).toBeLessThanOrEqual(400);
    expect(events).toEqual([]);
    expect(connection.state).toBe('closed');
    const failure = lines.find((l) => l['msg'] === 'could not connect to MCP server');
    expect(failure?.['stderr']).toEqual(expect.arrayContaining([expect.stringContaining('boom: API key missing')]));
  });
});
