import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/**
 * What the SDK's transport would refuse with a JSON-RPC error of its own, refused first in the
 * api's error envelope with its codes (docs/protocols.md#mcp): an `Accept` without both media
 * types of Streamable HTTP, an `Mcp-Protocol-Version` the SDK does not speak, a message that is
 * not JSON-RPC, and an `initialize` sent in a session or in a batch.
 */
export function checkMcpPost(request: FastifyRequest, body: unknown, inSession: boolean): void {
  const accept = request.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    throw new HttpError(
      406,
      ApiErrorCodes.NOT_ACCEPTABLE,
      'send Accept: application/json, text/event-stream (a request is answered as an event stream)',
    );
  const messages = Array.isArray(body) ? body : [body];
  const bad = messages.findIndex((message) => !JSONRPCMessageSchema.safeParse(message).success);
  if (bad >= 0)
    throw new HttpError(
      400,
      ApiErrorCodes.INVALID_BODY,
      `${Array.isArray(body) ? `message ${bad}` : 'the message'} is not a JSON-RPC 2.0 request, notification or response`,
    );
  if (messages.some((message) => isInitializeRequest(message)) && (inSession || messages.length > 1))
    throw new HttpError(
      400,
      ApiErrorCodes.MCP_SESSION_INITIALIZED,
      'initialize opens a new session: send it alone, without Mcp-Session-Id',
    );
  if (inSession) checkProtocolVersion(request);
}

/** An `Mcp-Protocol-Version` header, when sent, must name a version the server speaks. */
export function checkProtocolVersion(request: FastifyRequest): void {
  const version = request.headers['mcp-protocol-version'];
  if (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return;
  throw new HttpError(
    400,
    ApiErrorCodes.MCP_PROTOCOL_VERSION_UNSUPPORTED,
    `Mcp-Protocol-Version must be one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    { supported: [...SUPPORTED_PROTOCOL_VERSIONS] },
  );
}
