import type { ModelPort } from '@platform/agent-loop';

/** A tenant's model connection as the orchestrator uses it: where to call, with which key, for which models. */
export interface ModelConnection {
  name: string;
  baseUrl: string;
  /** Sent as the bearer token; never logged, journalled or put in an event. */
  apiKey: string;
  /** The models the tenant says it serves; absent or empty: any. */
  models?: readonly string[];
}

/**
 * The port an agent's turn uses to reach the model of a tenant's own connection
 * (`AgentSpec.modelConnection`; docs/models.md, "Models the tenant brings"). The tenant is part of
 * every lookup: one tenant's name never finds another tenant's connection.
 */
export interface ModelConnections {
  /**
   * The tenant's connection of this name, or undefined when it has none. Throws a
   * `NOT_PERMITTED_BY_TIER` PlatformError when `tier`'s `modelConnections` limit is 0, and the
   * credential service's error when it cannot answer.
   */
  resolve(
    tenantId: string,
    name: string,
    options?: { tier?: string; runId?: string },
  ): Promise<ModelConnection | undefined>;
  /** A chat model calling `model` at the connection's endpoint with its key, every connection vetted by the egress guard. */
  chatModel(connection: ModelConnection, model: string): ModelPort;
  /**
   * For the agent store (write time): whether the tenant has this connection. Throws the
   * `NOT_PERMITTED_BY_TIER` refusal when `tier` may use none.
   */
  exists(tenantId: string, tier: string, name: string): Promise<boolean>;
  /**
   * For a compiled agent version: `model` through the tenant's connection, looked up again at
   * every call (a rotated key or changed URL is used by the next call).
   */
  modelFor(tenantId: string, name: string, model: string): Promise<ModelPort>;
}
