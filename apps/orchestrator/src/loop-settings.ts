import { compileLoopConfig, type LoopConfig } from '@platform/agent-loop';
import type { OrchestratorConfig } from './config.js';

/** The engine's configuration from the orchestrator's environment (unset options keep the engine defaults). */
export function loopConfigFrom(config: OrchestratorConfig): LoopConfig {
  return compileLoopConfig({
    maxTurns: config.MAX_TURNS,
    turnDeadlineMs: config.TURN_TIMEOUT_MS,
    toolTimeoutMs: config.TOOL_TIMEOUT_MS,
    agentToolTimeoutMs: config.AGENT_TOOL_TIMEOUT_MS,
    maxToolCallsPerTurn: config.MAX_TOOL_CALLS_PER_TURN,
    contextTokenLimit: config.CONTEXT_TOKEN_LIMIT,
    llmMaxRetries: config.LLM_MAX_RETRIES,
    llmRetryBaseDelayMs: config.LLM_RETRY_BASE_DELAY_MS,
  });
}
