import { AgentCard } from '@a2a-js/sdk';
import { z } from 'zod';
import { a2aAgentOf, agentCardOf, publicBaseUrl } from '../a2a/agent-card.js';
import type { AgentClient } from '../agents/agent-paths.js';
import { AgentPath } from '../agents/agent-paths.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface A2aCardRoutesOptions {
  agents: AgentClient;
  /** The api's public URL, as cards name their endpoints; unset: the request's own scheme and host. */
  publicUrl?: string | undefined;
  pushNotifications: boolean;
}

/** The agent the well-known card at the root describes: the tenant's `default` agent (its own, else the built-in one). */
export const DEFAULT_A2A_AGENT = 'default';

/** An A2A agent card (protocol 1.0, ProtoJSON as the SDK's card resolver reads it). */
const AgentCardBody = z
  .looseObject({
    name: z.string(),
    description: z.string(),
    supportedInterfaces: z.array(
      z.looseObject({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() }),
    ),
    version: z.string(),
    capabilities: z.looseObject({ streaming: z.boolean().optional(), pushNotifications: z.boolean().optional() }),
    securitySchemes: z.record(z.string(), z.unknown()),
    skills: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string() })),
  })
  .meta({
    id: 'A2aAgentCard',
    description:
      "An A2A agent card (A2A 1.0): the agent's JSON-RPC endpoint, streaming and push notifications, bearer tokens, and one skill, the agent.",
  });

const CARD_EXAMPLE = AgentCard.toJSON(
  agentCardOf(
    {
      ref: 'support-bot',
      agentId: 'agt_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
      name: 'support-bot',
      description: 'The billing desk.',
      labels: { team: 'billing' },
      version: 3,
      structured: false,
    },
    'https://api.example.com',
    true,
  ),
);

export const a2aCardOperations = {
  getA2aAgentCard: defineOperation({
    method: 'GET',
    path: '/v1/agents/{agent}/a2a/.well-known/agent-card.json',
    operationId: 'getA2aAgentCard',
    summary: "A2A: an agent's card",
    description:
      "The A2A agent card of one agent (docs/protocols.md#a2a); its JSON-RPC endpoint is `/v1/agents/{agent}/a2a`. With the SDK: `new ClientFactory(…).createFromUrl('<api>/v1/agents/{agent}/a2a/.well-known/agent-card.json', '')`.",
    tags: ['a2a'],
    access: 'tenant',
    role: 'viewer',
    params: AgentPath,
    responses: { 200: { description: 'The agent card.', body: AgentCardBody, examples: { card: CARD_EXAMPLE } } },
    errors: { 404: ['AGENT_NOT_FOUND'] },
  }),
  getA2aDefaultAgentCard: defineOperation({
    method: 'GET',
    path: '/.well-known/agent-card.json',
    operationId: 'getA2aDefaultAgentCard',
    summary: "A2A: the card of the tenant's default agent",
    description:
      "The well-known A2A agent card: the card of the token's tenant's `default` agent (its own agent of that name, else the built-in one); every other agent has its own card under `/v1/agents/{agent}/a2a/`. The tenant comes from the token, as everywhere: without one the card is 401.",
    tags: ['a2a'],
    access: 'tenant',
    role: 'viewer',
    responses: { 200: { description: 'The agent card.', body: AgentCardBody, examples: { card: CARD_EXAMPLE } } },
    errors: { 404: ['AGENT_NOT_FOUND'] },
  }),
};

/** A2A agent cards (docs/protocols.md#a2a): one per agent, and the well-known one of the default agent. */
export function registerA2aCardRoutes(router: OperationRouter, options: A2aCardRoutesOptions): void {
  const card = async (request: Parameters<typeof a2aAgentOf>[1], ref: string) => {
    const agent = await a2aAgentOf(options.agents, request, ref);
    return AgentCard.toJSON(
      agentCardOf(agent, publicBaseUrl(request, options.publicUrl), options.pushNotifications),
    ) as z.input<typeof AgentCardBody>;
  };
  router.add(a2aCardOperations.getA2aAgentCard, async ({ params, request }) => ({
    status: 200,
    body: await card(request, params.agent),
  }));
  router.add(a2aCardOperations.getA2aDefaultAgentCard, async ({ request }) => ({
    status: 200,
    body: await card(request, DEFAULT_A2A_AGENT),
  }));
}
