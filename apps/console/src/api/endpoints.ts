// Every call the console makes to the platform's public API, in one place.
import { call, send, type Caller, type Query } from './http-client.js';
import type {
  Approval,
  CatalogTool,
  ConsoleConfig,
  Credential,
  CredentialAuditEvent,
  HistoryPage,
  MemoryFact,
  RunDetail,
  RunPage,
  Task,
  TaskFire,
  TurnAnswer,
  UsageReport,
} from './types.js';

const enc = encodeURIComponent;

/** The platform API as the signed-in user (or operator viewing a tenant) calls it. */
export class PlatformApi {
  constructor(readonly caller: Caller) {}

  listRuns(query: Query, signal?: AbortSignal): Promise<RunPage> {
    return call(this.caller, 'GET', '/v1/runs', { query, ...(signal ? { signal } : {}) });
  }
  getRun(runId: string): Promise<RunDetail> {
    return call(this.caller, 'GET', `/v1/runs/${enc(runId)}`);
  }
  cancelRun(runId: string): Promise<{ runId: string; status: string }> {
    return call(this.caller, 'DELETE', `/v1/runs/${enc(runId)}`);
  }
  /** The raw SSE response of a run's events (after `afterId`), for the event-stream reader. */
  runEvents(runId: string, afterId: number, signal: AbortSignal): Promise<Response> {
    return send(this.caller, 'GET', `/v1/runs/${enc(runId)}/events`, { accept: 'text/event-stream', signal, headers: afterId > 0 ? { 'last-event-id': String(afterId) } : {} });
  }
  history(conversationId: string, afterSeq = 0, limit = 200): Promise<HistoryPage> {
    return call(this.caller, 'GET', `/v1/conversations/${enc(conversationId)}/messages`, { query: { afterSeq, limit } });
  }
  /** Sends a message and answers the SSE response of its turn (header `x-run-id` names the run). */
  sendMessageStreamed(conversationId: string, content: string, signal: AbortSignal): Promise<Response> {
    return send(this.caller, 'POST', `/v1/conversations/${enc(conversationId)}/messages`, { body: { content }, accept: 'text/event-stream', signal });
  }
  listApprovals(): Promise<{ approvals: Approval[] }> {
    return call(this.caller, 'GET', '/v1/approvals');
  }
  decideApproval(approvalId: string, decision: 'approve' | 'edit' | 'cancel', changes?: Record<string, unknown>): Promise<TurnAnswer> {
    return call(this.caller, 'POST', `/v1/approvals/${enc(approvalId)}`, { body: { decision, ...(changes ? { changes } : {}) } });
  }
  listTools(): Promise<{ tools: CatalogTool[] }> {
    return call(this.caller, 'GET', '/v1/tools');
  }
  /** Runs one call of a tool under the caller's tenant (the same approval rules as a model's call). */
  tryTool(name: string, args: Record<string, unknown>): Promise<unknown> {
    return call(this.caller, 'POST', `/v1/tools/${enc(name)}/calls`, { body: { arguments: args } });
  }
  listTasks(pageToken?: string): Promise<{ tasks: Task[]; nextPageToken: string | null }> {
    return call(this.caller, 'GET', '/v1/tasks', { query: { pageToken } });
  }
  taskFires(taskId: string): Promise<{ fires: TaskFire[]; nextPageToken: string | null }> {
    return call(this.caller, 'GET', `/v1/tasks/${enc(taskId)}/fires`, { query: { pageSize: 20 } });
  }
  changeTask(taskId: string, action: 'pause' | 'resume'): Promise<Task> {
    return call(this.caller, 'POST', `/v1/tasks/${enc(taskId)}/${action}`);
  }
  runTaskNow(taskId: string): Promise<TaskFire> {
    return call(this.caller, 'POST', `/v1/tasks/${enc(taskId)}/run`);
  }
  listFacts(query: Query): Promise<{ facts: MemoryFact[]; nextPageToken: string | null }> {
    return call(this.caller, 'GET', '/v1/memory/facts', { query });
  }
  forgetFact(factId: string, reason: string): Promise<{ factId: string; deleted: true; auditId: string }> {
    return call(this.caller, 'DELETE', `/v1/memory/facts/${enc(factId)}`, { query: { reason } });
  }
  listCredentials(): Promise<{ credentials: Credential[] }> {
    return call(this.caller, 'GET', '/v1/credentials');
  }
  credentialAudit(before?: string): Promise<{ events: CredentialAuditEvent[]; nextBefore: string | null }> {
    return call(this.caller, 'GET', '/v1/credentials/audit', { query: { limit: 50, before } });
  }
  usage(from: string, to: string): Promise<UsageReport> {
    return call(this.caller, 'GET', '/v1/usage', { query: { from, to } });
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
