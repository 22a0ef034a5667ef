// Every call the console makes to the platform's public API, in one place, through a client typed
// from the api's OpenAPI document (openapi-fetch over the generated `paths`).
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../gen/platform-api.js';
import { ApiError } from './api-error.js';
import { callerHeaders, openEventStream, type Caller } from './http-client.js';
import type { ConsoleConfig, RunDetail, TurnAnswer } from './types.js';
import type { TenantRole } from '../lib/roles.js';

/** What a message sent while a run is in flight does to it (the api's `multitask`). */
export type MultitaskChoice = 'enqueue' | 'reject' | 'interrupt' | 'rollback' | 'steer';

/** What an openapi-fetch call answers. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body, or the api's error as an {@link ApiError}. */
async function bodyOf<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', (error as Error).message);
  }
  if (answer.response.ok) return answer.data as T;
  const body = (answer.error ?? {}) as { error?: { code?: string; message?: string; details?: unknown } };
  throw new ApiError(
    answer.response.status,
    body.error?.code ?? `HTTP_${answer.response.status}`,
    body.error?.message ?? answer.response.statusText,
    body.error?.details,
  );
}

/** The typed client of one caller: its token on every call, `Platform-Tenant` on an operator's reads. */
function clientFor(caller: Caller): Client<paths> {
  const client = createClient<paths>({ baseUrl: '' });
  client.use({
    onRequest({ request }) {
      for (const [name, value] of Object.entries(callerHeaders(caller, request.method)))
        request.headers.set(name, value);
      return request;
    },
  });
  return client;
}

/** The answer's body and its `ETag` (an agent's, for the next write's `If-Match`). */
async function bodyAndEtag<T>(call: Promise<Answer<T>>): Promise<{ body: T; etag: string }> {
  let etag = '';
  const body = await bodyOf(
    call.then((answer) => {
      etag = answer.response.headers.get('etag') ?? '';
      return answer;
    }),
  );
  return { body, etag };
}

/** An AgentSpec as the editor holds it (the api checks it). */
type SpecBody = paths['/v1/agents']['post']['requestBody']['content']['application/json'];

/** The filters and page of `GET /v1/runs`. */
export type RunListQuery = NonNullable<paths['/v1/runs']['get']['parameters']['query']>;
/** The filters and page of `GET /v1/conversations`. */
type ConversationListQuery = NonNullable<paths['/v1/conversations']['get']['parameters']['query']>;
/** What `PATCH /v1/conversations/{conversationId}` writes. */
type ConversationChanges = NonNullable<
  paths['/v1/conversations/{conversationId}']['patch']['requestBody']
>['content']['application/json'];
type FactQuery = NonNullable<paths['/v1/memory/facts']['get']['parameters']['query']>;

/** The platform API as the signed-in user (or an operator viewing a tenant) calls it. */
export class PlatformApi {
  private readonly client: Client<paths>;

  constructor(readonly caller: Caller) {
    this.client = clientFor(caller);
  }

  listConversations(query: ConversationListQuery) {
    return bodyOf(this.client.GET('/v1/conversations', { params: { query } }));
  }
  getConversation(conversationId: string) {
    return bodyOf(this.client.GET('/v1/conversations/{conversationId}', { params: { path: { conversationId } } }));
  }
  updateConversation(conversationId: string, body: ConversationChanges) {
    return bodyOf(
      this.client.PATCH('/v1/conversations/{conversationId}', { params: { path: { conversationId } }, body }),
    );
  }
  listRuns(query: RunListQuery) {
    return bodyOf(this.client.GET('/v1/runs', { params: { query } }));
  }
  async getRun(runId: string): Promise<RunDetail> {
    return (await bodyOf(this.client.GET('/v1/runs/{runId}', { params: { path: { runId } } }))) as RunDetail;
  }
  /** The webhook deliveries of a run's end (docs/conversations.md). */
  listRunWebhookDeliveries(runId: string) {
    return bodyOf(this.client.GET('/v1/runs/{runId}/webhook-deliveries', { params: { path: { runId } } }));
  }
  /** A finished run again from step `fromStep`, as a new run (docs/conversations.md#replaying-a-run). */
  async replayRun(
    runId: string,
    body: { fromStep: number; agentVersion?: number; model?: string },
  ): Promise<TurnAnswer & { replayOf: string; replayFromStep: number }> {
    // Not streamed: the answer is the replay's turn response.
    return (await bodyOf(
      this.client.POST('/v1/runs/{runId}/replays', { params: { path: { runId } }, body }),
    )) as TurnAnswer & {
      replayOf: string;
      replayFromStep: number;
    };
  }
  cancelRun(runId: string) {
    return bodyOf(this.client.DELETE('/v1/runs/{runId}', { params: { path: { runId } } }));
  }
  /** The raw SSE response of a run's events (after `afterId`), for the event-stream reader. */
  runEvents(runId: string, afterId: number, signal: AbortSignal): Promise<Response> {
    return openEventStream(this.caller, 'GET', `/v1/runs/${encodeURIComponent(runId)}/events`, {
      signal,
      headers: afterId > 0 ? { 'last-event-id': String(afterId) } : {},
    });
  }
  history(conversationId: string, afterSeq = 0, limit = 200) {
    return bodyOf(
      this.client.GET('/v1/conversations/{conversationId}/messages', {
        params: { path: { conversationId }, query: { afterSeq, limit } },
      }),
    );
  }
  /** Sends a message and answers the SSE response of its turn (header `x-run-id` names the run). */
  /** Sends a message and opens its turn's event stream; `multitask`: what it does to a run in flight (docs/conversations.md). */
  sendMessageStreamed(
    conversationId: string,
    content: string,
    signal: AbortSignal,
    multitask?: MultitaskChoice,
  ): Promise<Response> {
    return openEventStream(this.caller, 'POST', `/v1/conversations/${encodeURIComponent(conversationId)}/messages`, {
      body: { content, ...(multitask ? { multitask } : {}) },
      signal,
    });
  }
  listApprovals() {
    return bodyOf(this.client.GET('/v1/approvals'));
  }
  decideApproval(approvalId: string, decision: 'approve' | 'edit' | 'cancel', changes?: Record<string, unknown>) {
    return bodyOf(
      this.client.POST('/v1/approvals/{approvalId}', {
        params: { path: { approvalId } },
        body: { decision, ...(changes ? { changes } : {}) },
      }),
    );
  }
  listTools() {
    return bodyOf(this.client.GET('/v1/tools'));
  }
  /** Runs one call of a tool under the caller's tenant (the same approval rules as a model's call). */
  tryTool(name: string, args: Record<string, unknown>) {
    return bodyOf(
      this.client.POST('/v1/tools/{name}/calls', { params: { path: { name } }, body: { arguments: args } }),
    );
  }
  listTasks() {
    return bodyOf(this.client.GET('/v1/tasks'));
  }
  taskFires(taskId: string) {
    return bodyOf(
      this.client.GET('/v1/tasks/{taskId}/fires', { params: { path: { taskId }, query: { pageSize: 20 } } }),
    );
  }
  changeTask(taskId: string, action: 'pause' | 'resume') {
    const path = action === 'pause' ? '/v1/tasks/{taskId}/pause' : '/v1/tasks/{taskId}/resume';
    return bodyOf(this.client.POST(path, { params: { path: { taskId } } }));
  }
  runTaskNow(taskId: string) {
    return bodyOf(this.client.POST('/v1/tasks/{taskId}/run', { params: { path: { taskId } } }));
  }
  listFacts(query: FactQuery) {
    return bodyOf(this.client.GET('/v1/memory/facts', { params: { query } }));
  }
  forgetFact(factId: string, reason: string) {
    return bodyOf(this.client.DELETE('/v1/memory/facts/{factId}', { params: { path: { factId }, query: { reason } } }));
  }
  listCredentials() {
    return bodyOf(this.client.GET('/v1/credentials'));
  }
  listModelConnections() {
    return bodyOf(this.client.GET('/v1/model-connections'));
  }
  createModelConnection(body: { name: string; baseUrl: string; apiKey: string; models: string[] }) {
    return bodyOf(this.client.POST('/v1/model-connections', { body }));
  }
  /** Replaces a connection's URL and models; with `apiKey` it also rotates the key. */
  replaceModelConnection(
    name: string,
    body: { baseUrl: string; models: string[]; apiKey?: string; expectedVersion?: number },
  ) {
    return bodyOf(this.client.PUT('/v1/model-connections/{name}', { params: { path: { name } }, body }));
  }
  deleteConversation(conversationId: string) {
    return bodyOf(this.client.DELETE('/v1/conversations/{conversationId}', { params: { path: { conversationId } } }));
  }
  getConversationDeletion(deletionId: string) {
    return bodyOf(this.client.GET('/v1/conversation-deletions/{deletionId}', { params: { path: { deletionId } } }));
  }
  deleteModelConnection(name: string) {
    return bodyOf(this.client.DELETE('/v1/model-connections/{name}', { params: { path: { name } } }));
  }
  listRemoteAgents() {
    return bodyOf(this.client.GET('/v1/remote-agents'));
  }
  /** Registers a remote A2A agent: the orchestrator fetches and validates its card first. */
  createRemoteAgent(body: {
    name: string;
    url: string;
    description: string;
    auth: { credentialService: string; credentialAccount?: string } | null;
  }) {
    return bodyOf(this.client.POST('/v1/remote-agents', { body }));
  }
  deleteRemoteAgent(name: string) {
    return bodyOf(this.client.DELETE('/v1/remote-agents/{name}', { params: { path: { name } } }));
  }
  credentialAudit(before?: number) {
    return bodyOf(
      this.client.GET('/v1/credentials/audit', {
        params: { query: { limit: 50, ...(before === undefined ? {} : { before }) } },
      }),
    );
  }
  /** The api's OpenAPI document (the agent editor builds its form from the AgentSpec schema in it). */
  async openApiDocument(): Promise<{ components?: { schemas?: Record<string, unknown> } }> {
    return (await bodyOf(this.client.GET('/v1/openapi.json'))) as {
      components?: { schemas?: Record<string, unknown> };
    };
  }
  listAgents(includeDeleted = false) {
    return bodyOf(
      this.client.GET('/v1/agents', {
        params: { query: { limit: 200, includeDeleted: includeDeleted ? 'true' : 'false' } },
      }),
    );
  }
  getAgent(agent: string) {
    return bodyAndEtag(this.client.GET('/v1/agents/{agent}', { params: { path: { agent } } }));
  }
  createAgent(spec: Record<string, unknown>, draft: boolean) {
    return bodyAndEtag(
      this.client.POST('/v1/agents', {
        params: { query: { draft: draft ? 'true' : 'false' } },
        body: spec as SpecBody,
      }),
    );
  }
  /** A new version of the agent; `etag` is the one it was read with (a stale one is 412 STALE_REVISION). */
  updateAgent(agent: string, spec: Record<string, unknown>, etag: string, draft: boolean) {
    return bodyAndEtag(
      this.client.PUT('/v1/agents/{agent}', {
        params: { path: { agent }, query: { draft: draft ? 'true' : 'false' }, header: { 'If-Match': etag } },
        body: spec as SpecBody,
      }),
    );
  }
  agentVersions(agent: string) {
    return bodyOf(
      this.client.GET('/v1/agents/{agent}/versions', { params: { path: { agent }, query: { limit: 200 } } }),
    );
  }
  diffVersions(agent: string, version: number, against: number) {
    return bodyOf(
      this.client.GET('/v1/agents/{agent}/versions/{version}/diff', {
        params: { path: { agent, version }, query: { against } },
      }),
    );
  }
  publishVersion(agent: string, version: number, etag: string) {
    return bodyAndEtag(
      this.client.POST('/v1/agents/{agent}/versions/{version}/publish', {
        params: { path: { agent, version }, header: { 'If-Match': etag } },
      }),
    );
  }
  rollbackAgent(agent: string, etag: string) {
    return bodyAndEtag(
      this.client.POST('/v1/agents/{agent}/rollback', { params: { path: { agent }, header: { 'If-Match': etag } } }),
    );
  }
  /** Sends a message to one version of an agent (a draft included) and waits for the answer: "try this version". */
  async tryAgentVersion(conversationId: string, agent: string, agentVersion: number, content: string) {
    // Not streamed (no Accept: text/event-stream): the answer is the turn's JSON.
    return (await bodyOf(
      this.client.POST('/v1/conversations/{conversationId}/messages', {
        params: { path: { conversationId } },
        body: { content, agent, agentVersion },
      }),
    )) as TurnAnswer;
  }
  /** A new conversation with this one's history up to message `atSeq` (docs/conversations.md#forks-and-edits). */
  forkConversation(conversationId: string, atSeq: number) {
    return bodyOf(
      this.client.POST('/v1/conversations/{conversationId}/fork', {
        params: { path: { conversationId } },
        body: { atSeq },
      }),
    );
  }
  me() {
    return bodyOf(this.client.GET('/v1/me'));
  }
  listKeys() {
    return bodyOf(this.client.GET('/v1/keys'));
  }
  createKey(name: string, role: TenantRole, expiresAt?: string) {
    return bodyOf(this.client.POST('/v1/keys', { body: { name, role, ...(expiresAt ? { expiresAt } : {}) } }));
  }
  revokeKey(keyId: string) {
    return bodyOf(this.client.DELETE('/v1/keys/{keyId}', { params: { path: { keyId } } }));
  }
  adminAudit(before?: number) {
    return bodyOf(
      this.client.GET('/v1/audit', { params: { query: { limit: 50, ...(before === undefined ? {} : { before }) } } }),
    );
  }
  usage(from: string, to: string) {
    return bodyOf(this.client.GET('/v1/usage', { params: { query: { from, to } } }));
  }
}

/** The console's settings from the api that serves it (no token needed). */
export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  try {
    const response = await fetch(`${import.meta.env.BASE_URL}config.json`);
    if (response.ok) return (await response.json()) as ConsoleConfig;
  } catch {
    // served without the api (vite preview): no trace links, the default operator role
  }
  return { traceUrlTemplate: '', operatorRole: 'platform-operator' };
}
