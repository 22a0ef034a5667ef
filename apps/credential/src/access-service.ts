import type { Metadata } from '@grpc/grpc-js';
import { quotasFor, TenantRole, type TenantTiers } from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import { errors, parseOrReject, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import { z } from 'zod';
import type { AdminAuditStore } from './admin-audit-store.js';
import type { ApiKeyInfo, ApiKeyStore } from './api-key-store.js';
import type { CallerAuth } from './caller-auth.js';
import { ErrorCodes } from './error-codes.js';

/** What the access methods need: both stores, the caller check, quotas and page sizes. */
export interface AccessServiceDeps {
  keys: ApiKeyStore;
  audit: AdminAuditStore;
  auth: CallerAuth;
  tiers: { tiers: TenantTiers; defaultTier: string };
  limits: { auditPageSize: number; auditMaxPageSize: number };
  logger: Logger;
}

type AccessMethods = Pick<
  credentialV1.CredentialServiceServer,
  | 'createApiKey'
  | 'listApiKeys'
  | 'revokeApiKey'
  | 'verifyApiKey'
  | 'recordKeyUse'
  | 'recordAdminAction'
  | 'listAdminActions'
>;

const KeyName = z.string().regex(/^[A-Za-z0-9._ -]{1,64}$/);
const KeyId = z.string().regex(/^[0-9a-f]{16}$/);
const Short = (max: number) => z.string().max(max);
const AdminActionFields = z.object({
  operation: z.string().min(1).max(128),
  method: z.enum(['POST', 'PUT', 'DELETE', 'PATCH']),
  resource: Short(512),
  status: z.number().int().min(200).max(399),
  role: TenantRole,
  subject: Short(256),
  keyId: Short(64),
  actingUser: Short(256),
  requestId: Short(128),
});

function keyMessage(info: ApiKeyInfo): credentialV1.ApiKeyInfo {
  return {
    keyId: info.keyId,
    prefix: info.prefix,
    name: info.name,
    role: info.role,
    createdBy: info.createdBy,
    createdAt: info.createdAt,
    expiresAt: info.expiresAt,
    revokedAt: info.revokedAt,
    lastUsedAt: info.lastUsedAt,
  };
}

/** The API key and administrative audit methods of CredentialService: platform callers only. */
export function accessServiceMethods(deps: AccessServiceDeps): AccessMethods {
  const { keys, audit, logger } = deps;
  const platform = (metadata: Metadata) => deps.auth.authenticate('', metadata);
  const pageLimit = (limit: number): number => {
    if (limit < 0 || limit > deps.limits.auditMaxPageSize)
      throw errors.invalidArgument(
        ErrorCodes.INVALID_LIMIT,
        `limit must be between 0 and ${deps.limits.auditMaxPageSize}`,
      );
    return limit || deps.limits.auditPageSize;
  };

  return {
    createApiKey: unaryHandler<credentialV1.CreateApiKeyRequest, credentialV1.CreateApiKeyResponse>(
      logger,
      'CreateApiKey',
      async (request, call) => {
        const tenantId = tenantOf(request);
        const name = parseOrReject(KeyName, request.name, ErrorCodes.INVALID_KEY_NAME, 'name');
        const role = parseOrReject(TenantRole, request.role, ErrorCodes.INVALID_KEY_ROLE, 'role');
        if (request.expiresAt && request.expiresAt.getTime() <= Date.now())
          throw errors.invalidArgument(ErrorCodes.INVALID_KEY_EXPIRY, 'expires_at must be in the future');
        await platform(call.metadata);
        const { tier, quotas } = quotasFor(deps.tiers.tiers, request.tier, deps.tiers.defaultTier);
        const created = await keys.create(
          tenantId,
          { name, role, expiresAt: request.expiresAt, createdBy: (request.actor?.subject ?? '').slice(0, 256) },
          { maxKeys: quotas.apiKeys, tier },
        );
        return { key: keyMessage(created.info), secret: created.secret };
      },
    ),

    listApiKeys: unaryHandler<credentialV1.ListApiKeysRequest, credentialV1.ListApiKeysResponse>(
      logger,
      'ListApiKeys',
      async (request, call) => {
        const tenantId = tenantOf(request);
        await platform(call.metadata);
        return { keys: (await keys.list(tenantId)).map(keyMessage) };
      },
    ),

    revokeApiKey: unaryHandler<credentialV1.RevokeApiKeyRequest, credentialV1.RevokeApiKeyResponse>(
      logger,
      'RevokeApiKey',
      async (request, call) => {
        const tenantId = tenantOf(request);
        const keyId = parseOrReject(KeyId, request.keyId, ErrorCodes.INVALID_KEY_ID, 'key_id');
        await platform(call.metadata);
        return { key: keyMessage(await keys.revoke(tenantId, keyId)) };
      },
    ),

    verifyApiKey: unaryHandler<credentialV1.VerifyApiKeyRequest, credentialV1.VerifyApiKeyResponse>(
      logger,
      'VerifyApiKey',
      async (request, call) => {
        await platform(call.metadata);
        return keys.verify(request.key);
      },
    ),

    recordKeyUse: unaryHandler<credentialV1.RecordKeyUseRequest, credentialV1.RecordKeyUseResponse>(
      logger,
      'RecordKeyUse',
      async (request, call) => {
        await platform(call.metadata);
        const uses = request.uses.flatMap((use) =>
          KeyId.safeParse(use.keyId).success && use.usedAt ? [{ keyId: use.keyId, usedAt: use.usedAt }] : [],
        );
        await keys.recordUse(uses.slice(0, 10_000));
        return {};
      },
    ),

    recordAdminAction: unaryHandler<credentialV1.RecordAdminActionRequest, credentialV1.RecordAdminActionResponse>(
      logger,
      'RecordAdminAction',
      async (request, call) => {
        const tenantId = tenantOf(request);
        const action = parseOrReject(
          AdminActionFields,
          request.action ?? {},
          ErrorCodes.INVALID_ADMIN_ACTION,
          'action',
        );
        await platform(call.metadata);
        return { id: await audit.record(tenantId, action) };
      },
    ),

    listAdminActions: unaryHandler<credentialV1.ListAdminActionsRequest, credentialV1.ListAdminActionsResponse>(
      logger,
      'ListAdminActions',
      async (request, call) => {
        const tenantId = tenantOf(request);
        const limit = pageLimit(request.limit);
        if (request.beforeId < 0)
          throw errors.invalidArgument(ErrorCodes.INVALID_BEFORE_ID, 'before_id must not be negative');
        await platform(call.metadata);
        return { actions: await audit.list(tenantId, request.beforeId, limit) };
      },
    ),
  };
}
