import { describe, expect, it } from 'vitest';
import { toolScopeOf } from './child-tool-scope.js';

const profile = { allowsTool: (name: string) => name.startsWith('web_') || name === 'calculator' };
const lineage = (tools?: string[]) => ({
  lineage: { parentRunId: 'run_p', parentCallId: 'c1', chain: ['lead', 'researcher'], ...(tools ? { tools } : {}) },
});

describe('toolScopeOf', () => {
  it("is the profile's allowlist for a run without a scope (a user's run, a delegation)", () => {
    expect(toolScopeOf(profile, {}).call(null, 'web_search')).toBe(true);
    const scoped = toolScopeOf(profile, lineage());
    expect(['web_search', 'calculator', 'send_email'].map(scoped)).toEqual([true, true, false]);
  });

  it('narrows a child run to the tools its lineage names', () => {
    const scoped = toolScopeOf(profile, lineage(['web_search']));
    expect(['web_search', 'web_fetch', 'calculator'].map(scoped)).toEqual([true, false, false]);
  });

  it('never widens the profile: a scoped tool the profile refuses stays refused', () => {
    const scoped = toolScopeOf(profile, lineage(['send_email', 'calculator']));
    expect(['send_email', 'calculator'].map(scoped)).toEqual([false, true]);
  });

  it('allows nothing when the scope is empty', () => {
    expect(toolScopeOf(profile, lineage([]))('calculator')).toBe(false);
  });
});
