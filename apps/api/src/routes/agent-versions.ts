import { z } from 'zod';
import { agentCallerOf } from '../agents/agent-caller.js';
import { AGENT_EXAMPLE, Agent, agentBody, AgentVersion, VERSION_EXAMPLE, versionBody } from '../agents/agent-json.js';
import { AgentPath, AgentVersionPath, VersionNumber, type AgentClient } from '../agents/agent-paths.js';
import { pageOf } from '../agents/page-token.js';
import { EtagHeader, IfMatchHeader, ifMatchOf, withEtag } from '../agents/if-match.js';
import { diffJson } from '../agents/version-diff.js';
import { NextPageToken } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface AgentVersionRoutesOptions {
  agents: AgentClient;
}

const PageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).optional().meta({ description: 'Page size (default 50).' }),
    pageToken: z.string().max(1_000).optional(),
  })
  .strict();

const JsonChange = z.object({
  path: z.string().meta({ description: 'Where, e.g. `labels.team`, `tools[2]`, `labels["app/tier"]`.' }),
  op: z.enum(['add', 'remove', 'replace']),
  before: z.unknown().optional().meta({ description: 'The value in `from` (absent for add).' }),
  after: z.unknown().optional().meta({ description: 'The value in `to` (absent for remove).' }),
});

const VersionDiff = z
  .object({
    agentId: z.string(),
    from: z.number().int().meta({ description: 'The version `against` names.' }),
    to: z.number().int().meta({ description: 'The version of the path.' }),
    changes: z
      .array(JsonChange)
      .meta({ description: 'Leaf by leaf, objects by key, arrays by index; empty when equal.' }),
  })
  .meta({ id: 'AgentVersionDiff' });

const NOT_FOUND = { 404: ['AGENT_NOT_FOUND', 'AGENT_VERSION_NOT_FOUND'], 503: ['UNAVAILABLE'] } as const;
const WRITE_ERRORS = {
  ...NOT_FOUND,
  400: ['INVALID_IF_MATCH'],
  403: ['BUILT_IN_AGENT'],
  410: ['AGENT_DELETED'],
  412: ['STALE_REVISION'],
} as const;
const AgentReply = { description: 'The agent.', body: Agent, headers: EtagHeader, examples: { agent: AGENT_EXAMPLE } };

export const agentVersionOperations = {
  listAgentVersions: defineOperation({
    method: 'GET',
    path: '/v1/agents/{agent}/versions',
    operationId: 'listAgentVersions',
    summary: "An agent's versions, newest first (drafts included)",
    tags: ['agents'],
    access: 'tenant',
    role: 'viewer',
    params: AgentPath,
    query: PageQuery,
    responses: {
      200: {
        description: 'A page of versions.',
        body: z.object({ versions: z.array(AgentVersion), nextPageToken: NextPageToken }),
        examples: { page: { versions: [VERSION_EXAMPLE], nextPageToken: null } },
      },
    },
    errors: { ...NOT_FOUND, 400: ['INVALID_PAGE_TOKEN'] },
  }),
  getAgentVersion: defineOperation({
    method: 'GET',
    path: '/v1/agents/{agent}/versions/{version}',
    operationId: 'getAgentVersion',
    summary: 'One version of an agent',
    tags: ['agents'],
    access: 'tenant',
    role: 'viewer',
    params: AgentVersionPath,
    responses: { 200: { description: 'The version.', body: AgentVersion, examples: { version: VERSION_EXAMPLE } } },
    errors: NOT_FOUND,
  }),
  diffAgentVersions: defineOperation({
    method: 'GET',
    path: '/v1/agents/{agent}/versions/{version}/diff',
    operationId: 'diffAgentVersions',
    summary: "What changed between two versions' specs, by path",
    description:
      'From the version `against` names to the version of the path (`versions/3/diff?against=2`: what v3 changed).',
    tags: ['agents'],
    access: 'tenant',
    role: 'viewer',
    params: AgentVersionPath,
    query: z.object({ against: VersionNumber.meta({ description: 'The other version.' }) }).strict(),
    responses: {
      200: {
        description: 'The changes.',
        body: VersionDiff,
        examples: {
          diff: {
            agentId: AGENT_EXAMPLE.id,
            from: 2,
            to: 3,
            changes: [
              { path: 'labels.team', op: 'replace', before: 'billing', after: 'support' },
              { path: 'tools[2]', op: 'add', after: 'send_email' },
            ],
          },
        },
      },
    },
    errors: NOT_FOUND,
  }),
  publishAgentVersion: defineOperation({
    method: 'POST',
    path: '/v1/agents/{agent}/versions/{version}/publish',
    operationId: 'publishAgentVersion',
    summary: 'Make a version (a draft, or an older one) the active one',
    tags: ['agents'],
    access: 'tenant',
    role: 'developer',
    params: AgentVersionPath,
    headers: IfMatchHeader(false),
    responses: { 200: AgentReply },
    errors: WRITE_ERRORS,
  }),
  rollbackAgent: defineOperation({
    method: 'POST',
    path: '/v1/agents/{agent}/rollback',
    operationId: 'rollbackAgent',
    summary: 'Make the version that was active before the current one active again',
    tags: ['agents'],
    access: 'tenant',
    role: 'developer',
    params: AgentPath,
    headers: IfMatchHeader(false),
    responses: { 200: AgentReply },
    errors: { ...WRITE_ERRORS, 409: ['NOTHING_TO_ROLL_BACK'] },
  }),
};

/** An agent's immutable versions: list, read, diff two, publish one, roll back (docs/agents.md). */
export function registerAgentVersionRoutes(router: OperationRouter, { agents }: AgentVersionRoutesOptions): void {
  router.add(agentVersionOperations.listAgentVersions, async ({ params, query, request }) => {
    const page = await pageOf(
      agents.listAgentVersions({
        caller: agentCallerOf(request),
        agent: params.agent,
        pageSize: query.limit ?? 0,
        pageToken: query.pageToken ?? '',
      }),
    );
    return {
      status: 200,
      body: { versions: page.versions.map(versionBody), nextPageToken: page.nextPageToken || null },
    };
  });

  router.add(agentVersionOperations.getAgentVersion, async ({ params, request }) => {
    const { version } = await agents.getAgentVersion({
      caller: agentCallerOf(request),
      agent: params.agent,
      version: params.version,
    });
    return { status: 200, body: versionBody(version!) };
  });

  router.add(agentVersionOperations.diffAgentVersions, async ({ params, query, request }) => {
    const caller = agentCallerOf(request);
    const [to, from] = await Promise.all(
      [params.version, query.against].map((version) =>
        agents.getAgentVersion({ caller, agent: params.agent, version }),
      ),
    );
    return {
      status: 200,
      body: {
        agentId: to!.version!.agentId,
        from: query.against,
        to: params.version,
        changes: diffJson(JSON.parse(from!.version!.specJson || '{}'), JSON.parse(to!.version!.specJson || '{}')),
      },
    };
  });

  router.add(agentVersionOperations.publishAgentVersion, async ({ params, request, reply }) => {
    const { agent } = await agents.publishAgentVersion({
      caller: agentCallerOf(request),
      agent: params.agent,
      version: params.version,
      ifMatch: ifMatchOf(request) ?? 0,
    });
    withEtag(reply, agent!.revision);
    return { status: 200, body: agentBody(agent!) };
  });

  router.add(agentVersionOperations.rollbackAgent, async ({ params, request, reply }) => {
    const { agent } = await agents.rollbackAgent({
      caller: agentCallerOf(request),
      agent: params.agent,
      ifMatch: ifMatchOf(request) ?? 0,
    });
    withEtag(reply, agent!.revision);
    return { status: 200, body: agentBody(agent!) };
  });
}
