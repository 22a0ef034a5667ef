import type { CatalogEntry, ToolLookup } from '@platform/tool-sdk';
import { describe, expect, it } from 'vitest';
import { judge, type GateQuestion, type ToolCaller } from './gate-rules.js';

function entry(overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    name: 't',
    kind: 'tool',
    description: 'd',
    inputSchema: { type: 'object' },
    timeoutMs: 1_000,
    requiresApproval: false,
    sideEffect: 'none',
    version: '1.0.0',
    schemaHash: 'h',
    runner: 'r',
    instances: ['i'],
    dedupe: false,
    ...overrides,
  };
}
const online = (e: CatalogEntry): ToolLookup => ({ state: 'online', entry: e });
const ask = (caller: ToolCaller, allowed = true): GateQuestion => ({
  caller,
  tool: 't',
  allowsTool: () => allowed,
  allowlist: "the agent profile 'p'",
});
const verdictOf = (caller: ToolCaller, found: ToolLookup, allowed = true) => {
  const v = judge(ask(caller, allowed), found);
  return v.verdict === 'refused'
    ? v.refusal.code
    : v.verdict === 'wait_for_user'
      ? `wait:${v.approval ? 'approval' : 'input'}`
      : v.verdict;
};

describe('the tool gate rules', () => {
  const callers: ToolCaller[] = ['model', 'subtask', 'try', 'condition', 'executor'];

  it('applies the allowlist first, for every caller, whatever the tool and its runner', () => {
    for (const caller of callers) {
      for (const found of [
        online(entry()),
        online(entry({ requiresApproval: true })),
        { state: 'offline', entry: entry() } as const,
      ]) {
        expect(verdictOf(caller, found, false)).toBe('TOOL_NOT_ALLOWED');
      }
    }
  });

  it('holds an approval-gated tool or an agent-tool for the user in a conversation, and refuses it to every other caller', () => {
    const gated = online(entry({ requiresApproval: true, executor: true }));
    const agent = online(entry({ kind: 'agent', executor: true }));
    expect(callers.map((c) => verdictOf(c, gated))).toEqual([
      'wait:approval',
      'wait:approval',
      'APPROVAL_REQUIRED',
      'APPROVAL_REQUIRED',
      'APPROVAL_REQUIRED',
    ]);
    expect(callers.map((c) => verdictOf(c, agent))).toEqual([
      'wait:input',
      'wait:input',
      'AGENT_TOOL',
      'AGENT_TOOL',
      'AGENT_TOOL',
    ]);
  });

  it('lets an executor call reach only a tool its runner declared an executor', () => {
    expect(verdictOf('executor', online(entry()))).toBe('NOT_AN_EXECUTOR');
    expect(verdictOf('executor', online(entry({ executor: true })))).toBe('send');
    // Declared or not, other callers reach a plain tool.
    for (const caller of ['model', 'try', 'condition'] as const)
      expect(verdictOf(caller, online(entry()))).toBe('send');
  });

  it('refuses by the rules before it looks at the runner, and answers unknown for a name never seen', () => {
    expect(verdictOf('condition', { state: 'offline', entry: entry({ requiresApproval: true }) })).toBe(
      'APPROVAL_REQUIRED',
    );
    expect(verdictOf('condition', { state: 'offline', entry: entry() })).toBe('RUNNER_UNAVAILABLE');
    expect(verdictOf('model', { state: 'unknown' })).toBe('unknown');
  });
});
