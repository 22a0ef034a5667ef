// The MCP SDK's client as the MCP suite uses it: connected with a bearer token or through its
// OAuth flow (an OAuthClientProvider that keeps what the flow tells it, as an app's storage
// would), tool calls with their `_meta`, and raw HTTP to /v1/mcp for what the SDK does not send.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_SCOPE } from './oauth-server.js';

/** What a call's result carries in `_meta` (docs/protocols.md#mcp). */
export interface RunMeta {
  conversationId: string;
  runId: string;
  status: string;
  stopReason: string;
}

export type Elicit = (request: ElicitRequest) => Promise<ElicitResult>;

/** A client of `url` with `token` as its bearer token; `elicit` answers elicitations (none: the client declares no elicitation). */
export async function connectWithToken(url: URL, token: string, elicit?: Elicit): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (progress: Progress) => void,
): Promise<CallToolResult & { _meta: RunMeta }> {
  const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
    timeout: 120_000,
    ...(onprogress ? { onprogress } : {}),
  });
  return result as CallToolResult & { _meta: RunMeta };
}

export const textOf = (result: CallToolResult, index = 0): string => {
  const block = result.content[index];
  return block?.type === 'text' ? block.text : '';
};

/** A request to /v1/mcp as plain HTTP: `method` with the session header, and a JSON-RPC body for a POST. */
export async function rawMcp(
  url: URL,
  method: 'POST' | 'DELETE',
  token: string,
  sessionId: string,
  body?: unknown,
): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      accept: 'application/json, text/event-stream',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed = response.headers.get('content-type')?.startsWith('application/json')
    ? (JSON.parse(text) as { error?: { code?: string } })
    : undefined;
  return { status: response.status, code: parsed?.error?.code };
}

/**
 * An MCP client's OAuth storage: the registration, the discovery, the PKCE verifier and the
 * tokens the SDK's flow hands it, and the authorization URL it sends the user to (a test signs in
 * there and gives the code back to the transport's `finishAuth`).
 */
export class RecordingOAuthClient implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  readonly redirectUrl = 'http://127.0.0.1:1/callback';
  readonly clientMetadata = {
    client_name: 'e2e MCP client',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    // The user-configured scope the SDK asks for when the resource names none.
    scope: MCP_SCOPE,
  };
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}
