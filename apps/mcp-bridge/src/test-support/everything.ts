import path from 'node:path';
import { createLogger, type NatsConnection } from '@platform/service-kit';
import { workspaceRoot } from '@platform/testing';
import type { ToolCallResponse } from '@platform/contracts';
import type { ToolClient } from '@platform/tool-sdk';
import { McpBridge, type BridgeOptions } from '../bridge.js';
import { mcpServerSchema, type McpServerConfig } from '../server-config.js';

/** The official MCP reference server, run offline over stdio. */
export const EVERYTHING_ENTRY = path.join(
  workspaceRoot(),
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

export const testLogger = createLogger({ service: 'mcp-bridge-test', level: 'silent' });

/** A stdio entry for server-everything with the config defaults applied. */
export function everythingServer(overrides: Record<string, unknown> = {}): McpServerConfig {
  return mcpServerSchema().parse({
    name: 'everything',
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING_ENTRY, 'stdio'],
    ...overrides,
  });
}

/** A bridge with fast reconnects, started. */
export async function startBridge(
  nc: NatsConnection,
  servers: McpServerConfig[],
  overrides: Partial<BridgeOptions> = {},
): Promise<McpBridge> {
  const bridge = new McpBridge({
    nc,
    logger: testLogger,
    servers,
    runnerName: 'mcp-bridge',
    connectTimeoutMs: 15_000,
    reconnectMinMs: 100,
    reconnectMaxMs: 1_000,
    pingIntervalMs: 0,
    ...overrides,
  });
  await bridge.start();
  return bridge;
}

/** Calls a tool the way the orchestrator does. */
export function callTool(
  client: ToolClient,
  toolName: string,
  args: Record<string, unknown>,
  deadlineMs = 5_000,
): Promise<ToolCallResponse> {
  return client.call({
    toolName,
    arguments: args,
    callId: `call-${Math.random().toString(16).slice(2)}`,
    tenantId: 'acme',
    conversationId: 'conv-1',
    deadlineAt: Date.now() + deadlineMs,
  });
}

/** Polls until `check` is true. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
