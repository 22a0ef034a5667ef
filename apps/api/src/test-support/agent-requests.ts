import type { LightMyRequestResponse } from 'fastify';
import type { AgentEdge } from './agent-edge-app.js';

/** An answer's JSON, as far as the agent route tests read it (agents, versions, pins, turns, errors). */
interface ReplyJson {
  [key: string]: unknown;
  id: string;
  name: string;
  revision: number;
  activeVersion: number | null;
  latestVersion: number | null;
  deletedAt: string | null;
  spec: { instructions?: string; [key: string]: unknown };
  agents: ReplyJson[];
  versions: ReplyJson[];
  nextPageToken: string | null;
  changes: unknown[];
  agent: unknown;
  model: string;
  version: number | null;
  error: {
    code: string;
    message: string;
    details: { issues: Array<{ field: string; message: string }>; [key: string]: unknown };
  };
}

interface AgentAnswer {
  statusCode: number;
  headers: LightMyRequestResponse['headers'];
  json(): ReplyJson;
}

/** A request to the agent edge app as `auth`, JSON body when given. */
export async function agentCall(
  edge: AgentEdge,
  auth: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<AgentAnswer> {
  const response = await edge.inject({
    method,
    url,
    headers: {
      authorization: auth,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
  return { statusCode: response.statusCode, headers: response.headers, json: () => response.json<ReplyJson>() };
}

/** A spec the api's checks accept, named `name`. */
export function specNamed(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, instructions: `You are ${name}.`, labels: { team: 'billing' }, tools: ['calculator'], ...extra };
}
