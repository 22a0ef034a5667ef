import type { ToolDefinition } from '@platform/tool-sdk';
import type { RunnerConfig } from './config.js';
import { calculatorTool } from './tools/calculator.js';
import { currentTimeTool } from './tools/current-time.js';
import { webFetchTool } from './tools/web-fetch/web-fetch.js';

/**
 * The tools this runner serves, their options compiled from its environment at boot (the tools
 * themselves never see a variable name); `web_fetch` only when enabled.
 */
export function builtinTools(config: RunnerConfig): ToolDefinition[] {
  const tools = [calculatorTool({ maxExpressionLength: config.CALCULATOR_MAX_EXPRESSION_LENGTH }), currentTimeTool()];
  if (config.WEB_FETCH_ENABLED) {
    tools.push(
      webFetchTool({
        allowedHosts: config.WEB_FETCH_ALLOWED_HOSTS,
        maxBytes: config.WEB_FETCH_MAX_BYTES,
        timeoutMs: config.WEB_FETCH_TIMEOUT_MS,
        maxRedirects: config.WEB_FETCH_MAX_REDIRECTS,
        egressAllow: { hosts: config.EGRESS_ALLOW_HOSTS, cidrs: config.EGRESS_ALLOW_CIDRS },
      }),
    );
  }
  return tools;
}
