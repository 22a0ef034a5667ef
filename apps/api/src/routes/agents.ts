import { AgentSpec } from '@platform/contracts';
import { z } from 'zod';
import { agentCallerOf } from '../agents/agent-caller.js';
import { AGENT_EXAMPLE, Agent, agentBody, SPEC_EXAMPLE } from '../agents/agent-json.js';
import { AgentPath, DraftQuery, type AgentClient } from '../agents/agent-paths.js';
import { pageOf } from '../agents/page-token.js';
import { EtagHeader, IfMatchHeader, ifMatchOf, requiredIfMatchOf, withEtag } from '../agents/if-match.js';
import { ApiErrorCodes } from '../error-codes.js';
import { NextPageToken } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface AgentRoutesOptions {
  agents: AgentClient;
}

/** The body of POST and PUT: a whole agent spec, checked here and again by the orchestrator (tier rules, roles). */
const AgentSpecBody = AgentSpec.meta({
  id: 'AgentSpec',
  description:
    "An agent (docs/agents.md): its name and labels, instructions, model and parameters, tools, delegation, memory and loop settings, an output JSON Schema, who may use it and what a run may override. Checked against the tenant's tier too (403 NOT_PERMITTED_BY_TIER).",
});
const INVALID_AGENT_SPEC = { body: { code: ApiErrorCodes.INVALID_AGENT_SPEC, issues: true } } as const;

const LabelFilter = z.string().regex(/^[a-z0-9][a-z0-9._/-]{0,62}=.{0,256}$/s, 'a label filter is `key=value`');

const ListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).optional().meta({ description: 'Page size (default 50).' }),
    pageToken: z.string().max(1_000).optional(),
    search: z.string().min(1).max(200).optional().meta({ description: 'In names and descriptions, any case.' }),
    label: z
      .union([LabelFilter, z.array(LabelFilter).max(32)])
      .optional()
      .meta({ description: '`key=value`; repeat it for several, which must all match.' }),
    includeDeleted: z.enum(['true', 'false']).default('false'),
  })
  .strict();

const AgentReply = (description: string) => ({
  description,
  body: Agent,
  headers: EtagHeader,
  examples: { agent: AGENT_EXAMPLE },
});
const WRITE_ERRORS = {
  400: ['INVALID_AGENT_SPEC'],
  403: ['NOT_PERMITTED_BY_TIER'],
  409: ['AGENT_NAME_TAKEN'],
  429: ['QUOTA_EXCEEDED'],
  503: ['UNAVAILABLE'],
} as const;

export const agentOperations = {
  createAgent: defineOperation({
    method: 'POST',
    path: '/v1/agents',
    operationId: 'createAgent',
    summary: 'Create an agent (its version 1)',
    description: 'Version 1 is published (active) unless `?draft=true`. Quota `agents` (429 QUOTA_EXCEEDED).',
    tags: ['agents'],
    access: 'tenant',
    role: 'developer',
    query: DraftQuery,
    body: AgentSpecBody,
    invalid: INVALID_AGENT_SPEC,
    bodyExamples: { support: SPEC_EXAMPLE },
    responses: { 201: AgentReply('Created.') },
    errors: WRITE_ERRORS,
  }),
  listAgents: defineOperation({
    method: 'GET',
    path: '/v1/agents',
    operationId: 'listAgents',
    summary: "The tenant's agents and the built-in ones it may use, by name",
    tags: ['agents'],
    access: 'tenant',
    role: 'viewer',
    query: ListQuery,
    responses: {
      200: {
        description: 'A page of agents.',
        body: z.object({ agents: z.array(Agent), nextPageToken: NextPageToken }),
        examples: { page: { agents: [AGENT_EXAMPLE], nextPageToken: null } },
      },
    },
    errors: { 400: ['INVALID_PAGE_TOKEN'], 503: ['UNAVAILABLE'] },
  }),
  getAgent: defineOperation({
    method: 'GET',
    path: '/v1/agents/{agent}',
    operationId: 'getAgent',
    summary: 'An agent, by id or name',
    tags: ['agents'],
    access: 'tenant',
    role: 'viewer',
    params: AgentPath,
    responses: { 200: AgentReply('The agent.') },
    errors: { 404: ['AGENT_NOT_FOUND'], 503: ['UNAVAILABLE'] },
  }),
  updateAgent: defineOperation({
    method: 'PUT',
    path: '/v1/agents/{agent}',
    operationId: 'updateAgent',
    summary: 'Write a new version of an agent from a whole spec',
    description:
      'Every update is a new immutable version, published unless `?draft=true`. `If-Match` is required (the ETag of the agent as read). Quota `agent_versions`.',
    tags: ['agents'],
    access: 'tenant',
    role: 'developer',
    params: AgentPath,
    query: DraftQuery,
    headers: IfMatchHeader(true),
    body: AgentSpecBody,
    invalid: INVALID_AGENT_SPEC,
    bodyExamples: { support: SPEC_EXAMPLE },
    responses: { 200: AgentReply('The agent with its new version.') },
    errors: {
      ...WRITE_ERRORS,
      400: ['INVALID_AGENT_SPEC', 'INVALID_IF_MATCH'],
      403: ['NOT_PERMITTED_BY_TIER', 'BUILT_IN_AGENT'],
      404: ['AGENT_NOT_FOUND'],
      410: ['AGENT_DELETED'],
      412: ['STALE_REVISION'],
      428: ['PRECONDITION_REQUIRED'],
    },
  }),
  deleteAgent: defineOperation({
    method: 'DELETE',
    path: '/v1/agents/{agent}',
    operationId: 'deleteAgent',
    summary: 'Delete an agent: it answers no new messages; its versions and runs stay readable',
    tags: ['agents'],
    access: 'tenant',
    role: 'developer',
    params: AgentPath,
    headers: IfMatchHeader(false),
    responses: { 200: AgentReply('The agent, with `deletedAt`.') },
    errors: {
      400: ['INVALID_IF_MATCH'],
      403: ['BUILT_IN_AGENT'],
      404: ['AGENT_NOT_FOUND'],
      412: ['STALE_REVISION'],
      503: ['UNAVAILABLE'],
    },
  }),
};

/** `?label=` as the agent service wants it: a list. */
function labelsOf(label: string | string[] | undefined): string[] {
  return label === undefined ? [] : Array.isArray(label) ? label : [label];
}

/**
 * Agents (docs/agents.md), kept by the orchestrator's AgentService: create, list, read, write a
 * new version, delete. Another tenant's agent is 404 exactly like a missing one; every answer
 * that returns an agent carries its `ETag`.
 */
export function registerAgentRoutes(router: OperationRouter, { agents }: AgentRoutesOptions): void {
  router.add(agentOperations.createAgent, async ({ query, body, request, reply }) => {
    const { agent } = await agents.createAgent({
      caller: agentCallerOf(request),
      specJson: JSON.stringify(body),
      draft: query.draft === 'true',
    });
    withEtag(reply, agent!.revision);
    return { status: 201, body: agentBody(agent!) };
  });

  router.add(agentOperations.listAgents, async ({ query, request }) => {
    const page = await pageOf(
      agents.listAgents({
        caller: agentCallerOf(request),
        pageSize: query.limit ?? 0,
        pageToken: query.pageToken ?? '',
        search: query.search ?? '',
        labels: labelsOf(query.label),
        includeDeleted: query.includeDeleted === 'true',
      }),
    );
    return { status: 200, body: { agents: page.agents.map(agentBody), nextPageToken: page.nextPageToken || null } };
  });

  router.add(agentOperations.getAgent, async ({ params, request, reply }) => {
    const { agent } = await agents.getAgent({ caller: agentCallerOf(request), agent: params.agent });
    withEtag(reply, agent!.revision);
    return { status: 200, body: agentBody(agent!) };
  });

  router.add(agentOperations.updateAgent, async ({ params, query, body, request, reply }) => {
    const ifMatch = requiredIfMatchOf(request);
    const { agent } = await agents.updateAgent({
      caller: agentCallerOf(request),
      agent: params.agent,
      specJson: JSON.stringify(body),
      ifMatch,
      draft: query.draft === 'true',
    });
    withEtag(reply, agent!.revision);
    return { status: 200, body: agentBody(agent!) };
  });

  router.add(agentOperations.deleteAgent, async ({ params, request, reply }) => {
    const { agent } = await agents.deleteAgent({
      caller: agentCallerOf(request),
      agent: params.agent,
      ifMatch: ifMatchOf(request) ?? 0,
    });
    withEtag(reply, agent!.revision);
    return { status: 200, body: agentBody(agent!) };
  });
}
