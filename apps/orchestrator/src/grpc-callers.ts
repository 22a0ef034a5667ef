import type { orchestratorV1 } from '@platform/proto';
import type { CallerTable } from '@platform/service-kit';

/**
 * Who may call each orchestrator method, by service identity (docs/security.md). The api acts for
 * the tenant of a verified token; the trigger fires tasks for their tenants on its own.
 */
export const ORCHESTRATOR_CALLERS: CallerTable<typeof orchestratorV1.OrchestratorServiceService> = {
  handleMessage: ['api', 'trigger'],
  getRun: ['api'],
  cancelRun: ['api'],
  listTools: ['api'],
  getUsage: ['api'],
  listRuns: ['api'],
  callTool: ['api'],
  getToolCall: ['api'],
};
