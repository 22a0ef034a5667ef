import { DEFAULT_LOOP_CONFIG, type ModelPort } from '@platform/agent-loop';
import { AgentSpec } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { compileAgent, overrideRefusal, withOverrides } from './agent-compile.js';

const modelFor = (name: string) => ({ provider: 'test', model: name }) as unknown as ModelPort;
const defaults = {
  model: 'base-1',
  fallbackModels: ['base-2'],
  toolProtocol: 'native' as const,
  loopConfig: DEFAULT_LOOP_CONFIG,
};
const spec = AgentSpec.parse({
  name: 'support',
  instructions: 'Be brief.',
  model: 'sim-1',
  fallbackModels: ['sim-2'],
  tools: ['calc*', 'current_time'],
  loop: { maxTurns: 4 },
  memory: { recall: false, budgetTokens: 300 },
  outputSchema: { type: 'object' },
  access: { subjects: ['alice'] },
  overrides: { models: ['sim-3'] },
  multitask: 'interrupt',
});

describe('a tenant agent compiled into a profile', () => {
  const { profile, modelOf } = compileAgent({ id: 'agt_x', version: 3 }, spec, defaults, modelFor);

  it('carries its instructions, models, tools, loop, memory, schema and version', () => {
    expect(profile).toMatchObject({
      name: 'support',
      systemPrompt: 'Be brief.',
      model: { model: 'sim-1' },
      fallbackModels: [{ model: 'sim-2' }],
      recall: false,
      recallBudgetTokens: 300,
      outputSchema: { type: 'object' },
      agent: { id: 'agt_x', version: 3 },
      multitask: 'interrupt',
    });
    expect(profile.loopConfig.maxTurns).toBe(4);
    expect(['calculator', 'current_time', 'web_search'].map(profile.allowsTool)).toEqual([true, true, false]);
  });

  it('lets only the listed end users use it', () => {
    expect(profile.allowsCaller({ tenantId: 't', tier: 'default', subject: 'alice' })).toBe(true);
    expect(profile.allowsCaller({ tenantId: 't', tier: 'default', subject: 'bob' })).toBe(false);
    expect(profile.allowsCaller({ tenantId: 't', tier: 'default' })).toBe(false);
  });

  it('applies overrides: instructions appended, model picked, tools intersected, turns lowered', () => {
    const run = withOverrides(
      profile,
      { instructions: 'In French.', model: 'sim-3', tools: ['calculator', 'web_*'], maxTurns: 2 },
      modelOf,
    );
    expect(run.systemPrompt).toBe('Be brief.\n\nIn French.');
    expect(run.model).toMatchObject({ model: 'sim-3' });
    expect(run.fallbackModels).toEqual(profile.fallbackModels);
    expect(['calculator', 'current_time', 'web_search'].map(run.allowsTool)).toEqual([true, false, false]);
    expect(run.loopConfig.maxTurns).toBe(2);
    // The compiled version itself is unchanged (it is cached and shared).
    expect(profile.systemPrompt).toBe('Be brief.');
  });

  it('refuses what the agent does not allow, naming the field', () => {
    expect(overrideRefusal(spec, { model: 'sim-2' })).toBeUndefined();
    expect(overrideRefusal(spec, { model: 'sim-3' })).toBeUndefined();
    expect(overrideRefusal(spec, { model: 'gpt-x' })).toMatch(/^overrides\.model:/);
    expect(overrideRefusal(spec, { maxTurns: 5 })).toMatch(/^overrides\.maxTurns: at most the agent's 4/);
    expect(overrideRefusal({ ...spec, overrides: { models: [], instructions: false } }, { instructions: 'x' })).toMatch(
      /^overrides\.instructions:/,
    );
  });
});

describe("an agent's multitask default", () => {
  it('is one of the policies, or absent', () => {
    expect(AgentSpec.safeParse({ name: 'a', instructions: 'x' }).success).toBe(true);
    const refused = AgentSpec.safeParse({ name: 'a', instructions: 'x', multitask: 'shout' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['multitask']);
  });
});
