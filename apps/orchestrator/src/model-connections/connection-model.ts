import { ModelError, type ModelPort, type ModelRequest, type ModelResponse } from '@platform/agent-loop';
import { isPlatformError } from '@platform/service-kit';
import type { ModelConnections } from './model-connections.js';

/**
 * One model of a tenant's connection, as an agent version holds it: the connection is looked up
 * at every call (from the replica's cache), so a key or URL changed through the api is used by the
 * next call even though the agent's compiled version keeps this object. A connection that is gone,
 * or that the tier may no longer use, fails the call as `auth` (no retry helps); a credential
 * service that cannot answer fails it as `server` (the loop retries). A model the connection does
 * not list (when it lists any) is a `bad_request`.
 */
export class ConnectionModel implements ModelPort {
  readonly provider = 'openai-compatible';

  constructor(
    private readonly connections: Pick<ModelConnections, 'resolve' | 'chatModel'>,
    private readonly tenantId: string,
    private readonly name: string,
    readonly model: string,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    let connection;
    try {
      connection = await this.connections.resolve(this.tenantId, this.name);
    } catch (err) {
      if (isPlatformError(err) && err.kind === 'permission_denied')
        throw new ModelError('auth', err.message, { cause: err, provider: this.provider, model: this.model });
      throw new ModelError('server', `model connection '${this.name}' could not be read`, {
        cause: err,
        provider: this.provider,
        model: this.model,
      });
    }
    if (!connection)
      throw new ModelError('auth', `model connection '${this.name}' does not exist (any more)`, {
        provider: this.provider,
        model: this.model,
      });
    const model = request.model ?? this.model;
    if (connection.models?.length && !connection.models.includes(model))
      throw new ModelError('bad_request', `model connection '${this.name}' does not serve the model '${model}'`, {
        provider: this.provider,
        model,
      });
    return this.connections.chatModel(connection, model).complete(request);
  }
}
