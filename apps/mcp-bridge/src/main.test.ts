import { spawnSync } from 'node:child_process';
import { connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, startServiceProcess, workspaceRoot, type NatsServerHandle } from '@platform/testing';
import { ToolClient } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, EVERYTHING_ENTRY, testLogger as logger, waitFor } from './test-support/everything.js';

let nats: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'mcp-bridge-main', logger });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the mcp-bridge process', () => {
  it('announces its servers and tools, serves them, and on SIGTERM drains and ends its MCP children', async () => {
    const lines: string[] = [];
    const servers = [
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING_ENTRY, 'stdio'],
        include: ['echo', 'get-sum'],
      },
    ];
    const bridge = await startServiceProcess({
      app: 'mcp-bridge',
      mode: 'source',
      env: { NATS_URL: nats.url, MCP_SERVERS: JSON.stringify(servers), LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '1000' },
      onLine: (line) => lines.push(line),
    });
    expect(bridge.ready).toMatchObject({
      servers: [{ name: 'everything', transport: 'stdio', state: 'up' }],
      tools: ['everything_echo', 'everything_get-sum'],
    });

    const connected = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'connected to MCP server');
    const childPid = connected?.['pid'] as number;
    expect(isAlive(childPid)).toBe(true);

    const client = new ToolClient({ nc, logger });
    expect(await callTool(client, 'everything_echo', { message: 'from a process' })).toMatchObject({
      status: 'success',
      output: 'Echo: from a process',
    });

    await bridge.stop(10_000);
    expect(bridge.process.isAlive).toBe(false);
    await waitFor(() => !isAlive(childPid), 5_000, 'the MCP child to exit');
    expect(lines.some((l) => l.includes('"shutdown complete"'))).toBe(true);
  });

  it('refuses to boot with a config error naming the field', () => {
    const result = spawnSync(
      process.execPath,
      ['--conditions=@platform/source', '--import', 'tsx', 'apps/mcp-bridge/src/main.ts'],
      {
        cwd: workspaceRoot(),
        env: {
          ...process.env,
          NATS_URL: nats.url,
          MCP_SERVERS: JSON.stringify([{ name: 'remote', transport: 'http', url: 'not a url' }]),
        },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('MCP_SERVERS.0.url');
  });
});
