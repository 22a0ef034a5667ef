import { Metadata } from '@grpc/grpc-js';
import type { ModelPort } from '@platform/agent-loop';
import { quotasFor, type TenantTiers } from '@platform/contracts';
import type { EgressGuard } from '@platform/egress';
import { OpenAIChatModel } from '@platform/llm';
import type { credentialV1 } from '@platform/proto';
import { isPlatformError, PlatformError, type PromiseClient } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';
import type { ConnectionCache } from './connection-cache.js';
import { ConnectionModel } from './connection-model.js';
import type { ModelConnection, ModelConnections } from './model-connections.js';

interface CredentialModelConnectionsOptions {
  client: PromiseClient<credentialV1.CredentialServiceClient>;
  /** The orchestrator's platform token for the credential service (CREDENTIAL_PLATFORM_TOKEN). */
  platformToken: string;
  cache: ConnectionCache;
  /** Vets every connection to a tenant's endpoint when it opens (its DNS may have changed since the URL was written). */
  egress: EgressGuard;
  tiers: { tiers: TenantTiers; defaultTier: string };
  /** The model call's timeout (LLM_TIMEOUT_MS). */
  modelTimeoutMs: number;
}

/**
 * Model connections read from the credential service (ResolveModelConnection, open to the
 * orchestrator's identity only), kept in the replica's cache, and turned into OpenAI chat models
 * over the egress guard's dispatcher. A tier whose `modelConnections` limit is 0 gets none, cached
 * or not: the operator turning them off takes effect at the next turn.
 */
export class CredentialModelConnections implements ModelConnections {
  /** Chat models per connection object: a cached connection reuses its models; a dropped one takes them along. */
  private readonly models = new WeakMap<ModelConnection, Map<string, ModelPort>>();

  constructor(private readonly options: CredentialModelConnectionsOptions) {}

  async resolve(
    tenantId: string,
    name: string,
    request: { tier?: string; runId?: string } = {},
  ): Promise<ModelConnection | undefined> {
    const { tier, quotas } = quotasFor(this.options.tiers.tiers, request.tier ?? '', this.options.tiers.defaultTier);
    if (quotas.modelConnections === 0)
      throw new PlatformError(
        'permission_denied',
        ErrorCodes.NOT_PERMITTED_BY_TIER,
        `model connections are not available to tier '${tier}'`,
        { details: { what: 'modelConnections', tier } },
      );
    const cached = this.options.cache.get(tenantId, name);
    if (cached) return cached;
    const epoch = this.options.cache.epoch;
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${this.options.platformToken}`);
    let reply: credentialV1.ResolveModelConnectionResponse;
    try {
      reply = await this.options.client.resolveModelConnection(
        { tenantId, name, tier: request.tier ?? '', runId: request.runId ?? '' },
        { metadata },
      );
    } catch (err) {
      if (isPlatformError(err) && err.kind === 'not_found') return undefined;
      throw err;
    }
    const info = reply.connection;
    if (!info) return undefined;
    const connection: ModelConnection = {
      name: info.name,
      baseUrl: info.baseUrl,
      apiKey: reply.apiKey,
      ...(info.models.length ? { models: info.models } : {}),
    };
    this.options.cache.set(tenantId, connection, epoch);
    return connection;
  }

  async exists(tenantId: string, tier: string, name: string): Promise<boolean> {
    return (await this.resolve(tenantId, name, { tier })) !== undefined;
  }

  modelFor(tenantId: string, name: string, model: string): Promise<ModelPort> {
    return Promise.resolve(new ConnectionModel(this, tenantId, name, model));
  }

  chatModel(connection: ModelConnection, model: string): ModelPort {
    let byModel = this.models.get(connection);
    if (!byModel) {
      byModel = new Map();
      this.models.set(connection, byModel);
    }
    let chat = byModel.get(model);
    if (!chat) {
      chat = new OpenAIChatModel({
        baseURL: connection.baseUrl,
        apiKey: connection.apiKey,
        model,
        timeoutMs: this.options.modelTimeoutMs,
        provider: 'openai-compatible',
        apiKeyName: `the API key of model connection '${connection.name}'`,
        dispatcher: this.options.egress.dispatcher(),
      });
      byModel.set(model, chat);
    }
    return chat;
  }
}
