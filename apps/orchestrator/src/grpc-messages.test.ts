import { isPlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { protocolOf, senderRoleOf } from './grpc-messages.js';

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

  it('role: a tenant role is kept, none decides as a member, anything else is refused', () => {
    expect(senderRoleOf('developer')).toEqual({ senderRole: 'developer' });
    expect(senderRoleOf(undefined)).toEqual({});
    expect(refusalOf(() => senderRoleOf('root'))).toEqual({ code: 'INVALID_ROLE', details: { field: 'role' } });
  });
});
