import { RemoteAgentAuth, RemoteAgentName } from '@platform/contracts';
import type { remoteAgentsV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { agentCallerOf } from '../agents/agent-caller.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface RemoteAgentRoutesOptions {
  /** Absent (an api built without it, in tests): every route answers 503 UNAVAILABLE. */
  remoteAgents: PromiseClient<remoteAgentsV1.RemoteAgentServiceClient> | undefined;
}

const Url = z.string().min(1).max(2_048).meta({
  description:
    "The agent card's URL, e.g. `https://agents.example.com/.well-known/agent-card.json` (a URL ending in `/` gets `.well-known/agent-card.json` appended). It must reach public addresses only (the egress guard), now and at every call.",
});
const Description = z.string().max(2_048).meta({ description: 'Your own note; the card has its own.' });
const Auth = RemoteAgentAuth.nullable().meta({
  description:
    'The stored credential (PUT /v1/credentials/{service}/{account}) whose `access_token` (or `token`) calls carry as `Authorization: Bearer`; read at call time, never stored here. null: none.',
});

const CreateBody = z
  .object({ name: RemoteAgentName, url: Url, description: Description.default(''), auth: Auth.default(null) })
  .strict();
const ReplaceBody = z
  .object({
    url: Url,
    description: Description.default(''),
    auth: Auth.default(null),
    /** Replace only this version; omitted: whatever the version. */
    expectedVersion: z.number().int().min(1).optional(),
  })
  .strict();
const NamePath = z.object({ name: RemoteAgentName });

const Skill = z.object({ id: z.string(), name: z.string(), description: z.string(), tags: z.array(z.string()) });
const Card = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    skills: z.array(Skill),
    protocolVersion: z.string().meta({ description: 'The A2A version of the interface the platform talks to.' }),
    transport: z.string().meta({ description: 'Its binding: `JSONRPC` or `HTTP+JSON`.' }),
    streaming: z.boolean(),
    fetchedAt: OptionalTimestamp,
  })
  .meta({ id: 'RemoteAgentCard', description: 'What the agent card said when it was last fetched (at every write).' });
const RemoteAgent = z
  .object({
    name: z.string(),
    url: z.string(),
    description: z.string(),
    auth: RemoteAgentAuth.nullable(),
    card: Card,
    version: z.number().int(),
    createdAt: OptionalTimestamp,
    updatedAt: OptionalTimestamp,
    createdBy: z.string(),
  })
  .meta({ id: 'RemoteAgent' });
const Reply = z.object({ remoteAgent: RemoteAgent });

const EXAMPLE = {
  name: 'forecaster',
  url: 'https://agents.example.com/.well-known/agent-card.json',
  description: 'Weather forecasts from our partner.',
  auth: { credentialService: 'partner-agents', credentialAccount: 'primary' },
  card: {
    name: 'Forecaster',
    description: 'Forecasts the weather.',
    version: '1.0.0',
    skills: [{ id: 'forecast', name: 'Forecast', description: 'A forecast for a place and day.', tags: ['weather'] }],
    protocolVersion: '1.0',
    transport: 'JSONRPC',
    streaming: true,
    fetchedAt: '2026-06-01T09:30:00.000Z',
  },
  version: 1,
  createdAt: '2026-06-01T09:30:00.000Z',
  updatedAt: '2026-06-01T09:30:00.000Z',
  createdBy: 'alice',
};

const INVALID = {
  params: { code: ApiErrorCodes.INVALID_REMOTE_AGENT },
  body: { code: ApiErrorCodes.INVALID_REMOTE_AGENT, issues: true },
};
const WRITE_ERRORS = {
  400: ['INVALID_REMOTE_AGENT', 'EGRESS_REFUSED'],
  403: ['NOT_PERMITTED_BY_TIER'],
  422: ['REMOTE_AGENT_CARD_UNREADABLE'],
  503: ['UNAVAILABLE'],
} as const;
const TAGS = ['remote-agents'];

export const remoteAgentOperations = {
  createRemoteAgent: defineOperation({
    method: 'POST',
    path: '/v1/remote-agents',
    operationId: 'createRemoteAgent',
    summary: 'Register a remote A2A agent by its agent card',
    description:
      "The card is fetched and validated now (`@a2a-js/sdk`); name an agent's delegate `remoteAgent` to hand it tasks. Quota `remote_agents` (429 QUOTA_EXCEEDED).",
    tags: TAGS,
    access: 'tenant',
    role: 'admin',
    body: CreateBody,
    invalid: INVALID,
    bodyExamples: {
      forecaster: {
        name: 'forecaster',
        url: 'https://agents.example.com/.well-known/agent-card.json',
        description: 'Weather forecasts from our partner.',
        auth: { credentialService: 'partner-agents' },
      },
    },
    responses: {
      201: {
        description: 'Registered, with what its card says.',
        body: Reply,
        examples: { created: { remoteAgent: EXAMPLE } },
      },
    },
    errors: { ...WRITE_ERRORS, 409: ['REMOTE_AGENT_EXISTS'], 429: ['QUOTA_EXCEEDED'] },
  }),
  listRemoteAgents: defineOperation({
    method: 'GET',
    path: '/v1/remote-agents',
    operationId: 'listRemoteAgents',
    summary: "The tenant's remote agents, by name",
    tags: TAGS,
    access: 'tenant',
    role: 'viewer',
    responses: {
      200: {
        description: 'By name.',
        body: z.object({ remoteAgents: z.array(RemoteAgent) }),
        examples: { one: { remoteAgents: [EXAMPLE] } },
      },
    },
    errors: { 503: ['UNAVAILABLE'] },
  }),
  getRemoteAgent: defineOperation({
    method: 'GET',
    path: '/v1/remote-agents/{name}',
    operationId: 'getRemoteAgent',
    summary: 'One remote agent',
    tags: TAGS,
    access: 'tenant',
    role: 'viewer',
    params: NamePath,
    invalid: INVALID,
    responses: { 200: { description: 'The remote agent.', body: Reply, examples: { one: { remoteAgent: EXAMPLE } } } },
    errors: { 404: ['REMOTE_AGENT_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
  replaceRemoteAgent: defineOperation({
    method: 'PUT',
    path: '/v1/remote-agents/{name}',
    operationId: 'replaceRemoteAgent',
    summary: "Change a remote agent's URL, description or auth (its card is fetched again)",
    tags: TAGS,
    access: 'tenant',
    role: 'admin',
    params: NamePath,
    body: ReplaceBody,
    invalid: INVALID,
    bodyExamples: { moved: { url: 'https://agents2.example.com/.well-known/agent-card.json', auth: null } },
    responses: {
      200: {
        description: 'Replaced; the version grew by one.',
        body: Reply,
        examples: { one: { remoteAgent: EXAMPLE } },
      },
    },
    errors: { ...WRITE_ERRORS, 404: ['REMOTE_AGENT_NOT_FOUND'], 409: ['REMOTE_AGENT_VERSION_CONFLICT'] },
  }),
  deleteRemoteAgent: defineOperation({
    method: 'DELETE',
    path: '/v1/remote-agents/{name}',
    operationId: 'deleteRemoteAgent',
    summary: 'Delete a remote agent',
    tags: TAGS,
    access: 'tenant',
    role: 'admin',
    params: NamePath,
    invalid: INVALID,
    responses: { 204: { description: 'Deleted; delegations naming it fail until their agent is changed.' } },
    errors: { 404: ['REMOTE_AGENT_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
};

function remoteAgentBody(agent: remoteAgentsV1.RemoteAgent | undefined): z.infer<typeof RemoteAgent> {
  const card = agent?.card;
  return {
    name: agent?.name ?? '',
    url: agent?.url ?? '',
    description: agent?.description ?? '',
    auth: agent?.credentialService
      ? {
          credentialService: agent.credentialService,
          ...(agent.credentialAccount ? { credentialAccount: agent.credentialAccount } : {}),
        }
      : null,
    card: {
      name: card?.name ?? '',
      description: card?.description ?? '',
      version: card?.version ?? '',
      skills: (card?.skills ?? []).map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags })),
      protocolVersion: card?.protocolVersion ?? '',
      transport: card?.transport ?? '',
      streaming: card?.streaming ?? false,
      fetchedAt: card?.fetchedAt?.toISOString() ?? null,
    },
    version: agent?.version ?? 0,
    createdAt: agent?.createdAt?.toISOString() ?? null,
    updatedAt: agent?.updatedAt?.toISOString() ?? null,
    createdBy: agent?.createdBy ?? '',
  };
}

const credentialOf = (auth: RemoteAgentAuth | null) => ({
  credentialService: auth?.credentialService ?? '',
  credentialAccount: auth?.credentialAccount ?? '',
});

/**
 * Remote A2A agents of the caller's tenant (docs/remote-agents.md), kept by the orchestrator's
 * RemoteAgentService: register (the card fetched and validated there), list, read, replace, delete.
 */
export function registerRemoteAgentRoutes(router: OperationRouter, options: RemoteAgentRoutesOptions): void {
  const service = (): PromiseClient<remoteAgentsV1.RemoteAgentServiceClient> => {
    if (!options.remoteAgents) throw new HttpError(503, ApiErrorCodes.UNAVAILABLE, 'remote agents are not served here');
    return options.remoteAgents;
  };

  router.add(remoteAgentOperations.createRemoteAgent, async ({ body, request }) => {
    const { remoteAgent } = await service().createRemoteAgent({
      caller: agentCallerOf(request),
      name: body.name,
      url: body.url,
      description: body.description,
      ...credentialOf(body.auth),
    });
    return { status: 201, body: { remoteAgent: remoteAgentBody(remoteAgent) } };
  });

  router.add(remoteAgentOperations.listRemoteAgents, async ({ request }) => {
    const { remoteAgents: list } = await service().listRemoteAgents({ caller: agentCallerOf(request) });
    return { status: 200, body: { remoteAgents: list.map(remoteAgentBody) } };
  });

  router.add(remoteAgentOperations.getRemoteAgent, async ({ params, request }) => {
    const { remoteAgent } = await service().getRemoteAgent({ caller: agentCallerOf(request), name: params.name });
    return { status: 200, body: { remoteAgent: remoteAgentBody(remoteAgent) } };
  });

  router.add(remoteAgentOperations.replaceRemoteAgent, async ({ params, body, request }) => {
    const { remoteAgent } = await service().updateRemoteAgent({
      caller: agentCallerOf(request),
      name: params.name,
      url: body.url,
      description: body.description,
      ...credentialOf(body.auth),
      expectedVersion: body.expectedVersion ?? 0,
    });
    return { status: 200, body: { remoteAgent: remoteAgentBody(remoteAgent) } };
  });

  router.add(remoteAgentOperations.deleteRemoteAgent, async ({ params, request }) => {
    await service().deleteRemoteAgent({ caller: agentCallerOf(request), name: params.name });
    return { status: 204 };
  });
}
