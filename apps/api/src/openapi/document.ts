import { createRequire } from 'node:module';
import { TenantId } from '@platform/contracts';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import type { ApiErrorCode } from '../error-codes.js';
import { ErrorBody } from '../http-errors.js';
import type { ErrorCodes, OperationSpec, ResponseSpec } from './operation.js';

/** The OpenAPI document as JSON (what `GET /v1/openapi.json` serves). */
export type OpenApiDocument = ReturnType<typeof createDocument>;

const TAGS = [
  {
    name: 'agents',
    description: 'Agents the tenant defines: immutable versions, publish and roll back, conversation pins.',
  },
  { name: 'conversations', description: 'Send a message (a turn), stream it, read the history.' },
  { name: 'runs', description: 'Runs: list, read with transcript and plan, watch events, cancel.' },
  { name: 'approvals', description: 'Structured approval requests waiting for a decision.' },
  { name: 'tools', description: 'The live tool catalog and trying a tool.' },
  { name: 'memory', description: 'Long-term memory: ask, list facts, delete, forget.' },
  { name: 'credentials', description: 'Connected accounts (never secrets) and their audit trail.' },
  {
    name: 'model-connections',
    description:
      'Models the tenant brings: OpenAI-compatible endpoints and their keys (never returned) for its agents.',
  },
  {
    name: 'remote-agents',
    description:
      'Remote A2A agents the tenant registers (their agent cards) and delegates to from its agents and plans.',
  },
  {
    name: 'tasks',
    description: 'Scheduled, event and condition triggers, their fires, external events, notifications.',
  },
  { name: 'usage', description: 'Turns and tokens per day.' },
  { name: 'openai', description: 'The OpenAI-compatible chat completions facade.' },
  { name: 'ag-ui', description: "AG-UI: an agent as an AG-UI HttpAgent's endpoint (docs/protocols.md#ag-ui)." },
  {
    name: 'a2a',
    description: 'A2A: every agent an A2A agent, with its card; tasks are durable runs (docs/protocols.md#a2a).',
  },
  {
    name: 'access',
    description: 'Who calls (tenant role), API keys for servers, the audit of administrative actions.',
  },
  { name: 'operators', description: 'Read-only views for tokens with the operator role.' },
  { name: 'meta', description: 'Health, readiness and this document.' },
];

const BEARER = 'bearerAuth';

const SECURITY_DESCRIPTION = [
  'A JWT (HS256 with the deployment secret, or RS*/PS*/ES* from its key set) that carries `exp`, lives at most AUTH_MAX_TOKEN_LIFETIME (default 24 h) and is not issued in the future.',
  'The tenant is the `tenant` claim (else `sub`; a `tenant` claim that is present but not a valid tenant id is refused); `tier` chooses rate limits and quotas; `roles` may hold the operator role',
  "(AUTH_OPERATOR_ROLE, default `platform-operator`), which opens the operators' routes and lets GET requests",
  'read another tenant with the `Platform-Tenant` header. See docs/api.md#operators.',
  'Within the tenant, `roles` may name a tenant role (viewer, member, developer, admin; none: member): each operation names the least it needs (`x-required-role`, 403 FORBIDDEN_ROLE below it).',
  'An API key (`plk_…`, POST /v1/keys) is accepted in its place, as its tenant with its role; with `Platform-User` it acts for that end user. See docs/access.md.',
].join(' ');

/** Operators name the tenant they read with this header (GET requests only). */
const PlatformTenantHeader = TenantId.optional().meta({
  id: 'PlatformTenant',
  description:
    "Operators only (the token holds the operator role), GET only: read this tenant instead of the token's. Anyone else sending it gets 403 FORBIDDEN.",
});

/** What every authenticated route may answer, whatever it does. */
const AUTH_ERRORS: ErrorCodes & { 401: readonly ApiErrorCode[] } = {
  401: [
    'MISSING_TOKEN',
    'INVALID_TOKEN',
    'TOKEN_EXPIRED',
    'TOKEN_WITHOUT_EXPIRY',
    'TOKEN_LIFETIME_TOO_LONG',
    'TOKEN_ISSUED_IN_FUTURE',
    'INVALID_ISSUER',
    'INVALID_AUDIENCE',
    'UNKNOWN_SIGNING_KEY',
    'INVALID_API_KEY',
    'API_KEY_REVOKED',
    'API_KEY_EXPIRED',
  ],
  400: ['INVALID_ACTING_USER'],
  403: ['FORBIDDEN'],
  503: ['AUTH_UNAVAILABLE'],
};

/**
 * What any request may be answered before its route runs (framework-errors.ts, input-text.ts):
 * a URL whose percent-encoding is not UTF-8, NUL or an unpaired surrogate in any query parameter
 * (documented or not), a request Node's parser refuses, headers too large, a request that did not
 * arrive in time.
 */
const EDGE_ERRORS: ErrorCodes = {
  400: ['INVALID_URL', 'INVALID_CONTENT', 'BAD_REQUEST'],
  408: ['REQUEST_TIMEOUT'],
  431: ['HEADERS_TOO_LARGE'],
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition failed',
  413: 'Too large',
  415: 'Unsupported media type',
  428: 'Precondition required',
  429: 'Too many requests',
  431: 'Headers too large',
  499: 'Client closed the request',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Unavailable',
  504: 'Timed out',
};

function mergeErrors(operation: OperationSpec): Map<number, Set<string>> {
  const merged = new Map<number, Set<string>>();
  const add = (codes: Record<number, readonly string[] | undefined>): void => {
    for (const [status, list = []] of Object.entries(codes)) {
      const set = merged.get(Number(status)) ?? new Set<string>();
      list.forEach((code) => set.add(code));
      merged.set(Number(status), set);
    }
  };
  if (operation.access !== 'public') add(AUTH_ERRORS);
  if (operation.access === 'tenant' && operation.role !== 'viewer') add({ 403: ['FORBIDDEN_ROLE'] });
  add(EDGE_ERRORS);
  if (operation.params) add({ 400: ['INVALID_PATH'] });
  if (operation.body)
    add({
      400: ['INVALID_JSON', 'INVALID_UTF8', 'INVALID_CONTENT'],
      413: ['PAYLOAD_TOO_LARGE'],
      415: ['UNSUPPORTED_MEDIA_TYPE'],
    });
  // A route without a body ignores one sent with it, but still reads it (its size, its media type).
  else if (operation.method !== 'GET') add({ 413: ['PAYLOAD_TOO_LARGE'], 415: ['UNSUPPORTED_MEDIA_TYPE'] });
  for (const [part, code] of [
    ['params', 'INVALID_PATH'],
    ['query', 'INVALID_QUERY'],
    ['body', 'INVALID_BODY'],
  ] as const) {
    if (!operation[part]) continue;
    const answer = operation.invalid?.[part];
    add({ [answer?.status ?? 400]: [answer?.code ?? code] });
  }
  add(operation.errors ?? {});
  add({ 500: ['INTERNAL'] });
  return merged;
}

function examplesOf(examples: Record<string, unknown> | undefined): { examples?: Record<string, { value: unknown }> } {
  return examples
    ? { examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])) }
    : {};
}

/** The component id of an event schema (`.meta({ id })`): its JSON Schema is referenced, since only `schema` is converted. */
function eventSchemaId(events: z.ZodType, eventSchemas: Map<string, z.ZodType>): string {
  const id = z.globalRegistry.get(events)?.id;
  if (!id) throw new Error("an event stream's data schema needs .meta({ id }) to be documented");
  eventSchemas.set(id, events);
  return id;
}

function successResponse(response: ResponseSpec, eventSchemas: Map<string, z.ZodType>): ZodOpenApiResponseObject {
  const content: NonNullable<ZodOpenApiResponseObject['content']> = {};
  if (response.body) content['application/json'] = { schema: response.body, ...examplesOf(response.examples) };
  if (response.events) {
    content['text/event-stream'] = {
      schema: z
        .string()
        .meta({ description: 'Server-sent events; the JSON each `data:` line holds is described by `x-event-data`.' }),
      // The per-event JSON, for clients that parse the stream themselves.
      'x-event-data': { $ref: `#/components/schemas/${eventSchemaId(response.events, eventSchemas)}` },
    };
  }
  return {
    description: response.description,
    ...(Object.keys(content).length ? { content } : {}),
    ...(response.headers ? { headers: response.headers } : {}),
  };
}

function operationObject(operation: OperationSpec, eventSchemas: Map<string, z.ZodType>): ZodOpenApiOperationObject {
  const responses: ZodOpenApiOperationObject['responses'] = {};
  for (const [status, response] of Object.entries(operation.responses))
    responses[status as `2${string}`] = successResponse(response, eventSchemas);
  for (const [status, codes] of mergeErrors(operation)) {
    responses[String(status) as `4${string}`] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${[...codes].join(', ')}`,
      content: { 'application/json': { schema: ErrorBody } },
      // The same codes, machine-readable: clients (and the hostile-tenant suite) check answers against them.
      'x-error-codes': [...codes],
    };
  }
  const readsAsOperator = operation.access === 'tenant' && operation.method === 'GET';
  const headers =
    operation.headers || readsAsOperator
      ? z.object({
          ...(operation.headers?.shape ?? {}),
          ...(readsAsOperator ? { 'Platform-Tenant': PlatformTenantHeader } : {}),
        })
      : undefined;
  const operatorNote =
    operation.access === 'operator'
      ? "\n\nOperators only: the token's `roles` claim must hold the operator role (403 FORBIDDEN otherwise)."
      : operation.access === 'tenant'
        ? `\n\nRole: \`${operation.role}\` or above (docs/access.md; 403 FORBIDDEN_ROLE otherwise).`
        : '';
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description || operatorNote
      ? { description: `${operation.description ?? ''}${operatorNote}`.trim() }
      : {}),
    tags: [...operation.tags],
    ...(operation.access === 'tenant' ? { 'x-required-role': operation.role } : {}),
    ...(operation.access === 'public' ? { security: [] } : {}),
    requestParams: {
      ...(operation.params ? { path: operation.params } : {}),
      ...(operation.query ? { query: operation.query } : {}),
      ...(headers ? { header: headers } : {}),
    },
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: operation.body, ...examplesOf(operation.bodyExamples) } },
          },
        }
      : {}),
    responses,
  };
}

function apiVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

/** The OpenAPI 3.1 document of the given operations, generated from their zod schemas. */
export function buildOpenApiDocument(operations: readonly OperationSpec[]): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  const eventSchemas = new Map<string, z.ZodType>();
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    const method = operation.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    if (item[method]) throw new Error(`two operations for ${operation.method} ${operation.path}`);
    item[method] = operationObject(operation, eventSchemas);
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent platform HTTP API',
      version: apiVersion(),
      description:
        'The HTTP edge of the agent platform: agents and their versions, conversations and runs, approvals, tools, memory, credentials, tasks, usage, and an OpenAI-compatible facade. Generated from the zod schemas the api validates with (docs/api.md).',
    },
    tags: TAGS,
    security: [{ [BEARER]: [] }],
    components: {
      schemas: Object.fromEntries(eventSchemas),
      securitySchemes: {
        [BEARER]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: SECURITY_DESCRIPTION },
      },
    },
    paths,
  });
}
