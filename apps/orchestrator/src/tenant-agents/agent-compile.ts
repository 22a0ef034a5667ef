import { compileLoopConfig, type LoopConfig, type ModelPort } from '@platform/agent-loop';
import type { AgentSpec, RunOverrides } from '@platform/contracts';
import { TextProtocolModel } from '@platform/llm';
import type { ToolProtocol } from '../config.js';
import { globToRegExp, type RunnableAgent, type ProfileCaller } from '../profiles.js';

/** The orchestrator's defaults a tenant agent's spec falls back to (as the profiles file's). */
export interface AgentCompileDefaults {
  model: string;
  fallbackModels: string[];
  toolProtocol: ToolProtocol;
  loopConfig: LoopConfig;
}

/** How a model port is made: the platform's endpoint, or (with a connection) the tenant's. */
export type ModelMaker = (model: string) => ModelPort;

const matcher = (patterns: string[]): ((name: string) => boolean) => {
  const compiled = patterns.map(globToRegExp);
  return (name) => compiled.some((p) => p.test(name));
};

/** Whether `caller` may use an agent of these access rules (tiers, end users; tenants for a built-in one). */
function allowsCallerOf(access: AgentSpec['access']): (caller: ProfileCaller) => boolean {
  return ({ tenantId, tier, subject }) =>
    (!access?.tenants || access.tenants.includes(tenantId)) &&
    (!access?.tiers || access.tiers.includes(tier)) &&
    (!access?.subjects || (subject !== undefined && access.subjects.includes(subject)));
}

/**
 * A tenant agent's version as a profile ready to run turns: its instructions, models (wrapped in
 * the text protocol when it says so), tools, roles, loop and memory settings and output schema.
 * Model parameters (temperature, top-p, output tokens) are kept in the spec but not yet sent: the
 * model port has no way to carry them (docs/operations.md says so).
 */
/** A compiled version: its profile, its spec (for the override rules), and how it makes a model (for a run's `model`). */
export interface CompiledAgent {
  profile: RunnableAgent;
  spec: AgentSpec;
  modelOf: (name: string) => ModelPort;
}

export function compileAgent(
  agent: { id: string; version: number },
  spec: AgentSpec,
  defaults: AgentCompileDefaults,
  makeModel: ModelMaker,
): CompiledAgent {
  const text = (spec.toolProtocol ?? defaults.toolProtocol) === 'text';
  const modelOf = (name: string): ModelPort => (text ? new TextProtocolModel(makeModel(name)) : makeModel(name));
  const fallbacks = spec.fallbackModels ?? (spec.modelConnection ? [] : defaults.fallbackModels);
  return {
    spec,
    modelOf,
    profile: {
      name: spec.name,
      systemPrompt: spec.instructions,
      model: modelOf(spec.model ?? defaults.model),
      fallbackModels: fallbacks.map(modelOf),
      loopConfig: spec.loop ? compileLoopConfig({ ...defaults.loopConfig, ...spec.loop }) : defaults.loopConfig,
      allowsTool: matcher(spec.tools),
      allowsCaller: allowsCallerOf(spec.access),
      delegates: spec.delegates,
      strategy: spec.strategy,
      committees: spec.committees,
      structuredOutput: spec.structuredOutput,
      ...(spec.planning ? { planning: spec.planning } : {}),
      ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
      ...(spec.modelParameters && Object.keys(spec.modelParameters).length ? { sampling: spec.modelParameters } : {}),
      ...(spec.multitask ? { multitask: spec.multitask } : {}),
      recall: spec.memory?.recall ?? true,
      ...(spec.memory?.budgetTokens !== undefined ? { recallBudgetTokens: spec.memory.budgetTokens } : {}),
      agent,
    },
  };
}

/** What `overrides` may not change of this agent, in words; undefined when they are all allowed. */
export type OverridePolicySource = Pick<AgentSpec, 'model' | 'fallbackModels' | 'overrides'> & {
  loop?: { maxTurns?: number | undefined } | undefined;
};

export function overrideRefusal(spec: OverridePolicySource, overrides: RunOverrides): string | undefined {
  if (overrides.model !== undefined) {
    const allowed = [spec.model, ...(spec.fallbackModels ?? []), ...(spec.overrides?.models ?? [])];
    if (!allowed.includes(overrides.model))
      return `overrides.model: the agent does not allow the model '${overrides.model}'`;
  }
  if (overrides.instructions !== undefined && spec.overrides?.instructions === false)
    return 'overrides.instructions: the agent does not allow additional instructions';
  if (overrides.maxTurns !== undefined && spec.loop?.maxTurns !== undefined && overrides.maxTurns > spec.loop.maxTurns)
    return `overrides.maxTurns: at most the agent's ${spec.loop.maxTurns}`;
  return undefined;
}

/**
 * The profile a run with overrides runs under: the agent's, with the additional instructions
 * appended, the model picked (its fallbacks kept), tools allowed only where both allow them, and
 * max turns lowered (never raised above the agent's: checked when the message came).
 */
export function withOverrides(
  profile: RunnableAgent,
  overrides: RunOverrides,
  modelOf: (name: string) => ModelPort,
): RunnableAgent {
  const tools = overrides.tools ? matcher(overrides.tools) : undefined;
  return {
    ...profile,
    ...(overrides.instructions ? { systemPrompt: `${profile.systemPrompt}\n\n${overrides.instructions}` } : {}),
    ...(overrides.model ? { model: modelOf(overrides.model) } : {}),
    ...(tools ? { allowsTool: (name: string) => profile.allowsTool(name) && tools(name) } : {}),
    ...(overrides.maxTurns !== undefined
      ? { loopConfig: { ...profile.loopConfig, maxTurns: Math.min(overrides.maxTurns, profile.loopConfig.maxTurns) } }
      : {}),
  };
}
