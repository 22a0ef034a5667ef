import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError, type ErrorBody } from '../http-errors.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { bearerChallenge, MCP_PATH, registerMcpAuthRoutes, type McpAuthOptions } from './mcp-auth.js';
import { checkMcpPost, checkProtocolVersion } from './mcp-checks.js';
import { agentMcpServer, authInfoOf, type McpServerDeps } from './mcp-server.js';
import { McpSessions, type McpSessionLimits, type SessionOwner } from './mcp-sessions.js';

export interface McpRoutesOptions extends McpServerDeps {
  auth: McpAuthOptions;
  sessions: McpSessionLimits;
  /** The server version MCP's initialize answers. */
  version: string;
}

const SESSION_HEADER = 'mcp-session-id';
const SessionHeader = z
  .string()
  .max(200)
  .optional()
  .meta({ description: 'The session `initialize` answered (its `Mcp-Session-Id`); absent only on `initialize`.' });

const JsonRpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') }).meta({
  id: 'JsonRpcMessage',
  description:
    'A JSON-RPC 2.0 message of MCP (a request, notification or response), as the MCP specification defines it.',
});

const McpStreamEvent = z.looseObject({ jsonrpc: z.literal('2.0') }).meta({
  id: 'McpStreamEvent',
  description:
    'One JSON-RPC message per event: progress notifications and elicitation requests of the call, then its response.',
});

const MCP_DESCRIPTION =
  "The tenant's agents as an MCP server over Streamable HTTP (docs/protocols.md#mcp): each agent the caller may use is a tool. A session starts with `initialize` (answered with `Mcp-Session-Id`), which every later request sends; sessions live on the replica that opened them.";

export const mcpOperations = {
  postMcp: defineOperation({
    method: 'POST',
    path: MCP_PATH,
    operationId: 'postMcp',
    summary: 'MCP (Streamable HTTP): send a JSON-RPC message (initialize, tools/list, tools/call, …)',
    description: `${MCP_DESCRIPTION} A request is answered as an event stream (\`Accept\` must name both \`application/json\` and \`text/event-stream\`); notifications and responses with 202. A 401 carries \`WWW-Authenticate: Bearer resource_metadata=…\` (RFC 9728).`,
    tags: ['mcp'],
    access: 'tenant',
    role: 'member',
    headers: z.object({ 'mcp-session-id': SessionHeader }),
    // At most 100 messages in a batch, as the SDK's transport takes.
    body: z.union([JsonRpcMessage, z.array(JsonRpcMessage).min(1).max(100)]),
    bodyExamples: {
      initialize: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: { elicitation: {} },
          clientInfo: { name: 'my-ide', version: '1.0.0' },
        },
      },
      listTools: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      callTool: {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'support-bot', arguments: { message: 'What is 2 + 2?' }, _meta: { progressToken: 1 } },
      },
    },
    responses: {
      200: {
        description: 'The JSON-RPC answer as an event stream (text/event-stream).',
        events: McpStreamEvent,
        headers: z.object({ 'mcp-session-id': z.string().optional() }),
      },
      202: { description: 'A notification or a response (e.g. an elicitation answer) was accepted.' },
    },
    errors: {
      400: ['MCP_SESSION_REQUIRED', 'MCP_SESSION_INITIALIZED', 'MCP_PROTOCOL_VERSION_UNSUPPORTED'],
      404: ['MCP_SESSION_NOT_FOUND'],
      406: ['NOT_ACCEPTABLE'],
      429: ['QUOTA_EXCEEDED'],
    },
  }),
  deleteMcp: defineOperation({
    method: 'DELETE',
    path: MCP_PATH,
    operationId: 'deleteMcp',
    summary: 'MCP (Streamable HTTP): end a session',
    description: MCP_DESCRIPTION,
    tags: ['mcp'],
    access: 'tenant',
    role: 'member',
    headers: z.object({ 'mcp-session-id': z.string().max(200) }),
    responses: { 200: { description: 'The session ended.' } },
    errors: { 400: ['MCP_SESSION_REQUIRED', 'MCP_PROTOCOL_VERSION_UNSUPPORTED'], 404: ['MCP_SESSION_NOT_FOUND'] },
  }),
  getMcp: defineOperation({
    method: 'GET',
    path: MCP_PATH,
    operationId: 'getMcp',
    summary: 'MCP (Streamable HTTP): no stream outside requests (405)',
    description:
      'The server sends nothing outside a request (its tools do not change while a session lives), so it offers no stream here: 405, as the transport allows.',
    tags: ['mcp'],
    access: 'tenant',
    role: 'member',
    responses: {},
    errors: { 405: ['METHOD_NOT_ALLOWED'] },
  }),
};

/** One session: its SDK server and transport. */
interface McpSession {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function ownerOf(request: FastifyRequest): SessionOwner {
  const principal = principalOf(request);
  return { tenantId: principal.tenantId, subject: principal.subject ?? '' };
}

const SESSION_NOT_FOUND = (): HttpError =>
  new HttpError(
    404,
    ApiErrorCodes.MCP_SESSION_NOT_FOUND,
    'no such MCP session (it ended, expired, or lives on another replica): initialize a new one',
  );

/**
 * MCP over Streamable HTTP (docs/protocols.md#mcp): `POST /v1/mcp` carries JSON-RPC messages to
 * the session's SDK server, `DELETE` ends a session, `GET` is 405. Sessions are this replica's,
 * bound to the tenant and user that opened them. A 401 names the RFC 9728 metadata.
 */
export function registerMcpRoutes(router: OperationRouter, options: McpRoutesOptions): void {
  const sessions = new McpSessions<McpSession>(options.sessions);
  const sweeper = setInterval(() => void sessions.sweep(), Math.max(1_000, options.sessions.idleMs / 4));
  sweeper.unref();
  router.app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await sessions.closeAll();
  });
  registerMcpAuthRoutes(router, options.auth);

  // RFC 9728 section 5.1: a 401 of the MCP endpoint tells the client where its metadata is.
  router.app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 401 || request.routeOptions.url !== MCP_PATH) return payload;
    const body = typeof payload === 'string' ? (JSON.parse(payload) as ErrorBody) : undefined;
    if (body?.error) void reply.header('www-authenticate', bearerChallenge(options.auth, request, body.error));
    return payload;
  });

  const openSession = async (owner: SessionOwner): Promise<McpSession> => {
    if (!(await sessions.admit(owner.tenantId)))
      throw new HttpError(
        429,
        ApiErrorCodes.QUOTA_EXCEEDED,
        'every MCP session of this tenant on this replica is answering a request; end one (DELETE /v1/mcp) or retry',
        { quota: 'mcp_sessions', limit: options.sessions.maxPerTenant },
      );
    const server = agentMcpServer(options, options.version);
    const session: McpSession = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => `mcps_${randomUUID()}`,
        onsessioninitialized: (id) => sessions.add(id, owner, session),
        onsessionclosed: (id) => sessions.remove(id),
      }),
      close: () => server.close(),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.remove(session.transport.sessionId);
    };
    await server.connect(session.transport);
    return session;
  };

  const serve = async (
    session: McpSession,
    request: FastifyRequest,
    reply: FastifyReply,
    body: unknown,
  ): Promise<typeof STREAMED> => {
    const id = session.transport.sessionId;
    // Busy until the answer is written (a tool call's stream): a busy session is never pushed out.
    const release = id ? sessions.hold(id) : () => undefined;
    reply.raw.once('close', release);
    const raw = request.raw as IncomingMessage & { auth?: AuthInfo };
    raw.auth = authInfoOf(request, /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '');
    void reply.hijack();
    await session.transport.handleRequest(raw, reply.raw, body);
    // An initialize the SDK refused opened no session: nothing to keep.
    if (!session.transport.sessionId) await session.close();
    return STREAMED;
  };

  router.add(mcpOperations.postMcp, async ({ body, request, reply }) => {
    const sessionId = headerOf(request, SESSION_HEADER);
    checkMcpPost(request, body, sessionId !== undefined);
    if (sessionId !== undefined) {
      const session = sessions.find(sessionId, ownerOf(request));
      if (!session) throw SESSION_NOT_FOUND();
      return serve(session, request, reply, body);
    }
    if (!isInitializeRequest(body))
      throw new HttpError(
        400,
        ApiErrorCodes.MCP_SESSION_REQUIRED,
        'send Mcp-Session-Id (the header initialize answered), or initialize a session first',
      );
    return serve(await openSession(ownerOf(request)), request, reply, body);
  });

  router.add(mcpOperations.deleteMcp, async ({ request, reply }) => {
    const sessionId = headerOf(request, SESSION_HEADER);
    if (sessionId === undefined)
      throw new HttpError(400, ApiErrorCodes.MCP_SESSION_REQUIRED, 'send Mcp-Session-Id: the session to end');
    checkProtocolVersion(request);
    const session = sessions.find(sessionId, ownerOf(request));
    if (!session) throw SESSION_NOT_FOUND();
    return serve(session, request, reply, undefined);
  });

  router.add(mcpOperations.getMcp, async ({ reply }) => {
    void reply.header('allow', 'POST, DELETE');
    throw new HttpError(
      405,
      ApiErrorCodes.METHOD_NOT_ALLOWED,
      'this MCP server sends messages only in answer to a request: POST them (GET offers no stream)',
    );
  });
}
