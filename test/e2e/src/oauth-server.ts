// A real OAuth 2.1 authorization server for the MCP authorization test: `oidc-provider` on a free
// loopback port, with dynamic client registration (MCP clients register themselves), PKCE and
// resource indicators (RFC 8707: the MCP endpoint is the resource a token is for).
import { createServer } from 'node:http';
import { freePort } from '@platform/testing';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface AuthorizationServer {
  /** The issuer URL (its metadata at /.well-known/openid-configuration). */
  issuer: string;
  stop(): Promise<void>;
}

export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'e2e' }] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx, resource) => ({ scope: '', audience: resource, accessTokenFormat: 'jwt' }),
      },
    },
  });
  const handle = provider.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    issuer,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
