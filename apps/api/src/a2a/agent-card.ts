import type { AgentCard } from '@a2a-js/sdk';
import { AgentSpec } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import type { FastifyRequest } from 'fastify';
import type { AgentClient } from '../agents/agent-paths.js';
import { agentCallerOf } from '../agents/agent-caller.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/** The agent an A2A endpoint serves: how its path names it, and who it is. */
export interface A2aAgent {
  /** The path's `{agent}` (an id or a name), as the card's URL repeats it. */
  ref: string;
  agentId: string;
  name: string;
  description: string;
  labels: Record<string, string>;
  version: number;
  /** Whether its answers are structured (an output schema): the answer is then sent whole, as data. */
  structured: boolean;
}

/** The agent of the token's tenant that `ref` names; a deleted one (or another tenant's) is not found. */
export async function a2aAgentOf(agents: AgentClient, request: FastifyRequest, ref: string): Promise<A2aAgent> {
  const { agent } = await agents.getAgent({ caller: agentCallerOf(request), agent: ref });
  if (!agent || agent.deletedAt) throw new HttpError(404, ApiErrorCodes.AGENT_NOT_FOUND, `no agent '${ref}'`);
  return describedAgent(ref, agent);
}

function describedAgent(ref: string, agent: agentsV1.Agent): A2aAgent {
  const spec = AgentSpec.safeParse(JSON.parse(agent.specJson || '{}'));
  return {
    ref,
    agentId: agent.agentId,
    name: agent.name,
    description: spec.success ? spec.data.description : '',
    labels: spec.success ? spec.data.labels : {},
    version: agent.activeVersion,
    structured: spec.success && spec.data.outputSchema !== undefined,
  };
}

/** Where the api is reached: the configured public URL, else the request's own scheme and host. */
export function publicBaseUrl(request: FastifyRequest, configured: string | undefined): string {
  return (configured ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/** The JSON-RPC endpoint of an agent. */
export function a2aEndpointPath(ref: string): string {
  return `/v1/agents/${encodeURIComponent(ref)}/a2a`;
}

/** Media types the agent takes and gives: text, and JSON (a data part). */
const MODES = ['text/plain', 'application/json'];

/**
 * An agent's A2A card (protocol 1.0): its JSON-RPC endpoint, streaming and push notifications,
 * bearer tokens (the platform's JWTs or API keys), and one skill, the agent itself, described by
 * its spec's description and labels.
 */
export function agentCardOf(agent: A2aAgent, baseUrl: string, pushNotifications: boolean): AgentCard {
  const description = agent.description || `The ${agent.name} agent.`;
  return {
    name: agent.name,
    description,
    supportedInterfaces: [
      {
        url: `${baseUrl}${a2aEndpointPath(agent.ref)}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        tenant: '',
      },
    ],
    provider: { organization: 'Agent platform', url: baseUrl },
    version: String(agent.version),
    capabilities: { streaming: true, pushNotifications, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: "The platform's token (a JWT naming the tenant) or an API key.",
            scheme: 'Bearer',
            bearerFormat: 'JWT',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [
      {
        id: agent.agentId,
        name: agent.name,
        description,
        tags: Object.entries(agent.labels).map(([key, value]) => `${key}=${value}`),
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
