import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure } from '@platform/tool-sdk';
import { describe, expect, it } from 'vitest';
import { protocolFailure } from './bridged-tool.js';
import { ServerNotRunningError } from './mcp-connection.js';
import { mapCallResult } from './result-mapping.js';

const png = Buffer.alloc(300, 1).toString('base64');

describe('mapCallResult', () => {
  it('joins text parts', () => {
    expect(
      mapCallResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
  });

  it('returns structuredContent as the output object', () => {
    const result = { content: [{ type: 'text' as const, text: '{"t":1}' }], structuredContent: { t: 1 } };
    expect(mapCallResult(result)).toEqual({ t: 1 });
  });

  it('renders binary content as placeholders, never base64', () => {
    const output = mapCallResult({
      content: [
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.gz', mimeType: 'application/gzip', blob: png } },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource_link', uri: 'demo://r/1', name: 'r1', mimeType: 'text/plain' },
      ],
    });
    expect(output).toBe(
      '[image: image/png, 300 bytes]\n[audio: audio/wav, 3 bytes]\n[resource: file:///a.gz, application/gzip, 300 bytes]\n[resource: file:///a.txt]\nhello\n[resource link: r1 demo://r/1, text/plain]',
    );
    expect(String(output)).not.toContain(png.slice(0, 20));
  });

  it('throws a ToolFailure with the server text when isError is set', () => {
    expect(() => mapCallResult({ isError: true, content: [{ type: 'text', text: 'Invalid resourceId' }] })).toThrow(
      new ToolFailure('Invalid resourceId'),
    );
  });

  it('says so when a tool returned nothing', () => {
    expect(mapCallResult({ content: [] })).toBe('(the tool returned no content)');
  });
});

describe('protocolFailure', () => {
  const live = new AbortController().signal;
  it.each([
    [new ServerNotRunningError('fs', true), "MCP server 'fs' is not running; the bridge is reconnecting to it"],
    [new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), "MCP server 'fs' stopped during the call"],
    [
      new McpError(ErrorCode.MethodNotFound, 'no such tool'),
      "MCP server 'fs' rejected the call: MCP error -32601: no such tool",
    ],
    [new TypeError('fetch failed'), "MCP server 'fs' could not be reached: fetch failed"],
  ])('maps %s to a ToolFailure', (err, message) => {
    const mapped = protocolFailure('fs', err, live);
    expect(mapped).toBeInstanceOf(ToolFailure);
    expect((mapped as Error).message).toContain(message);
  });

  it('leaves errors of an aborted call alone, so the runner reports the timeout', () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline exceeded'));
    const err = new Error('aborted');
    expect(protocolFailure('fs', err, controller.signal)).toBe(err);
  });
});
