import path from 'node:path';
import { connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpBridge } from './bridge.js';
import { mcpServerSchema } from './server-config.js';
import { callTool, startBridge, testLogger as logger, waitFor } from './test-support/everything.js';

const PAGED_SERVER = path.join(import.meta.dirname, 'test-support/paged-server.mjs');

let nats: NatsServerHandle;
let nc: NatsConnection;
let bridge: McpBridge;
let client: ToolClient;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'mcp-bridge-paged', logger });
  client = new ToolClient({ nc, logger });
  bridge = await startBridge(nc, [
    mcpServerSchema().parse({ name: 'paged', transport: 'stdio', command: process.execPath, args: [PAGED_SERVER] }),
  ]);
});

afterAll(async () => {
  await bridge?.stop(100);
  await nc?.close();
  await nats?.stop();
});

const served = (): string[] => bridge.status()[0]?.tools ?? [];

describe('a paginating MCP server with unusual tools', () => {
  it('follows list cursors, sanitizes names and refuses the colliding one', () => {
    expect(served()).toEqual(['paged_first', 'paged_dotted_name', 'paged_exotic', 'paged_add-tool']);
  });

  it('publishes the server version as the tool version', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.get('paged_first')?.version).toBe('0.3.1');
  });

  it('accepts any object for a schema zod cannot convert, and leaves validation to the server', async () => {
    expect(await callTool(client, 'paged_exotic', { kind: 'y' })).toMatchObject({
      status: 'success',
      output: 'kind y',
    });
    expect(await callTool(client, 'paged_exotic', {})).toMatchObject({
      status: 'failed',
      error: { message: 'exotic needs a kind' },
    });
  });

  it('republishes its tools when the server announces a change', async () => {
    expect(await callTool(client, 'paged_add-tool', {})).toMatchObject({ status: 'success', output: 'added' });
    await waitFor(() => served().includes('paged_late'), 5_000, 'the new tool');
    await bridge.settled();
    expect(await callTool(client, 'paged_late', {})).toMatchObject({ status: 'success', output: 'late ran' });
    expect(await callTool(client, 'paged_first', {})).toMatchObject({ status: 'success', output: 'first ran' });
  });
});
