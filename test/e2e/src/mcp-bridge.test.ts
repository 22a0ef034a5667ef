import { startServiceProcess, workspaceRoot, type ServiceProcess } from '@platform/testing';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, type SuitePlatform } from './support.js';

let platform: SuitePlatform;
let bridge: ServiceProcess;

beforeAll(async () => {
  platform = await bootPlatform('mcp');
  const everything = path.join(workspaceRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  bridge = await startServiceProcess({
    app: 'mcp-bridge',
    env: {
      NATS_URL: platform.natsUrl,
      MCP_SERVERS: JSON.stringify([
        { name: 'everything', transport: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
      ]),
    },
  });
});
afterAll(async () => {
  await bridge?.stop();
  await platform?.stop();
});

describe('an MCP server behind the bridge', () => {
  it('is in the catalog and serves a scripted conversation through the platform', async () => {
    let tools: string[] = [];
    for (let i = 0; i < 50 && !tools.includes('everything_echo'); i++) {
      const listed = await api<{ tools: Array<{ name: string }> }>(platform, 'GET', '/v1/tools', 'acme');
      tools = listed.body.tools.map((t) => t.name);
      if (!tools.includes('everything_echo')) await new Promise((r) => setTimeout(r, 200));
    }
    expect(tools).toContain('everything_echo');

    const turn = await api<{ response: string; toolCalls: Array<{ name: string; success: boolean }> }>(
      platform,
      'POST',
      '/v1/conversations/mcp-1/messages',
      'acme',
      {
        content: '[scenario:mcp-echo] Ask the MCP server to echo something.',
      },
    );
    expect(turn.status).toBe(200);
    expect(turn.body.toolCalls).toEqual([expect.objectContaining({ name: 'everything_echo', success: true })]);
    expect(turn.body.response).toContain('Echo: hello from the platform');
  });
});
