import { compileEgressAllowlist } from '@platform/egress';
import type { OrchestratorConfig } from './config.js';
import type { RunWebhookSettings } from './webhooks/run-webhooks.js';

/** The run webhooks' settings (RUN_WEBHOOK_*, EGRESS_ALLOW_*), compiled from the env at boot. */
export function compileRunWebhookSettings(config: OrchestratorConfig): RunWebhookSettings {
  return {
    allowlist: compileEgressAllowlist(config),
    allowHttp: config.RUN_WEBHOOK_ALLOW_HTTP,
    timeoutMs: config.RUN_WEBHOOK_TIMEOUT_MS,
    maxAttempts: config.RUN_WEBHOOK_MAX_ATTEMPTS,
    retryBaseMs: config.RUN_WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: config.RUN_WEBHOOK_RETRY_MAX_MS,
    intervalMs: config.RUN_WEBHOOK_INTERVAL_MS,
    retentionDays: config.RUN_WEBHOOK_RETENTION_DAYS,
  };
}
