import { ConversationId } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import { z } from 'zod';

/** An MCP tool as tools/list shows it (the fields of the SDK's Tool this api fills). */
interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false };
  outputSchema?: { type: 'object'; [key: string]: unknown };
}

/** One of the caller's agents served as an MCP tool. */
export interface AgentTool {
  tool: McpTool;
  /** The agent the tool's calls run: its id (`agt_…`, `builtin:…`), so a call runs the agent that was listed. */
  agentId: string;
  /**
   * How the run's structured answer becomes `structuredContent`: as it is (`object`: the agent's
   * output schema is an object's), under `value` (`wrapped`: MCP's structured content is always an
   * object), or none (`none`: the agent has no output schema).
   */
  structured: 'object' | 'wrapped' | 'none';
}

/** Who lists: its end user and tier, for the agents' `access` rules (the tier as the orchestrator reads it). */
export interface ToolCaller {
  subject: string;
  tier: string;
}

interface AgentSpecView {
  description?: string;
  outputSchema?: Record<string, unknown>;
  access?: { tiers?: string[]; subjects?: string[] };
}

const MESSAGE_DESCRIPTION = 'The message to the agent.';
const CONVERSATION_DESCRIPTION =
  "Continue this conversation (a conversationId from an earlier result of this server's tools); omitted: a new conversation.";

/** The arguments of every agent's tool. */
export const AgentToolArguments = z
  .object({
    message: z.string().min(1, 'message: send a non-empty message'),
    conversationId: ConversationId.optional(),
  })
  .strict();
export type AgentToolArguments = z.infer<typeof AgentToolArguments>;

const INPUT_SCHEMA: McpTool['inputSchema'] = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, description: MESSAGE_DESCRIPTION },
    conversationId: { type: 'string', description: CONVERSATION_DESCRIPTION },
  },
  required: ['message'],
  additionalProperties: false,
};

function specOf(agent: agentsV1.Agent): AgentSpecView {
  return agent.specJson ? (JSON.parse(agent.specJson) as AgentSpecView) : {};
}

/** Whether the caller passes the agent's `access` rules (tenants are the orchestrator's: it lists only the tenant's own). */
function usableBy(spec: AgentSpecView, caller: ToolCaller): boolean {
  const access = spec.access;
  return (
    (!access?.tiers || access.tiers.includes(caller.tier)) &&
    (!access?.subjects || access.subjects.includes(caller.subject))
  );
}

/** The tool's output schema, and how the answer is carried, for an agent's output schema. */
function outputOf(schema: Record<string, unknown> | undefined): Pick<AgentTool, 'structured'> & {
  outputSchema?: McpTool['outputSchema'];
} {
  if (!schema) return { structured: 'none' };
  if (schema['type'] === 'object') return { structured: 'object', outputSchema: { ...schema, type: 'object' } };
  return {
    structured: 'wrapped',
    outputSchema: { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false },
  };
}

function descriptionOf(agent: agentsV1.Agent, spec: AgentSpecView): string {
  const what = spec.description?.trim() || `The agent '${agent.name}'${agent.builtIn ? ' (built in)' : ''}.`;
  return `${what} Runs the agent on the platform (its own tools, approvals and memory) and returns its answer, with the conversationId to continue.`;
}

/**
 * The agents a caller may talk to, as MCP tools (docs/protocols.md#mcp). A tool is named after its
 * agent: agent names (`[A-Za-z0-9][A-Za-z0-9._-]{0,63}`) are valid MCP tool names as they are. A
 * name means one agent: a tenant agent wins over a built-in one of the same name (as everywhere on
 * the platform), so the shadowed built-in is not listed. Deleted agents, agents with no active
 * version and agents the caller's tier or user may not use are left out.
 */
export function agentTools(agents: readonly agentsV1.Agent[], caller: ToolCaller): AgentTool[] {
  const tenantNames = new Set(agents.filter((a) => !a.builtIn).map((a) => a.name));
  const tools: AgentTool[] = [];
  const taken = new Set<string>();
  for (const agent of agents) {
    if (agent.deletedAt || (!agent.builtIn && !agent.activeVersion)) continue;
    if (agent.builtIn && tenantNames.has(agent.name)) continue;
    if (taken.has(agent.name)) continue;
    const spec = specOf(agent);
    if (!usableBy(spec, caller)) continue;
    taken.add(agent.name);
    const { structured, outputSchema } = outputOf(spec.outputSchema);
    tools.push({
      agentId: agent.agentId,
      structured,
      tool: {
        name: agent.name,
        title: agent.name,
        description: descriptionOf(agent, spec),
        inputSchema: INPUT_SCHEMA,
        ...(outputSchema ? { outputSchema } : {}),
      },
    });
  }
  return tools;
}

/** The structured content of a tool's answer: the run's `output` as its schema says it is carried. */
export function structuredContentOf(tool: AgentTool, output: unknown): Record<string, unknown> | undefined {
  if (tool.structured === 'none' || output === undefined) return undefined;
  if (tool.structured === 'wrapped') return { value: output };
  return output !== null && typeof output === 'object' && !Array.isArray(output)
    ? (output as Record<string, unknown>)
    : { value: output };
}
