import type { Logger, NatsConnection } from '@platform/service-kit';
import { ToolClient, type ToolCatalog } from '@platform/tool-sdk';
import { ToolBreakers } from '../tool-breakers.js';
import type { CredentialGrants } from './credential-grants.js';
import { ToolGate } from './tool-gate.js';

export interface GateWiringDependencies {
  nc: NatsConnection;
  catalog: ToolCatalog;
  grants: CredentialGrants;
  logger: Logger;
}

export interface BreakerSettings {
  /** Failures in a row that open a tool's breaker (TOOL_BREAKER_FAILURES; 0 turns breakers off). */
  failureThreshold: number;
  /** How long an open breaker refuses calls (TOOL_BREAKER_COOLDOWN_MS). */
  cooldownMs: number;
}

/**
 * The one gate every tool call of this process passes, whoever asks (README, "The tool gate"), and
 * the breakers it shares with the tool catalog's health view.
 */
export function wireToolGate(
  { nc, catalog, grants, logger }: GateWiringDependencies,
  settings: BreakerSettings,
): { gate: ToolGate; breakers: ToolBreakers } {
  const breakers = new ToolBreakers({ ...settings, logger });
  const gate = new ToolGate({ catalog, client: new ToolClient({ nc, logger }), breakers, grants });
  return { gate, breakers };
}
