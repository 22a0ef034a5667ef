import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toolPrefixOf, type McpServerConfig } from './server-config.js';

/** The platform's tool-name alphabet and length (see `defineTool`). */
const MAX_TOOL_NAME_LENGTH = 64;

/** Turns `prefix + mcpName` into a valid platform tool name: other characters become `_`, then it is cut to 64. */
export function platformToolName(prefix: string, mcpName: string): string {
  return `${prefix}${mcpName}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME_LENGTH);
}

/** An MCP tool the bridge will serve, under its platform name. */
export interface PlannedTool {
  platformName: string;
  mcp: Tool;
}

/** An MCP tool the bridge will not serve, and why (logged once per listing). */
interface SkippedTool {
  mcpName: string;
  reason: string;
}

export interface ToolPlan {
  tools: PlannedTool[];
  skipped: SkippedTool[];
}

/**
 * Decides which of a server's MCP tools are served and under which names: applies `include` then
 * `exclude` (on the original MCP names), prefixes and sanitizes, and refuses any name already
 * taken, whether by another server (`claimedByOthers`: platform name -> server) or by an earlier
 * tool of the same server after sanitizing. Refusing keeps calls unambiguous: two tools silently
 * sharing one subject would make NATS pick one at random.
 */
export function planTools(
  server: Pick<McpServerConfig, 'name' | 'toolPrefix' | 'include' | 'exclude'>,
  mcpTools: readonly Tool[],
  claimedByOthers: ReadonlyMap<string, string>,
): ToolPlan {
  const prefix = toolPrefixOf(server);
  const include = server.include ? new Set(server.include) : undefined;
  const exclude = new Set(server.exclude);
  const plan: ToolPlan = { tools: [], skipped: [] };
  const mine = new Map<string, string>();

  for (const tool of mcpTools) {
    if (include && !include.has(tool.name)) continue;
    if (exclude.has(tool.name)) continue;
    // Such a tool needs the experimental MCP tasks API; a plain tools/call is refused by the SDK.
    if (tool.execution?.taskSupport === 'required') {
      plan.skipped.push({
        mcpName: tool.name,
        reason: 'it requires task-based execution (MCP tasks), which the bridge does not support',
      });
      continue;
    }
    const platformName = platformToolName(prefix, tool.name);
    if (!platformName) {
      plan.skipped.push({ mcpName: tool.name, reason: 'its name is empty after sanitizing' });
      continue;
    }
    const otherServer = claimedByOthers.get(platformName);
    if (otherServer !== undefined) {
      plan.skipped.push({
        mcpName: tool.name,
        reason: `its platform name '${platformName}' is already served for MCP server '${otherServer}'`,
      });
      continue;
    }
    const sibling = mine.get(platformName);
    if (sibling !== undefined) {
      plan.skipped.push({
        mcpName: tool.name,
        reason: `its platform name '${platformName}' collides with MCP tool '${sibling}' of the same server`,
      });
      continue;
    }
    mine.set(platformName, tool.name);
    plan.tools.push({ platformName, mcp: tool });
  }
  return plan;
}

/** Include-list entries that matched no tool: usually a typo worth a warning. */
export function unmatchedIncludes(server: Pick<McpServerConfig, 'include'>, mcpTools: readonly Tool[]): string[] {
  const names = new Set(mcpTools.map((t) => t.name));
  return (server.include ?? []).filter((name) => !names.has(name));
}
