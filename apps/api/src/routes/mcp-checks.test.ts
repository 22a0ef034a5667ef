import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../http-errors.js';
import { checkMcpPost, checkProtocolVersion } from './mcp-checks.js';

const STREAMABLE = 'application/json, text/event-stream';
const requestWith = (headers: Record<string, string>): FastifyRequest => ({ headers }) as unknown as FastifyRequest;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** The code the check refuses with, or undefined when it lets the request through. */
function refusal(check: () => void): { status: number; code: string } | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { status: error.statusCode, code: error.code };
  }
}

describe('checkMcpPost', () => {
  it('lets through what the SDK transport takes: an initialize alone, messages of a session', () => {
    expect(refusal(() => checkMcpPost(requestWith({ accept: STREAMABLE }), INITIALIZE, false))).toBeUndefined();
    const inSession = requestWith({ accept: STREAMABLE, 'mcp-protocol-version': '2025-06-18' });
    expect(
      refusal(() => checkMcpPost(inSession, [LIST, { jsonrpc: '2.0', method: 'notifications/initialized' }], true)),
    ).toBeUndefined();
  });

  it('refuses, in the api envelope, what the SDK would answer with a JSON-RPC error of its own', () => {
    expect(refusal(() => checkMcpPost(requestWith({}), INITIALIZE, false))).toEqual({
      status: 406,
      code: 'NOT_ACCEPTABLE',
    });
    expect(refusal(() => checkMcpPost(requestWith({ accept: 'application/json' }), LIST, true))).toEqual({
      status: 406,
      code: 'NOT_ACCEPTABLE',
    });
    const ok = requestWith({ accept: STREAMABLE });
    expect(refusal(() => checkMcpPost(ok, { jsonrpc: '2.0', id: {} }, true))).toEqual({
      status: 400,
      code: 'INVALID_BODY',
    });
    expect(refusal(() => checkMcpPost(ok, INITIALIZE, true))).toEqual({ status: 400, code: 'MCP_SESSION_INITIALIZED' });
    expect(refusal(() => checkMcpPost(ok, [INITIALIZE, LIST], false))).toEqual({
      status: 400,
      code: 'MCP_SESSION_INITIALIZED',
    });
    const old = requestWith({ accept: STREAMABLE, 'mcp-protocol-version': '1999-01-01' });
    expect(refusal(() => checkMcpPost(old, LIST, true))).toEqual({
      status: 400,
      code: 'MCP_PROTOCOL_VERSION_UNSUPPORTED',
    });
    // initialize negotiates the version in its body: the header is not read then.
    expect(refusal(() => checkMcpPost(old, INITIALIZE, false))).toBeUndefined();
  });
});

describe('checkProtocolVersion', () => {
  it('takes no header or a version the SDK speaks', () => {
    expect(refusal(() => checkProtocolVersion(requestWith({})))).toBeUndefined();
    expect(refusal(() => checkProtocolVersion(requestWith({ 'mcp-protocol-version': '2025-03-26' })))).toBeUndefined();
    expect(refusal(() => checkProtocolVersion(requestWith({ 'mcp-protocol-version': 'latest' })))).toEqual({
      status: 400,
      code: 'MCP_PROTOCOL_VERSION_UNSUPPORTED',
    });
  });
});
