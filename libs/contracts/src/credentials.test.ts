import { describe, expect, it } from 'vitest';
import { CredentialGrantClaims, parseCredentialServices } from './credentials.js';
import { parseToolDescriptor, ToolMetadataKey, toolEndpointMetadata, type ToolDescriptor } from './tool-protocol.js';

const descriptor: Omit<ToolDescriptor, 'name'> = {
  kind: 'tool',
  description: 'Sends mail.',
  inputSchema: { type: 'object' },
  timeoutMs: 1000,
  requiresApproval: false,
  sideEffect: 'external',
  version: '1.0.0',
  schemaHash: 'h',
};

describe('credential declarations in tool descriptors', () => {
  it('round-trip through endpoint metadata, and stay absent when a tool declares none', () => {
    const metadata = toolEndpointMetadata({ ...descriptor, credentials: ['google', 'github'] });
    expect(metadata[ToolMetadataKey.credentials]).toBe('google,github');
    expect(parseToolDescriptor('mail', metadata).credentials).toEqual(['google', 'github']);
    expect(toolEndpointMetadata(descriptor)).not.toHaveProperty(ToolMetadataKey.credentials);
    expect(parseToolDescriptor('mail', toolEndpointMetadata(descriptor))).not.toHaveProperty('credentials');
  });

  it('refuses malformed service names, naming the key', () => {
    expect(() =>
      parseToolDescriptor('mail', {
        ...toolEndpointMetadata(descriptor),
        [ToolMetadataKey.credentials]: 'Google Mail',
      }),
    ).toThrow(/platform\.credentials/);
    expect(parseCredentialServices(' google , google,slack ')).toEqual(['google', 'slack']);
  });

  it('grant claims require tenant, run, call, tool and at least one service', () => {
    const claims = {
      iss: 'platform-orchestrator',
      aud: 'platform-credential',
      tid: 'acme',
      run: 'r',
      call: 'c',
      tool: 't',
      svc: ['google'],
      iat: 1,
      exp: 2,
    };
    expect(CredentialGrantClaims.parse(claims)).toEqual(claims);
    expect(CredentialGrantClaims.safeParse({ ...claims, svc: [] }).success).toBe(false);
    expect(CredentialGrantClaims.safeParse({ ...claims, aud: 'someone-else' }).success).toBe(false);
  });
});
