import { TenantId, ToolName } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, PlatformError, type Logger } from '@platform/service-kit';
import type { CatalogEntry, ToolCatalog, ToolClient } from '@platform/tool-sdk';
import type { CredentialGrants } from '../pipeline/credential-grants.js';
import { outcomeOf, RunnerToolPort, type RunnerCall } from '../runner-tool-port.js';
import type { ToolBreakers } from '../tool-breakers.js';
import type { ToolCallOutcome, ToolCallRecord, ToolCallRecords } from './tool-call-records.js';

export interface ToolTrialDependencies {
  catalog: ToolCatalog;
  client: ToolClient;
  /** The same breakers the runs' calls go through: a tried call counts toward them and is refused by them. */
  breakers: ToolBreakers;
  grants: CredentialGrants;
  records: ToolCallRecords;
  logger: Logger;
}

/**
 * Call ids the api issues for tried calls (`try_<uuid>`). A tried call belongs to no run or
 * conversation, so it travels with its call id as both (runners and the credential audit see it).
 */
const TRY_CALL_ID = /^try_[0-9a-f-]{36}$/;

function argumentsOf(json: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json || '{}');
  } catch {
    throw errors.invalidArgument('INVALID_ARGUMENTS', 'arguments must be a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw errors.invalidArgument('INVALID_ARGUMENTS', 'arguments must be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * Why a tool is not tried outside a conversation: a tool that needs the user's approval never runs
 * without it, and is asked for only in a conversation (the call then waits in the approvals inbox);
 * an agent-tool talks with the user over several turns. Both run when the model calls them.
 */
function refusalOf(entry: CatalogEntry): PlatformError | undefined {
  if (entry.kind === 'agent') {
    return new PlatformError('failed_precondition', 'AGENT_TOOL', `'${entry.name}' is an agent-tool: it talks with the user over several turns, so it runs only in a conversation`);
  }
  if (entry.requiresApproval) {
    return new PlatformError(
      'failed_precondition',
      'APPROVAL_REQUIRED',
      `'${entry.name}' needs the user's approval for every call, which is asked for in a conversation; it was not run (ask for it in a message, then approve it in the approvals inbox)`,
    );
  }
  return undefined;
}

/** A runner's refusal of the arguments: the caller's fault, named field by field (400, not a tool failure). */
function argumentRefusal(sent: RunnerCall): PlatformError | undefined {
  if (!('answer' in sent) || sent.answer.status === 'success' || sent.answer.error.code !== 'INVALID_ARGUMENTS') return undefined;
  const issues = sent.answer.error.issues ?? [];
  const first = issues[0];
  const message = first ? `arguments.${first.path}: ${first.message}` : sent.answer.error.message;
  return errors.invalidArgument('INVALID_ARGUMENTS', message, { details: { issues: issues.map((i) => ({ field: `arguments.${i.path}`, message: i.message })) } });
}

function recordedOutcome(sent: RunnerCall, durationMs: number): ToolCallOutcome {
  const outcome = outcomeOf(sent);
  // A plain tool's call never waits, and guards (skipped, blocked) belong to the loop.
  const status = outcome.status === 'waiting' || outcome.status === 'skipped' || outcome.status === 'blocked' ? 'failed' : outcome.status;
  if ('answer' in sent && sent.answer.status === 'success') {
    return { status, output: sent.answer.output ?? null, truncated: sent.answer.truncated ?? false, errorCode: '', errorMessage: '', durationMs };
  }
  return { status, output: undefined, truncated: false, errorCode: 'errorCode' in outcome ? outcome.errorCode : '', errorMessage: outcome.content, durationMs };
}

/** A journaled call as the gRPC answer carries it. */
export function toolCallResult(record: ToolCallRecord): orchestratorV1.ToolCallResult {
  return {
    callId: record.callId,
    toolName: record.toolName,
    status: record.status,
    outputJson: record.output === undefined ? '' : JSON.stringify(record.output),
    truncated: record.truncated,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    durationMs: record.durationMs,
    runner: record.runner,
    argumentsJson: JSON.stringify(record.arguments),
    startedAt: record.startedAt,
    finishedAt: record.finishedAt ?? undefined,
  };
}

/**
 * Calls of one tool that a client tries directly (POST /v1/tools/{name}/calls): the call goes
 * through the same port as a model's call (credential grant, circuit breaker, the tool's own
 * timeout, NATS dispatch to a runner replica), under the caller's tenant, and is journaled before
 * it is sent and again with its outcome. See docs/api.md#trying-a-tool.
 */
export class ToolTrials {
  constructor(private readonly deps: ToolTrialDependencies) {}

  async call(request: orchestratorV1.CallToolRequest, signal: AbortSignal): Promise<ToolCallRecord> {
    if (!TenantId.safeParse(request.tenantId).success) throw errors.invalidArgument('INVALID_TENANT_ID', 'tenant_id is invalid');
    if (!TRY_CALL_ID.test(request.callId)) throw errors.invalidArgument('INVALID_CALL_ID', 'call_id must be try_<uuid>');
    if (!ToolName.safeParse(request.toolName).success) throw errors.notFound('TOOL_NOT_FOUND', `no tool '${request.toolName}'`);
    const args = argumentsOf(request.argumentsJson);
    const entry = await this.entryOf(request.toolName);
    const refusal = refusalOf(entry);
    if (refusal) throw refusal;

    const { created, record } = await this.deps.records.start({ tenantId: request.tenantId, callId: request.callId, toolName: entry.name, arguments: args, subject: request.subject, runner: entry.runner });
    // The same call id again (a retry) answers what was journaled; it is never sent twice from here.
    if (!created) return record;
    const port = new RunnerToolPort(this.deps.catalog, this.deps.client, { tenantId: request.tenantId, conversationId: request.callId, breakers: this.deps.breakers, grants: this.deps.grants });
    const started = Date.now();
    const sent = await port.callPlainTool(entry, { id: request.callId, name: entry.name, arguments: args }, { runId: request.callId, deadlineAt: started + entry.timeoutMs, signal });
    const finished = await this.deps.records.finish(request.tenantId, request.callId, recordedOutcome(sent, Date.now() - started));
    this.deps.logger.info({ tenantId: request.tenantId, tool: entry.name, callId: request.callId, status: finished.status }, 'tried a tool');
    const refused = argumentRefusal(sent);
    if (refused) throw refused;
    return finished;
  }

  async get(tenantId: string, callId: string): Promise<ToolCallRecord> {
    // Another tenant's call is reported exactly like a missing one.
    const record = TenantId.safeParse(tenantId).success && callId ? await this.deps.records.get(tenantId, callId) : undefined;
    if (!record) throw errors.notFound('TOOL_CALL_NOT_FOUND', `no tool call '${callId}'`);
    return record;
  }

  private async entryOf(name: string): Promise<CatalogEntry> {
    let found = this.deps.catalog.lookup(name);
    // Right after a boot the catalog may not have discovered the runners yet.
    if (found.state === 'unknown' && this.deps.catalog.list().length === 0) {
      await this.deps.catalog.refresh();
      found = this.deps.catalog.lookup(name);
    }
    if (found.state === 'unknown') throw errors.notFound('TOOL_NOT_FOUND', `no tool '${name}'`);
    if (found.state === 'offline') throw errors.unavailable('RUNNER_UNAVAILABLE', `no runner serves '${name}' right now; try again later`);
    return found.entry;
  }
}
