import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@platform/service-kit';
import { defineTool, ToolFailure, type ToolDefinition } from '@platform/tool-sdk';
import { bridgedInput } from './input-schema.js';
import { ServerNotRunningError, type McpConnection } from './mcp-connection.js';
import { mapCallResult } from './result-mapping.js';
import type { McpServerConfig } from './server-config.js';
import type { PlannedTool } from './tool-naming.js';

/** Extra time the SDK's own request timeout gets over the platform deadline, so the platform's wins and reports `timeout`. */
const SDK_TIMEOUT_SLACK_MS = 1_000;

/** The part of McpConnection a bridged tool needs (tests may fake it). */
export type ToolCaller = Pick<McpConnection, 'callTool'>;

/**
 * Turns a protocol-level failure into a model-facing one. The call's own deadline/abort is left to
 * `handleToolCall` (rethrown as is), which reports it as `timeout`.
 */
export function protocolFailure(server: string, err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return err;
  if (err instanceof ServerNotRunningError) return new ToolFailure(err.message);
  if (err instanceof McpError) {
    if (err.code === (ErrorCode.ConnectionClosed as number))
      return new ToolFailure(
        `MCP server '${server}' stopped during the call (connection closed); the bridge is reconnecting`,
      );
    if (err.code === (ErrorCode.RequestTimeout as number))
      return new ToolFailure(`MCP server '${server}' did not answer in time`);
    return new ToolFailure(`MCP server '${server}' rejected the call: ${err.message}`);
  }
  // Transport failures (HTTP unreachable, broken pipe): say which server, keep the details in the log.
  return new ToolFailure(`MCP server '${server}' could not be reached: ${(err as Error).message ?? String(err)}`);
}

/** Tool versions must look like semver; an MCP server's version is used when it does, so upgraded servers win in discovery. */
function toolVersion(serverVersion: string | undefined): string {
  return serverVersion && /^\d+(\.\d+){0,2}(-[0-9A-Za-z.-]+)?$/.test(serverVersion) ? serverVersion : '1.0.0';
}

/**
 * Builds the platform tool that forwards to one MCP tool: its description, its JSON Schema as
 * published input schema, and a handler calling `tools/call` under the call's deadline and abort
 * signal (aborting sends the server `notifications/cancelled`).
 */
export function bridgedTool(
  server: McpServerConfig,
  planned: PlannedTool,
  caller: ToolCaller,
  serverVersion: string | undefined,
  logger: Logger,
): ToolDefinition {
  const { mcp, platformName } = planned;
  const input = bridgedInput(mcp.inputSchema);
  if (input.fallbackReason) {
    logger.warn(
      { mcpServer: server.name, tool: mcp.name, reason: input.fallbackReason },
      'cannot convert the tool input schema to zod; accepting any object and leaving validation to the MCP server',
    );
  }
  return defineTool({
    name: platformName,
    description: mcp.description?.trim() || mcp.title || `MCP tool '${mcp.name}' of server '${server.name}'`,
    input: input.validator,
    inputJsonSchema: input.published,
    timeoutMs: server.timeoutMs,
    sideEffect: server.sideEffect,
    requiresApproval: server.requiresApproval,
    version: toolVersion(serverVersion),
    handler: async (args, ctx) => {
      const remainingMs = Math.max(1, ctx.deadlineAt - Date.now());
      let result;
      try {
        result = await caller.callTool(mcp.name, args, {
          timeoutMs: remainingMs + SDK_TIMEOUT_SLACK_MS,
          signal: ctx.signal,
        });
      } catch (err) {
        ctx.logger.warn(
          { mcpServer: server.name, mcpTool: mcp.name, err: (err as Error).message },
          'MCP tool call failed',
        );
        throw protocolFailure(server.name, err, ctx.signal);
      }
      return mapCallResult(result);
    },
  });
}
