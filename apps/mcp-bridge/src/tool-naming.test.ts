import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { planTools, platformToolName, unmatchedIncludes } from './tool-naming.js';

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, inputSchema: { type: 'object' }, ...extra });
const tools = ['echo', 'get-sum', 'get-env', 'get-tiny-image'].map((n) => tool(n));
const none = new Map<string, string>();

describe('platformToolName', () => {
  it('prefixes, replaces characters outside [A-Za-z0-9_-] with _ and cuts at 64', () => {
    expect(platformToolName('everything_', 'get-sum')).toBe('everything_get-sum');
    expect(platformToolName('fs_', 'read.file/v2 (beta)')).toBe('fs_read_file_v2__beta_');
    expect(platformToolName('p_', 'ü'.repeat(100))).toBe(`p_${'_'.repeat(62)}`);
  });
});

describe('planTools', () => {
  it('serves every tool under the default prefix <name>_', () => {
    const plan = planTools({ name: 'everything', exclude: [] }, tools, none);
    expect(plan.tools.map((t) => t.platformName)).toEqual([
      'everything_echo',
      'everything_get-sum',
      'everything_get-env',
      'everything_get-tiny-image',
    ]);
    expect(plan.skipped).toEqual([]);
  });

  it('applies include, then exclude, on the MCP names', () => {
    const plan = planTools(
      { name: 'e', toolPrefix: '', include: ['echo', 'get-env', 'missing'], exclude: ['get-env'] },
      tools,
      none,
    );
    expect(plan.tools.map((t) => [t.mcp.name, t.platformName])).toEqual([['echo', 'echo']]);
    expect(unmatchedIncludes({ include: ['echo', 'missing'] }, tools)).toEqual(['missing']);
  });

  it('refuses a name another server already serves', () => {
    const plan = planTools(
      { name: 'b', toolPrefix: 'x_', exclude: [] },
      [tool('echo'), tool('other')],
      new Map([['x_echo', 'a']]),
    );
    expect(plan.tools.map((t) => t.platformName)).toEqual(['x_other']);
    expect(plan.skipped).toEqual([
      { mcpName: 'echo', reason: expect.stringContaining("already served for MCP server 'a'") },
    ]);
  });

  it('refuses a second tool of the same server that sanitizes to the same name', () => {
    const plan = planTools({ name: 's', exclude: [] }, [tool('read.file'), tool('read/file'), tool('read_file')], none);
    expect(plan.tools.map((t) => t.mcp.name)).toEqual(['read.file']);
    expect(plan.skipped.map((s) => s.mcpName)).toEqual(['read/file', 'read_file']);
    expect(plan.skipped[0]?.reason).toContain("collides with MCP tool 'read.file'");
  });

  it('refuses names that only collide after truncation', () => {
    const long = 'a'.repeat(70);
    const plan = planTools({ name: 's', exclude: [] }, [tool(`${long}1`), tool(`${long}2`)], none);
    expect(plan.tools).toHaveLength(1);
    expect(plan.tools[0]?.platformName).toHaveLength(64);
    expect(plan.skipped).toHaveLength(1);
  });

  it('skips tools that require MCP tasks', () => {
    const plan = planTools(
      { name: 's', exclude: [] },
      [
        tool('research', { execution: { taskSupport: 'required' } }),
        tool('ok', { execution: { taskSupport: 'optional' } }),
      ],
      none,
    );
    expect(plan.tools.map((t) => t.mcp.name)).toEqual(['ok']);
    expect(plan.skipped[0]?.reason).toMatch(/task-based execution/);
  });
});
