import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ErrorBody } from '../http-errors.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

/** The MCP endpoint's path; the metadata of RFC 9728 for it sits at the well-known path with this suffix. */
export const MCP_PATH = '/v1/mcp';
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** How the MCP endpoint describes itself as an OAuth 2.1 resource server (docs/protocols.md#authorization). */
export interface McpAuthOptions {
  /** The endpoint's public URL (MCP_RESOURCE_URL); absent: the request's scheme and host with /v1/mcp. */
  resourceUrl?: string | undefined;
  /** Issuers of the platform's tokens (MCP_AUTHORIZATION_SERVERS, default AUTH_ISSUER): where a client gets one. */
  authorizationServers: readonly string[];
}

const ProtectedResourceMetadata = z
  .object({
    resource: z.string().meta({ description: 'The MCP endpoint, as a client must name it (RFC 8707 `resource`).' }),
    authorization_servers: z.array(z.string()).optional().meta({
      description:
        "Issuers of the platform's tokens (OAuth 2.1 authorization servers); absent when none is configured.",
    }),
    bearer_methods_supported: z.array(z.literal('header')),
    scopes_supported: z.array(z.string()).meta({ description: 'None: what a token may do is its tenant role.' }),
    resource_name: z.string(),
    resource_documentation: z.string().optional(),
  })
  .meta({ id: 'ProtectedResourceMetadata' });
type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadata>;

const METADATA_EXAMPLE: ProtectedResourceMetadata = {
  resource: 'https://api.example.com/v1/mcp',
  authorization_servers: ['https://auth.example.com'],
  bearer_methods_supported: ['header'],
  scopes_supported: [],
  resource_name: 'Agent platform MCP server',
};

const metadataOperation = (path: string, operationId: string, summary: string) =>
  defineOperation({
    method: 'GET',
    path,
    operationId,
    summary,
    description:
      "RFC 9728 metadata of the MCP endpoint (docs/protocols.md#mcp): its resource URL and the authorization servers that issue the platform's JWTs. A 401 of the MCP endpoint names this document in `WWW-Authenticate: Bearer resource_metadata=…`.",
    tags: ['mcp'],
    access: 'public',
    responses: {
      200: {
        description: 'The metadata.',
        body: ProtectedResourceMetadata,
        examples: { configured: METADATA_EXAMPLE },
      },
    },
  });

export const mcpAuthOperations = {
  getMcpResourceMetadata: metadataOperation(
    `${WELL_KNOWN}${MCP_PATH}`,
    'getMcpResourceMetadata',
    'OAuth protected resource metadata of the MCP endpoint (the path-suffixed form MCP clients ask first)',
  ),
  getResourceMetadata: metadataOperation(
    WELL_KNOWN,
    'getResourceMetadata',
    'OAuth protected resource metadata (the same document, at the root form)',
  ),
};

/** The MCP endpoint's resource URL: the configured one, else the request's own origin. */
function resourceUrlOf(options: McpAuthOptions, request: FastifyRequest): string {
  return options.resourceUrl ?? `${request.protocol}://${request.host}${MCP_PATH}`;
}

/** Where the metadata of a resource URL is (RFC 9728 section 3.1: the well-known path before the resource's path). */
export function resourceMetadataUrlOf(resourceUrl: string): string {
  const url = new URL(resourceUrl);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${WELL_KNOWN}${path}`;
}

function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}"`;
}

/**
 * The `WWW-Authenticate` of a 401 from the MCP endpoint (RFC 6750, RFC 9728 section 5.1): the
 * resource metadata, and `error="invalid_token"` when a token was sent but refused (none for a
 * request that sent no token, as RFC 6750 section 3.1 says).
 */
export function bearerChallenge(options: McpAuthOptions, request: FastifyRequest, error: ErrorBody['error']): string {
  const parts = [`resource_metadata=${quoted(resourceMetadataUrlOf(resourceUrlOf(options, request)))}`];
  if (error.code !== 'MISSING_TOKEN')
    parts.push(`error="invalid_token"`, `error_description=${quoted(`${error.code}: ${error.message}`)}`);
  return `Bearer ${parts.join(', ')}`;
}

/** The RFC 9728 documents, at the path-suffixed and the root well-known path. */
export function registerMcpAuthRoutes(router: OperationRouter, options: McpAuthOptions): void {
  const metadata = (request: FastifyRequest): ProtectedResourceMetadata => ({
    resource: resourceUrlOf(options, request),
    ...(options.authorizationServers.length ? { authorization_servers: [...options.authorizationServers] } : {}),
    bearer_methods_supported: ['header'],
    scopes_supported: [],
    resource_name: 'Agent platform MCP server',
  });
  for (const operation of Object.values(mcpAuthOperations))
    router.add(operation, async ({ request }) => ({ status: 200, body: metadata(request) }));
}
