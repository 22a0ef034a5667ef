import { isPlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { protocolOf, protocolRequestOf, senderRoleOf } from './grpc-messages.js';

function refusalOf(read: () => unknown): { code: string; details: unknown } {
  try {
    read();
  } catch (error) {
    if (isPlatformError(error) && error.kind === 'invalid_argument')
      return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected INVALID_ARGUMENT');
}

describe('a HandleMessage request field', () => {
  it('protocol: every edge protocol is kept, none is a message the platform sent, anything else is refused', () => {
    for (const protocol of ['rest', 'chat_completions', 'responses', 'mcp', 'a2a', 'ag_ui'])
      expect(protocolOf(protocol)).toEqual({ protocol });
    expect(protocolOf(undefined)).toEqual({});
    expect(protocolOf('')).toEqual({});
    expect(refusalOf(() => protocolOf('MCP'))).toEqual({ code: 'INVALID_PROTOCOL', details: { field: 'protocol' } });
    expect(refusalOf(() => protocolOf('smtp'))).toEqual({ code: 'INVALID_PROTOCOL', details: { field: 'protocol' } });
  });

  it('protocol_request_json: a JSON object is kept as it is, none is nothing, anything else is refused', () => {
    expect(protocolRequestOf('{"previousResponseId":"run_1","textFormat":{"type":"text"}}')).toEqual({
      protocolRequest: { previousResponseId: 'run_1', textFormat: { type: 'text' } },
    });
    expect(protocolRequestOf(undefined)).toEqual({});
    expect(protocolRequestOf('')).toEqual({});
    const refused = { code: 'INVALID_PROTOCOL_REQUEST', details: { field: 'protocol_request_json' } };
    for (const json of ['not json', '[1]', '"text"', 'null', JSON.stringify({ big: 'x'.repeat(65_536) })])
      expect(refusalOf(() => protocolRequestOf(json))).toEqual(refused);
  });

  it('role: a tenant role is kept, none decides as a member, anything else is refused', () => {
    expect(senderRoleOf('developer')).toEqual({ senderRole: 'developer' });
    expect(senderRoleOf(undefined)).toEqual({});
    expect(refusalOf(() => senderRoleOf('root'))).toEqual({ code: 'INVALID_ROLE', details: { field: 'role' } });
  });
});
