import type { ModelPort } from '@platform/agent-loop';

/**
 * The tenant's model connections (issue 36 item 6: an OpenAI-compatible endpoint the tenant
 * registers). The agent store takes this port when the orchestrator has model connections; without
 * it, a spec naming `modelConnection` is refused (`NOT_PERMITTED_BY_TIER: model connections are
 * not enabled`). Implemented by the model-connection side; nothing here knows how they are stored.
 */
export interface ModelConnections {
  /** Whether the tenant has this connection and its tier lets it use connections at all. */
  exists(tenantId: string, tier: string, name: string): Promise<boolean>;
  /** A model served through the tenant's connection (resolved when an agent version is compiled). */
  modelFor(tenantId: string, name: string, model: string): Promise<ModelPort>;
}
