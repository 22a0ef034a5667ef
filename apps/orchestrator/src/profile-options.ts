import type { OrchestratorConfig } from './config.js';
import { loopConfigFrom } from './loop-settings.js';
import type { ProfileRegistryOptions } from './profiles.js';

/** The profiles' options from the environment (AGENT_PROFILES_FILE, SYSTEM_PROMPT, LLM_*, the loop settings). */
export function compileProfileRegistryOptions(config: OrchestratorConfig): ProfileRegistryOptions {
  return {
    ...(config.AGENT_PROFILES_FILE ? { profilesFile: config.AGENT_PROFILES_FILE } : {}),
    systemPrompt: config.SYSTEM_PROMPT,
    toolProtocol: config.LLM_TOOL_PROTOCOL,
    model: config.LLM_MODEL,
    fallbackModels: config.LLM_FALLBACK_MODELS,
    loopConfig: loopConfigFrom(config),
  };
}
