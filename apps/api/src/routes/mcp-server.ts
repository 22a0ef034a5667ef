import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { agentCallerOf } from '../agents/agent-caller.js';
import type { AgentClient } from '../agents/agent-paths.js';
import { toHttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';
import { callAgentTool, type McpCallDeps } from './mcp-call.js';
import { supportsFormElicitation, type ElicitationAnswer } from './mcp-elicitation.js';
import { agentTools, type AgentTool } from './mcp-tools.js';

export interface McpServerDeps extends McpCallDeps {
  agents: Pick<AgentClient, 'listAgents'>;
  /** The tier of tokens that name none (DEFAULT_TIER), for the agents' `access.tiers`. */
  defaultTier: string;
  /** Longest an elicitation waits for the user's answer; then the call returns the waiting result. */
  elicitationWaitMs: number;
}

/** Agents listed per page, and the most pages read (a tenant's agents are bounded by its quota). */
const PAGE_SIZE = 200;
const MAX_PAGES = 50;

/** The HTTP request a message came with: the route hands it to the transport as the auth info's `extra.request`. */
export function authInfoOf(request: FastifyRequest, token: string): AuthInfo {
  return { token, clientId: principalOf(request).subject ?? '', scopes: [], extra: { request } };
}

function requestOf(authInfo: AuthInfo | undefined): FastifyRequest {
  const request = authInfo?.extra?.['request'];
  if (!request) throw new McpError(ErrorCode.InternalError, 'a message reached the MCP server without its request');
  return request as FastifyRequest;
}

/** The caller's agents as tools, read from the agent service as GET /v1/agents reads them. */
async function callerTools(deps: McpServerDeps, request: FastifyRequest): Promise<AgentTool[]> {
  const caller = agentCallerOf(request);
  const agents = [];
  let pageToken = '';
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await deps.agents.listAgents({
      caller,
      pageSize: PAGE_SIZE,
      pageToken,
      search: '',
      labels: [],
      includeDeleted: false,
    });
    agents.push(...listed.agents);
    pageToken = listed.nextPageToken;
    if (!pageToken) break;
  }
  return agentTools(agents, { subject: caller.subject, tier: caller.tier || deps.defaultTier });
}

/** A service's refusal as a JSON-RPC error: the api's code and message, nothing internal. */
function protocolError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const { body } = toHttpError(error);
  return new McpError(ErrorCode.InternalError, `${body.error.code}: ${body.error.message}`);
}

/**
 * The MCP server of one session (docs/protocols.md#mcp): `tools/list` lists the caller's agents,
 * `tools/call` runs one. Both read the caller from the HTTP request the message came with, so
 * every request is answered for the token it carries.
 */
export function agentMcpServer(deps: McpServerDeps, version: string): McpServer {
  const mcp = new McpServer(
    { name: 'agent-platform', title: 'Agent platform', version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Each tool is one of your agents on the platform. Send it a message; continue a conversation by passing the conversationId of an earlier result.',
    },
  );
  const { server } = mcp;
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    try {
      return { tools: (await callerTools(deps, requestOf(extra.authInfo))).map((t) => t.tool) };
    } catch (error) {
      throw protocolError(error);
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
    const request = requestOf(extra.authInfo);
    let tools: AgentTool[];
    try {
      tools = await callerTools(deps, request);
    } catch (error) {
      throw protocolError(error);
    }
    const tool = tools.find((t) => t.tool.name === call.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool '${call.params.name}': no agent of that name for this caller (tools/list names them)`,
      );
    const progressToken = extra._meta?.progressToken;
    return callAgentTool(deps, tool, call.params.arguments, {
      request,
      signal: extra.signal,
      progress:
        progressToken === undefined
          ? undefined
          : (progress, message) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress, message },
              }),
      elicit: supportsFormElicitation(server.getClientCapabilities())
        ? async (params): Promise<ElicitationAnswer> =>
            extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
              timeout: deps.elicitationWaitMs,
              signal: extra.signal,
            })
        : undefined,
    });
  });
  return mcp;
}
