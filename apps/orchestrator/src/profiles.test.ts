import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelPort } from '@platform/agent-loop';
import { TextProtocolModel } from '@platform/llm';
import { describe, expect, it } from 'vitest';
import { OrchestratorConfig } from './config.js';
import { compileProfileRegistryOptions } from './profile-options.js';
import { ProfileRegistry, ProfilesFileError, readProfilesFile } from './profiles.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'profiles-'));
function file(content: unknown): string {
  const target = path.join(dir, `${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}
const model = (name: string): ModelPort => ({
  provider: 'test',
  model: name,
  complete: () => Promise.reject(new Error('unused')),
});
const config = (env: Record<string, string> = {}) =>
  OrchestratorConfig.parse({ OPENAI_API_KEY: 'k', LLM_MODEL: 'base-model', MAX_TURNS: '7', ...env });

describe('agent profiles', () => {
  it('without a profiles file, has one default profile from the orchestrator settings', () => {
    const registry = ProfileRegistry.fromOptions(
      compileProfileRegistryOptions(config({ SYSTEM_PROMPT: 'You are Koi.' })),
      model,
    );
    const profile = registry.resolve(undefined)!;
    expect(profile).toMatchObject({
      name: 'default',
      systemPrompt: 'You are Koi.',
      model: { model: 'base-model' },
      loopConfig: { maxTurns: 7 },
    });
    expect(profile.allowsTool('anything')).toBe(true);
    expect(registry.resolve('other')).toBeUndefined();
  });

  it('reads profiles with their own persona, model, fallbacks, tool allowlist and loop settings', () => {
    const target = file({
      defaultProfile: 'assistant',
      profiles: [
        { name: 'assistant', systemPrompt: 'Helpful.' },
        {
          name: 'timekeeper',
          systemPrompt: 'Only time.',
          model: 'small',
          fallbackModels: ['tiny'],
          tools: ['current_*', 'calendar'],
          loop: { maxTurns: 3 },
        },
      ],
    });
    const registry = ProfileRegistry.fromOptions(
      compileProfileRegistryOptions(config({ AGENT_PROFILES_FILE: target })),
      model,
    );
    expect(registry.namesFor({ tenantId: 'acme', tier: 'default' })).toEqual(['assistant', 'timekeeper']);
    expect(registry.resolve('')?.name).toBe('assistant');
    const keeper = registry.resolve('timekeeper')!;
    expect(keeper.model.model).toBe('small');
    expect(keeper.fallbackModels.map((m) => m.model)).toEqual(['tiny']);
    expect(keeper.loopConfig.maxTurns).toBe(3);
    expect(keeper.loopConfig.contextTokenLimit).toBe(128_000);
    expect(['current_time', 'calendar', 'calculator', 'current-x'].map((t) => keeper.allowsTool(t))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it("keeps a profile's output schema (none: free text)", () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const target = file({
      defaultProfile: 'a',
      profiles: [
        { name: 'a', systemPrompt: 'x' },
        { name: 'weather', systemPrompt: 'y', outputSchema: schema },
      ],
    });
    const registry = ProfileRegistry.fromOptions(
      compileProfileRegistryOptions(config({ AGENT_PROFILES_FILE: target })),
      model,
    );
    expect(registry.resolve('weather')!.outputSchema).toEqual(schema);
    expect(registry.resolve('a')!.outputSchema).toBeUndefined();
  });

  it('keeps a profile with access rules to its tenants and tiers; to everyone else it does not exist', () => {
    const target = file({
      defaultProfile: 'assistant',
      profiles: [
        { name: 'assistant', systemPrompt: 'Helpful.' },
        { name: 'operator', systemPrompt: 'Runs everything.', tools: ['*'], access: { tenants: ['acme'] } },
        { name: 'premium', systemPrompt: 'Large model.', model: 'large', access: { tiers: ['pro', 'enterprise'] } },
        { name: 'acme-pro', systemPrompt: 'Both.', access: { tenants: ['acme'], tiers: ['pro'] } },
      ],
    });
    const registry = ProfileRegistry.fromOptions(
      compileProfileRegistryOptions(config({ AGENT_PROFILES_FILE: target })),
      model,
    );
    const acmeFree = { tenantId: 'acme', tier: 'free' };
    const acmePro = { tenantId: 'acme', tier: 'pro' };
    const globexPro = { tenantId: 'globex', tier: 'pro' };
    expect(registry.namesFor(acmeFree)).toEqual(['assistant', 'operator']);
    expect(registry.namesFor(acmePro)).toEqual(['assistant', 'operator', 'premium', 'acme-pro']);
    expect(registry.namesFor(globexPro)).toEqual(['assistant', 'premium']);
    expect(registry.resolve('operator', globexPro)).toBeUndefined();
    expect(registry.resolve('premium', acmeFree)).toBeUndefined();
    expect(registry.resolve('acme-pro', acmeFree)).toBeUndefined();
    expect(registry.resolve('acme-pro', acmePro)?.name).toBe('acme-pro');
    expect(registry.resolve(undefined, globexPro)?.name).toBe('assistant');
    // Without a caller (a run already admitted), the name is enough.
    expect(registry.resolve('operator')?.name).toBe('operator');
  });

  it('wraps the models of a profile that speaks the text protocol (or of every profile, by LLM_TOOL_PROTOCOL)', () => {
    const target = file({
      defaultProfile: 'native',
      profiles: [
        { name: 'native', systemPrompt: 'x' },
        { name: 'local', systemPrompt: 'y', model: 'llama', fallbackModels: ['mistral'], toolProtocol: 'text' },
      ],
    });
    const registry = ProfileRegistry.fromOptions(
      compileProfileRegistryOptions(config({ AGENT_PROFILES_FILE: target })),
      model,
    );
    expect(registry.resolve('native')!.model).not.toBeInstanceOf(TextProtocolModel);
    const local = registry.resolve('local')!;
    expect(local.model).toBeInstanceOf(TextProtocolModel);
    expect(local.model.model).toBe('llama');
    expect(local.fallbackModels.map((m) => [m instanceof TextProtocolModel, m.model])).toEqual([[true, 'mistral']]);
    const everywhere = ProfileRegistry.fromOptions(
      compileProfileRegistryOptions(config({ LLM_TOOL_PROTOCOL: 'text' })),
      model,
    );
    expect(everywhere.resolve(undefined)!.model).toBeInstanceOf(TextProtocolModel);
    expect(() => config({ LLM_TOOL_PROTOCOL: 'smoke-signals' })).toThrow(/LLM_TOOL_PROTOCOL/);
  });

  it.each([
    [
      'an unknown tool protocol',
      { defaultProfile: 'a', profiles: [{ name: 'a', systemPrompt: 'x', toolProtocol: 'xml' }] },
      /profiles\.0\.toolProtocol/,
    ],
    [
      'the default profile with access rules',
      { defaultProfile: 'a', profiles: [{ name: 'a', systemPrompt: 'x', access: { tiers: ['pro'] } }] },
      /profiles\.0\.access: the default profile is for every caller/,
    ],
    [
      'an empty access list',
      {
        defaultProfile: 'a',
        profiles: [
          { name: 'a', systemPrompt: 'x' },
          { name: 'b', systemPrompt: 'y', access: { tenants: [] } },
        ],
      },
      /profiles\.1\.access\.tenants/,
    ],
    ['not JSON', '{', /cannot read it as JSON/],
    [
      'an unknown default',
      { defaultProfile: 'nope', profiles: [{ name: 'a', systemPrompt: 'x' }] },
      /defaultProfile: no profile named 'nope'/,
    ],
    [
      'a duplicate name',
      {
        defaultProfile: 'a',
        profiles: [
          { name: 'a', systemPrompt: 'x' },
          { name: 'a', systemPrompt: 'y' },
        ],
      },
      /profiles\.1\.name: profile 'a' is defined twice/,
    ],
    [
      "a delegate done by a remote agent (those are a tenant's)",
      {
        defaultProfile: 'a',
        profiles: [
          { name: 'a', systemPrompt: 'x', delegates: [{ role: 'b', description: 'd', remoteAgent: 'partner' }] },
          { name: 'b', systemPrompt: 'y' },
        ],
      },
      /profiles\.0\.delegates\.0\.remoteAgent: remote agents are a tenant's/,
    ],
    [
      'an unknown field',
      { defaultProfile: 'a', profiles: [{ name: 'a', systemPrompt: 'x', temperature: 2 }] },
      /profiles\.0/,
    ],
    [
      'a bad loop option',
      { defaultProfile: 'a', profiles: [{ name: 'a', systemPrompt: 'x', loop: { maxTurns: 0 } }] },
      /profiles\.0\.loop\.maxTurns/,
    ],
    [
      'an output schema that does not compile',
      { defaultProfile: 'a', profiles: [{ name: 'a', systemPrompt: 'x', outputSchema: { type: 'strnig' } }] },
      /profiles\.0\.outputSchema: the output schema does not compile/,
    ],
    [
      'an output schema that is not an object',
      { defaultProfile: 'a', profiles: [{ name: 'a', systemPrompt: 'x', outputSchema: ['string'] }] },
      /profiles\.0\.outputSchema/,
    ],
  ])('refuses a file with %s, naming the field', (_label, content, message) => {
    const target = file(content);
    expect(() => readProfilesFile(target)).toThrow(ProfilesFileError);
    expect(() => readProfilesFile(target)).toThrow(message);
  });
});
