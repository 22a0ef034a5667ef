import { randomUUID } from 'node:crypto';
import { assembleTurnInput, runAgentLoop, type LoopResult } from '@platform/agent-loop';
import { ConversationId, TenantId, type ChatMessage } from '@platform/contracts';
import type { memoryV1, orchestratorV1 } from '@platform/proto';
import { errors, PlatformError, unaryHandler, type Logger, type PromiseClient, type RateLimiter } from '@platform/service-kit';
import type { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import type { OrchestratorConfig } from './config.js';
import { loadHistory } from './history.js';
import type { ProfileRegistry } from './profiles.js';
import type { RunStore } from './run-store.js';
import { RunnerToolPort } from './runner-tool-port.js';

export interface OrchestratorDependencies {
  config: OrchestratorConfig;
  profiles: ProfileRegistry;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  catalog: ToolCatalog;
  tools: ToolClient;
  runs: RunStore;
  limiter: RateLimiter;
  logger: Logger;
}

const RATE_WINDOW_MS = 60_000;

/** The should-process step: a tenant over its turn budget is refused with when to retry. */
async function checkRateLimit(deps: OrchestratorDependencies, tenantId: string): Promise<void> {
  const limit = deps.config.RATE_LIMIT_TURNS_PER_MINUTE;
  if (limit === 0) return;
  const decision = await deps.limiter.consume(`turns:${tenantId}`, limit, RATE_WINDOW_MS);
  if (decision.allowed) return;
  const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  throw new PlatformError('resource_exhausted', 'RATE_LIMITED', `this tenant may start ${limit} turns per minute; try again in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
    details: { limit, windowSeconds: RATE_WINDOW_MS / 1000 },
  });
}

/** The run's status as callers see it, from the loop's stop reason. */
export function runStatus(result: LoopResult): string {
  switch (result.stopReason) {
    case 'agent_waiting':
      return 'waiting';
    case 'cancelled':
      return 'cancelled';
    case 'model_error':
    case 'context_overflow':
    case 'deadline':
      return 'failed';
    default:
      return 'completed';
  }
}

function toResponse(result: LoopResult, durationMs: number): orchestratorV1.HandleMessageResponse {
  return {
    runId: result.runId,
    status: runStatus(result),
    stopReason: result.stopReason,
    response: result.response,
    turns: result.turns,
    toolCalls: result.toolCalls.map((c) => ({ callId: c.callId, name: c.name, success: c.success, status: c.status, durationMs: c.durationMs, errorCode: c.errorCode ?? '' })),
    durationMs,
    usage: result.usage,
  };
}

/** HandleMessage: load history, assemble the input, run the loop, store what the turn produced. */
export function orchestratorServiceImplementation(deps: OrchestratorDependencies): orchestratorV1.OrchestratorServiceServer {
  const { config, logger } = deps;
  return {
    handleMessage: unaryHandler<orchestratorV1.HandleMessageRequest, orchestratorV1.HandleMessageResponse>(logger, 'HandleMessage', async (request, call) => {
      const tenantId = TenantId.safeParse(request.tenantId);
      const conversationId = ConversationId.safeParse(request.conversationId);
      if (!tenantId.success) throw errors.invalidArgument('INVALID_TENANT_ID', 'tenant_id is invalid');
      if (!conversationId.success) throw errors.invalidArgument('INVALID_CONVERSATION_ID', 'conversation_id is invalid');
      if (!request.content.trim()) throw errors.invalidArgument('EMPTY_CONTENT', 'content must not be empty');

      const profile = deps.profiles.resolve(request.profile);
      if (!profile) throw errors.notFound('PROFILE_NOT_FOUND', `no agent profile '${request.profile}'; known: ${deps.profiles.names().join(', ')}`);
      await checkRateLimit(deps, tenantId.data);
      const started = Date.now();
      const runId = `run_${randomUUID()}`;
      const scope = { tenantId: tenantId.data, conversationId: conversationId.data };
      // Right after a boot (or when every runner was briefly unreachable) the catalog may be empty:
      // discover once now rather than run a turn that offers the model no tools.
      if (deps.catalog.list().length === 0) await deps.catalog.refresh();
      const history = await loadHistory(deps.memory, scope.tenantId, scope.conversationId, config.HISTORY_MESSAGES);
      const tools = new RunnerToolPort(deps.catalog, deps.tools, { ...scope, allowsTool: profile.allowsTool });
      const messages = assembleTurnInput({
        systemPrompt: profile.systemPrompt,
        now: new Date(started),
        timeZone: config.DEFAULT_TIMEZONE,
        capabilities: tools.list(),
        history,
        userMessage: request.content,
      });
      // The caller hanging up (gRPC cancel) cancels the run.
      const cancelled = new AbortController();
      call.on('cancelled', () => cancelled.abort(new Error('the caller cancelled the request')));
      const result = await runAgentLoop(
        { runId, messages },
        { model: profile.model, fallbackModels: profile.fallbackModels, tools, config: profile.loopConfig, signal: cancelled.signal },
      );
      const turnMessages: ChatMessage[] = [{ role: 'user', content: request.content }, ...result.messages];
      // The run id doubles as the append id: a retried append of this turn is stored once.
      await deps.memory.appendMessages({
        tenantId: scope.tenantId,
        conversationId: scope.conversationId,
        messagesJson: turnMessages.map((m) => JSON.stringify(m)),
        runId,
        appendId: runId,
      });
      await deps.runs.save({ tenantId: scope.tenantId, conversationId: scope.conversationId, status: runStatus(result), createdAt: new Date(started), result });
      const durationMs = Date.now() - started;
      logger.info({ runId, profile: profile.name, stopReason: result.stopReason, turns: result.turns, toolCalls: result.toolCalls.length, durationMs }, 'turn finished');
      return toResponse(result, durationMs);
    }),

    listTools: unaryHandler<orchestratorV1.ListToolsRequest, orchestratorV1.ListToolsResponse>(logger, 'ListTools', async () => ({
      tools: deps.catalog.list().map((t) => ({
        name: t.name,
        description: t.description,
        inputSchemaJson: JSON.stringify(t.inputSchema),
        kind: t.kind,
        runner: t.runner,
        version: t.version,
        requiresApproval: t.requiresApproval,
        timeoutMs: t.timeoutMs,
        sideEffect: t.sideEffect,
        instances: t.instances.length,
      })),
    })),

    getRun: unaryHandler<orchestratorV1.GetRunRequest, orchestratorV1.GetRunResponse>(logger, 'GetRun', async (request) => {
      if (!TenantId.safeParse(request.tenantId).success) throw errors.invalidArgument('INVALID_TENANT_ID', 'tenant_id is invalid');
      // Another tenant's run is reported exactly like a missing one, so ids do not leak.
      const run = request.runId ? await deps.runs.get(request.tenantId, request.runId) : undefined;
      if (!run) throw errors.notFound('RUN_NOT_FOUND', `no run '${request.runId}'`);
      return {
        runId: run.runId,
        conversationId: run.conversationId,
        status: run.status,
        stopReason: run.stopReason,
        createdAt: run.createdAt,
        finishedAt: run.finishedAt,
        resultJson: JSON.stringify(run.result),
        transcriptJson: JSON.stringify(run.transcript),
      };
    }),
  };
}
