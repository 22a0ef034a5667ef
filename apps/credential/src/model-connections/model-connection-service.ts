import type { Metadata } from '@grpc/grpc-js';
import { quotasFor, type TenantTiers } from '@platform/contracts';
import type { EgressGuard } from '@platform/egress';
import type { credentialV1 } from '@platform/proto';
import { errors, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import type { CallerAuth } from '../caller-auth.js';
import type { AuditActor } from '../credential-store.js';
import { ErrorCodes } from '../error-codes.js';
import { modelConnectionsNotPermitted } from './model-connection-errors.js';
import { apiKey, baseUrl, connectionName, models } from './model-connection-input.js';
import type { ModelConnectionInfo, ModelConnectionQuota, ModelConnectionStore } from './model-connection-store.js';

/** The CredentialService methods of model connections (proto/credential/v1/credential.proto). */
type ModelConnectionMethods = Pick<
  credentialV1.CredentialServiceServer,
  | 'createModelConnection'
  | 'updateModelConnection'
  | 'getModelConnection'
  | 'listModelConnections'
  | 'deleteModelConnection'
  | 'resolveModelConnection'
>;

interface ModelConnectionServiceDeps {
  store: ModelConnectionStore;
  auth: CallerAuth;
  /** Checks base URLs when they are written. */
  egress: EgressGuard;
  tiers: { tiers: TenantTiers; defaultTier: string };
  logger: Logger;
}

function infoMessage(info: ModelConnectionInfo): credentialV1.ModelConnectionInfo {
  return { ...info };
}

const actorOf = (subject: string | undefined): AuditActor => ({
  actorKind: 'platform',
  subject: (subject ?? '').slice(0, 200),
  tool: '',
  runId: '',
  callId: '',
});

/**
 * Model connections over gRPC: platform callers only (the api manages them, the orchestrator
 * resolves them; grpc-callers.ts says which identity may call which), validated at the edge, the
 * base URL through the egress guard on every write, scoped by tenant in every query.
 */
export function modelConnectionServiceImplementation(deps: ModelConnectionServiceDeps): ModelConnectionMethods {
  const { store, logger } = deps;
  const platform = async (metadata: Metadata): Promise<void> => {
    await deps.auth.authenticate('', metadata);
  };
  /** The tier's `modelConnections`; 0 means the operator turned them off for it. */
  const quotaOf = (tier: string): ModelConnectionQuota => {
    const { tier: applied, quotas } = quotasFor(deps.tiers.tiers, tier, deps.tiers.defaultTier);
    return { max: quotas.modelConnections, tier: applied };
  };
  const permitted = (tier: string): ModelConnectionQuota => {
    const quota = quotaOf(tier);
    if (quota.max === 0) throw modelConnectionsNotPermitted(quota.tier);
    return quota;
  };

  return {
    createModelConnection: unaryHandler<
      credentialV1.CreateModelConnectionRequest,
      credentialV1.CreateModelConnectionResponse
    >(logger, 'CreateModelConnection', async (request, call) => {
      const tenantId = tenantOf(request);
      await platform(call.metadata);
      const quota = permitted(request.tier ?? '');
      const input = {
        tenantId,
        name: connectionName(request.name),
        apiKey: apiKey(request.apiKey),
        models: models(request.models),
        baseUrl: await baseUrl(request.baseUrl, deps.egress),
      };
      const info = await store.create(input, actorOf(request.actor?.subject), quota);
      return { connection: infoMessage(info) };
    }),

    updateModelConnection: unaryHandler<
      credentialV1.UpdateModelConnectionRequest,
      credentialV1.UpdateModelConnectionResponse
    >(logger, 'UpdateModelConnection', async (request, call) => {
      const tenantId = tenantOf(request);
      await platform(call.metadata);
      const name = connectionName(request.name);
      if (request.expectedVersion !== undefined && request.expectedVersion < 1)
        throw errors.invalidArgument(ErrorCodes.INVALID_EXPECTED_VERSION, 'expected_version must be at least 1');
      const changes = {
        ...(request.apiKey !== undefined ? { apiKey: apiKey(request.apiKey) } : {}),
        ...(request.replaceModels ? { models: models(request.models) } : {}),
        ...(request.expectedVersion !== undefined ? { expectedVersion: request.expectedVersion } : {}),
        ...(request.baseUrl !== undefined ? { baseUrl: await baseUrl(request.baseUrl, deps.egress) } : {}),
      };
      const info = await store.update(tenantId, name, changes, actorOf(request.actor?.subject));
      return { connection: infoMessage(info) };
    }),

    getModelConnection: unaryHandler<credentialV1.GetModelConnectionRequest, credentialV1.GetModelConnectionResponse>(
      logger,
      'GetModelConnection',
      async (request, call) => {
        const tenantId = tenantOf(request);
        await platform(call.metadata);
        const info = await store.get(tenantId, connectionName(request.name), actorOf(request.actor?.subject));
        return { connection: infoMessage(info) };
      },
    ),

    listModelConnections: unaryHandler<
      credentialV1.ListModelConnectionsRequest,
      credentialV1.ListModelConnectionsResponse
    >(logger, 'ListModelConnections', async (request, call) => {
      const tenantId = tenantOf(request);
      await platform(call.metadata);
      const infos = await store.list(tenantId, actorOf(request.actor?.subject));
      return { connections: infos.map(infoMessage) };
    }),

    deleteModelConnection: unaryHandler<
      credentialV1.DeleteModelConnectionRequest,
      credentialV1.DeleteModelConnectionResponse
    >(logger, 'DeleteModelConnection', async (request, call) => {
      const tenantId = tenantOf(request);
      await platform(call.metadata);
      await store.delete(tenantId, connectionName(request.name), actorOf(request.actor?.subject));
      return {};
    }),

    resolveModelConnection: unaryHandler<
      credentialV1.ResolveModelConnectionRequest,
      credentialV1.ResolveModelConnectionResponse
    >(logger, 'ResolveModelConnection', async (request, call) => {
      const tenantId = tenantOf(request);
      await platform(call.metadata);
      permitted(request.tier ?? '');
      const { info, apiKey: key } = await store.resolve(tenantId, connectionName(request.name), {
        ...actorOf('orchestrator'),
        runId: request.runId.slice(0, 200),
      });
      return { connection: infoMessage(info), apiKey: key };
    }),
  };
}
