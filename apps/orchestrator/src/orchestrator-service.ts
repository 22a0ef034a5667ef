import { randomUUID } from 'node:crypto';
import type { ModelPort } from '@platform/agent-loop';
import { ConversationId, TenantId } from '@platform/contracts';
import type { memoryV1, orchestratorV1 } from '@platform/proto';
import { errors, unaryHandler, type Logger, type PromiseClient } from '@platform/service-kit';
import type { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import type { OrchestratorConfig } from './config.js';
import { loadHistory } from './history.js';
import { runTurn } from './run-turn.js';

export interface OrchestratorDependencies {
  config: OrchestratorConfig;
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
  model: ModelPort;
  catalog: ToolCatalog;
  tools: ToolClient;
  logger: Logger;
}

/** HandleMessage: load history, run the turn, store everything it produced, answer. */
export function orchestratorServiceImplementation(deps: OrchestratorDependencies): orchestratorV1.OrchestratorServiceServer {
  const { config, logger } = deps;
  return {
    handleMessage: unaryHandler<orchestratorV1.HandleMessageRequest, orchestratorV1.HandleMessageResponse>(logger, 'HandleMessage', async (request) => {
      const tenantId = TenantId.safeParse(request.tenantId);
      const conversationId = ConversationId.safeParse(request.conversationId);
      if (!tenantId.success) throw errors.invalidArgument('INVALID_TENANT_ID', 'tenant_id is invalid');
      if (!conversationId.success) throw errors.invalidArgument('INVALID_CONVERSATION_ID', 'conversation_id is invalid');
      if (!request.content.trim()) throw errors.invalidArgument('EMPTY_CONTENT', 'content must not be empty');

      const started = Date.now();
      const runId = `run_${randomUUID()}`;
      const scope = { tenantId: tenantId.data, conversationId: conversationId.data, runId, turnDeadlineAt: started + config.TURN_TIMEOUT_MS };
      const history = await loadHistory(deps.memory, scope.tenantId, scope.conversationId, config.HISTORY_MESSAGES);
      const result = await runTurn(
        { ...scope, systemPrompt: config.SYSTEM_PROMPT, history, userMessage: request.content },
        { model: deps.model, catalog: deps.catalog, tools: deps.tools, logger, maxTurns: config.MAX_TURNS, toolTimeoutMs: config.TOOL_TIMEOUT_MS },
      );
      // The run id doubles as the append id: a retried append of this turn is stored once.
      await deps.memory.appendMessages({
        tenantId: scope.tenantId,
        conversationId: scope.conversationId,
        messagesJson: result.messages.map((m) => JSON.stringify(m)),
        runId,
        appendId: runId,
      });
      const durationMs = Date.now() - started;
      logger.info({ runId, stopReason: result.stopReason, turns: result.turns, toolCalls: result.toolCalls.length, durationMs }, 'turn finished');
      return {
        runId,
        status: result.stopReason === 'model_error' ? 'failed' : 'completed',
        stopReason: result.stopReason,
        response: result.response,
        turns: result.turns,
        toolCalls: result.toolCalls,
        durationMs,
        usage: result.usage,
      };
    }),
  };
}
