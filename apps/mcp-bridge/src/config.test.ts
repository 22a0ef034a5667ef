import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { configuredServers, loadBridgeConfig } from './config.js';

const everything = { name: 'everything', transport: 'stdio', command: 'node', args: ['server.js', 'stdio'] };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadBridgeConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.variable}: ${p.message}`);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadBridgeConfig', () => {
  it('applies the defaults of a stdio server', () => {
    const config = loadBridgeConfig({ MCP_SERVERS: JSON.stringify([everything]) });
    expect(config.RUNNER_NAME).toBe('mcp-bridge');
    expect(configuredServers(config)).toEqual([
      { ...everything, env: {}, exclude: [], timeoutMs: 30_000, sideEffect: 'external', requiresApproval: false },
    ]);
  });

  it('reads the servers from MCP_SERVERS_FILE and expands ${VAR} in headers', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'mcp-bridge-')), 'servers.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          name: 'remote',
          transport: 'http',
          url: 'https://mcp.example/mcp',
          headers: { authorization: 'Bearer ${TOKEN}' },
        },
      ]),
    );
    const [remote] = configuredServers(loadBridgeConfig({ MCP_SERVERS_FILE: file, TOKEN: 's3cret' }));
    expect(remote).toMatchObject({ transport: 'http', headers: { authorization: 'Bearer s3cret' } });
  });

  it.each([
    [{}, /^MCP_SERVERS: required/],
    [{ MCP_SERVERS: '[{"name": "x"' }, /^MCP_SERVERS: is not valid JSON/],
    [{ MCP_SERVERS: '[]' }, /^MCP_SERVERS: configure at least one/],
    [{ MCP_SERVERS: JSON.stringify([{ ...everything, command: '' }]) }, /^MCP_SERVERS\.0\.command: /],
    [
      { MCP_SERVERS: JSON.stringify([{ name: 'r', transport: 'http', url: 'ftp://x' }]) },
      /^MCP_SERVERS\.0\.url: must be an http\(s\) URL/,
    ],
    [{ MCP_SERVERS: JSON.stringify([{ ...everything, transport: 'sse' }]) }, /^MCP_SERVERS\.0\.transport: /],
    [{ MCP_SERVERS: JSON.stringify([{ ...everything, exlude: ['echo'] }]) }, /^MCP_SERVERS\.0: .*exlude/],
    [{ MCP_SERVERS: JSON.stringify([{ ...everything, name: 'has space' }]) }, /^MCP_SERVERS\.0\.name: /],
    [{ MCP_SERVERS: JSON.stringify([{ ...everything, toolPrefix: 'a.b' }]) }, /^MCP_SERVERS\.0\.toolPrefix: /],
    [{ MCP_SERVERS: JSON.stringify([{ ...everything, sideEffect: 'sometimes' }]) }, /^MCP_SERVERS\.0\.sideEffect: /],
    [
      { MCP_SERVERS: JSON.stringify([everything, everything]) },
      /^MCP_SERVERS\.1\.name: duplicate server name 'everything'/,
    ],
    [
      { MCP_SERVERS: JSON.stringify([{ ...everything, env: { KEY: '${UNSET_VARIABLE}' } }]) },
      /^MCP_SERVERS\.0\.env\.KEY: refers to \$\{UNSET_VARIABLE\}/,
    ],
    [
      { MCP_SERVERS_FILE: '/nonexistent/servers.json' },
      /^MCP_SERVERS_FILE: cannot read '\/nonexistent\/servers.json': ENOENT/,
    ],
    [{ MCP_SERVERS: JSON.stringify([everything]), MCP_SERVERS_FILE: '/x.json' }, /^MCP_SERVERS_FILE: /],
    [{ MCP_SERVERS: JSON.stringify([everything]), MCP_RECONNECT_MIN_MS: 'soon' }, /^MCP_RECONNECT_MIN_MS: /],
  ])('names the field at fault (%j)', (env, expected) => {
    expect(problemsOf(env as NodeJS.ProcessEnv).some((p) => expected.test(p))).toBe(true);
  });
});
