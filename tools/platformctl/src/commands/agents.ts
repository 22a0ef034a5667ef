import type { ApiClient } from '../api-client.js';
import { fields, table } from '../format.js';

interface Agent {
  id: string;
  name: string;
  builtIn: boolean;
  activeVersion: number | null;
  latestVersion: number | null;
  revision: number;
  updatedAt: string | null;
  deletedAt: string | null;
  createdBy: string | null;
  spec: { description?: string; labels?: Record<string, string>; model?: string } | null;
}

interface AgentVersion {
  version: number;
  createdAt: string | null;
  createdBy: string | null;
  active: boolean;
  publishedAt: string | null;
  spec: Record<string, unknown>;
}

interface Pin {
  conversationId: string;
  agentId: string;
  version: number | null;
  pinnedAt: string | null;
  pinnedBy: string | null;
}

type Result = { json: unknown; text: string };

const path = (agent: string, rest = ''): string => `v1/agents/${encodeURIComponent(agent)}${rest}`;
const labelsOf = (labels: Record<string, string> | undefined): string =>
  Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

function agentText(agent: Agent, etag: string | null): string {
  return fields([
    ['agent', agent.id],
    ['name', agent.name],
    ['built in', agent.builtIn],
    ['active version', agent.activeVersion],
    ['latest version', agent.latestVersion],
    ['etag', etag ?? `"${agent.revision}"`],
    ['model', agent.spec?.model],
    ['labels', labelsOf(agent.spec?.labels)],
    ['updated', agent.updatedAt],
    ['deleted', agent.deletedAt],
    ['created by', agent.createdBy],
  ]);
}

async function agentAnswer(answer: Promise<{ body: Agent; headers: Headers }>): Promise<Result> {
  const { body, headers } = await answer;
  return { json: body, text: agentText(body, headers.get('etag')) };
}

/** `agents list`: the tenant's agents and the built-in ones (every page). */
export async function listAgents(
  api: ApiClient,
  filters: { search?: string | undefined; labels: readonly string[]; includeDeleted: boolean },
): Promise<Result> {
  const agents: Agent[] = [];
  let pageToken: string | undefined;
  do {
    const page = await api.get<{ agents: Agent[]; nextPageToken: string | null }>('v1/agents', {
      limit: 200,
      pageToken,
      search: filters.search,
      label: filters.labels.length ? filters.labels : undefined,
      includeDeleted: filters.includeDeleted ? 'true' : undefined,
    });
    agents.push(...page.agents);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return {
    json: { agents },
    text: table(
      ['NAME', 'AGENT', 'ACTIVE', 'LATEST', 'BUILT IN', 'MODEL', 'LABELS', 'DELETED'],
      agents.map((a) => [
        a.name,
        a.id,
        a.activeVersion,
        a.latestVersion,
        a.builtIn ? 'yes' : 'no',
        a.spec?.model,
        labelsOf(a.spec?.labels),
        a.deletedAt,
      ]),
    ),
  };
}

/** `agents get <agent>`: one agent (its active spec with `--json`). */
export function getAgent(api: ApiClient, agent: string): Promise<Result> {
  return agentAnswer(api.request<Agent>('GET', path(agent)));
}

/** `agents create -f spec.json [--draft]`. */
export function createAgent(api: ApiClient, spec: unknown, draft: boolean): Promise<Result> {
  return agentAnswer(api.request<Agent>('POST', 'v1/agents', { body: spec, query: { draft: draft || undefined } }));
}

/**
 * `agents update <agent> -f spec.json [--if-match etag] [--draft]`: a new version. Without
 * `--if-match` it reads the agent's ETag first, so the write fails (412) only if someone else
 * wrote in between.
 */
export async function updateAgent(
  api: ApiClient,
  agent: string,
  spec: unknown,
  options: { ifMatch?: string | undefined; draft: boolean },
): Promise<Result> {
  const ifMatch = options.ifMatch ?? (await api.request<Agent>('GET', path(agent))).headers.get('etag') ?? '';
  return agentAnswer(
    api.request<Agent>('PUT', path(agent), {
      body: spec,
      query: { draft: options.draft || undefined },
      headers: { 'if-match': ifMatch },
    }),
  );
}

const ifMatchHeader = (ifMatch: string | undefined): Record<string, string> => (ifMatch ? { 'if-match': ifMatch } : {});

/** `agents delete <agent> [--if-match etag]`. */
export function deleteAgent(api: ApiClient, agent: string, ifMatch: string | undefined): Promise<Result> {
  return agentAnswer(api.request<Agent>('DELETE', path(agent), { headers: ifMatchHeader(ifMatch) }));
}

/** `agents versions <agent>`: newest first (one page of `--limit`). */
export async function listVersions(api: ApiClient, agent: string, limit: number): Promise<Result> {
  const page = await api.get<{ versions: AgentVersion[] }>(path(agent, '/versions'), { limit });
  return {
    json: page,
    text: table(
      ['VERSION', 'ACTIVE', 'CREATED', 'BY', 'PUBLISHED'],
      page.versions.map((v) => [v.version, v.active ? 'yes' : '', v.createdAt, v.createdBy, v.publishedAt]),
    ),
  };
}

/** `agents version <agent> <n>`: one version, its spec as JSON. */
export async function showVersion(api: ApiClient, agent: string, version: number): Promise<Result> {
  const v = await api.get<AgentVersion>(path(agent, `/versions/${version}`));
  return {
    json: v,
    text: `${fields([
      ['version', v.version],
      ['active', v.active],
      ['created', v.createdAt],
      ['created by', v.createdBy],
      ['published', v.publishedAt],
    ])}${JSON.stringify(v.spec, null, 2)}\n`,
  };
}

interface Change {
  path: string;
  op: 'add' | 'remove' | 'replace';
  before?: unknown;
  after?: unknown;
}

/** `agents diff <agent> <a> <b>`: what version b changed from version a, one line per path. */
export async function diffVersions(api: ApiClient, agent: string, from: number, to: number): Promise<Result> {
  const diff = await api.get<{ changes: Change[] }>(path(agent, `/versions/${to}/diff`), { against: from });
  const line = (c: Change): string =>
    c.op === 'add'
      ? `+ ${c.path}: ${JSON.stringify(c.after)}`
      : c.op === 'remove'
        ? `- ${c.path}: ${JSON.stringify(c.before)}`
        : `~ ${c.path}: ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`;
  return {
    json: diff,
    text: diff.changes.length ? `${diff.changes.map(line).join('\n')}\n` : `v${from} and v${to} hold the same spec\n`,
  };
}

/** `agents publish <agent> <n> [--if-match etag]`: make version n the active one. */
export function publishVersion(
  api: ApiClient,
  agent: string,
  version: number,
  ifMatch: string | undefined,
): Promise<Result> {
  return agentAnswer(
    api.request<Agent>('POST', path(agent, `/versions/${version}/publish`), { headers: ifMatchHeader(ifMatch) }),
  );
}

/** `agents rollback <agent> [--if-match etag]`: the version active before the current one, active again. */
export function rollbackAgent(api: ApiClient, agent: string, ifMatch: string | undefined): Promise<Result> {
  return agentAnswer(api.request<Agent>('POST', path(agent, '/rollback'), { headers: ifMatchHeader(ifMatch) }));
}

function pinText(pin: Pin): string {
  return fields([
    ['conversation', pin.conversationId],
    ['agent', pin.agentId],
    ['version', pin.version ?? 'the active one'],
    ['pinned', pin.pinnedAt],
    ['pinned by', pin.pinnedBy],
  ]);
}

const pinPath = (conversation: string): string => `v1/conversations/${encodeURIComponent(conversation)}/agent`;

/** `agents pin <agent> <conversation> [--version n]`: the conversation runs under that agent (version). */
export async function pinConversation(
  api: ApiClient,
  agent: string,
  conversation: string,
  version: number | undefined,
): Promise<Result> {
  const { body } = await api.request<Pin>('PUT', pinPath(conversation), {
    body: { agent, ...(version === undefined ? {} : { version }) },
  });
  return { json: body, text: pinText(body) };
}

/** `agents pinned <conversation>`: the conversation's pin. */
export async function showPin(api: ApiClient, conversation: string): Promise<Result> {
  const body = await api.get<Pin>(pinPath(conversation));
  return { json: body, text: pinText(body) };
}

/** `agents unpin <conversation>`. */
export async function unpinConversation(api: ApiClient, conversation: string): Promise<Result> {
  const { body } = await api.request<Pin>('DELETE', pinPath(conversation));
  return { json: body, text: pinText(body) };
}
