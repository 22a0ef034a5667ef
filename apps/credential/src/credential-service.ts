import type { Metadata } from '@grpc/grpc-js';
import {
  CredentialAccount,
  CredentialService,
  DEFAULT_CREDENTIAL_ACCOUNT,
  quotasFor,
  type TenantTiers,
} from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import { errors, parseOrReject, PlatformError, tenantOf, unaryHandler, type Logger } from '@platform/service-kit';
import { listAudit, type AuditEntry } from './audit-log.js';
import { checkGrantScope, grantNotAllowed, type Caller, type CallerAuth } from './caller-auth.js';
import type { CredentialDatabase } from './credential-database.js';
import type { CredentialQuota } from './credential-quota.js';
import type { CredentialKey } from './credential-key.js';
import type { AuditActor, CredentialInfo, CredentialStore } from './credential-store.js';
import type { KeyProvider } from './crypto/key-provider.js';
import type { ReadAuditBatcher } from './read-audit-batcher.js';
import { keyUsage } from './key-rotation.js';
import { ErrorCodes } from './error-codes.js';
import { accessServiceMethods } from './access-service.js';
import type { AdminAuditStore } from './admin-audit-store.js';
import type { ApiKeyStore } from './api-key-store.js';

/** What the service accepts and returns at most, compiled from the environment at boot (server.ts). */
export interface CredentialServiceLimits {
  /** Largest secret_json accepted, in bytes. */
  maxSecretBytes: number;
  /** Audit events one page returns by default, and at most. */
  auditPageSize: number;
  auditMaxPageSize: number;
}

export interface CredentialServiceDeps {
  store: CredentialStore;
  /** API keys and the audit of administrative actions (docs/access.md). */
  access: { keys: ApiKeyStore; audit: AdminAuditStore };
  db: CredentialDatabase;
  /** Flushed before the audit trail is read, so it shows every read this replica answered. */
  readAudit: Pick<ReadAuditBatcher, 'flush'>;
  keys: KeyProvider;
  auth: CallerAuth;
  limits: CredentialServiceLimits;
  /** Records and secret bytes per tenant, by tier. */
  tiers: { tiers: TenantTiers; defaultTier: string };
  logger: Logger;
}

function credentialKey(request: { tenantId: string; service: string; account: string }): CredentialKey {
  return {
    tenantId: tenantOf(request),
    service: parseOrReject(CredentialService, request.service, ErrorCodes.INVALID_SERVICE, 'service'),
    account: parseOrReject(
      CredentialAccount,
      request.account || DEFAULT_CREDENTIAL_ACCOUNT,
      ErrorCodes.INVALID_ACCOUNT,
      'account',
    ),
  };
}

function actorOf(caller: Caller, subject: string | undefined): AuditActor {
  if (caller.kind === 'grant')
    return {
      actorKind: 'grant',
      subject: '',
      tool: caller.claims.tool,
      runId: caller.claims.run,
      callId: caller.claims.call,
    };
  return { actorKind: 'platform', subject: (subject ?? '').slice(0, 200), tool: '', runId: '', callId: '' };
}

function infoMessage(info: CredentialInfo): credentialV1.CredentialInfo {
  return {
    service: info.service,
    account: info.account,
    version: info.version,
    keyId: info.keyId,
    createdAt: info.createdAt,
    updatedAt: info.updatedAt,
  };
}

/** The secret must be a JSON object, stored byte for byte; anything else is refused, never rewritten. */
function parseSecret(secretJson: string, maxBytes: number): Buffer {
  const bytes = Buffer.from(secretJson, 'utf8');
  if (bytes.length > maxBytes)
    throw new PlatformError(
      'payload_too_large',
      ErrorCodes.SECRET_TOO_LARGE,
      `secret_json is larger than ${maxBytes} bytes`,
    );
  if (bytes.toString('utf8') !== secretJson)
    throw errors.invalidArgument(ErrorCodes.INVALID_SECRET, 'secret_json is not valid UTF-8 text');
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretJson);
  } catch {
    // Never quote the text or the parser's message: both may hold the secret.
    throw errors.invalidArgument(ErrorCodes.INVALID_SECRET, 'secret_json is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw errors.invalidArgument(ErrorCodes.INVALID_SECRET, 'secret_json must be a JSON object');
  return bytes;
}

/** The credential methods of the CredentialService (model connections: model-connections/model-connection-service.ts). */
type CredentialMethods = Pick<
  credentialV1.CredentialServiceServer,
  'saveCredential' | 'getCredential' | 'listCredentials' | 'deleteCredential' | 'listAuditEvents' | 'getKeyUsage'
>;

/** The CredentialService gRPC implementation: authenticates the caller, checks a grant's scope, validates, then stores. */
export function credentialServiceImplementation(
  deps: CredentialServiceDeps,
): CredentialMethods & ReturnType<typeof accessServiceMethods> {
  const { store, auth, limits, logger } = deps;
  const quotaOf = (tier: string): CredentialQuota => {
    const { tier: applied, quotas } = quotasFor(deps.tiers.tiers, tier, deps.tiers.defaultTier);
    return { maxRecords: quotas.credentialRecords, maxBytes: quotas.credentialBytes, tier: applied };
  };

  /** Authenticates, and for a grant checks tenant, call and service; an out-of-scope grant is audited as denied, under the grant's tenant. */
  async function authorize(
    key: CredentialKey,
    request: { grant: string; callId: string; actor?: credentialV1.Actor | undefined },
    metadata: Metadata,
    action: AuditEntry['action'],
  ) {
    const caller = await auth.authenticate(request.grant, metadata);
    const actor = actorOf(caller, request.actor?.subject);
    if (caller.kind === 'grant') {
      try {
        checkGrantScope(caller.claims, { tenantId: key.tenantId, service: key.service, callId: request.callId });
      } catch (err) {
        // Recorded in the trail of the tenant whose runner tried: a grant of tenant A aimed at
        // tenant B must not put A's run and call ids into B's audit.
        await store.auditDenied({ ...key, tenantId: caller.claims.tid }, action, actor);
        throw err;
      }
    }
    return actor;
  }

  async function platformOnly(grant: string, metadata: Metadata, method: string): Promise<Caller> {
    if (grant) throw grantNotAllowed(method);
    return auth.authenticate('', metadata);
  }

  return {
    ...accessServiceMethods({
      ...deps.access,
      auth,
      tiers: deps.tiers,
      limits: { auditPageSize: limits.auditPageSize, auditMaxPageSize: limits.auditMaxPageSize },
      logger,
    }),
    saveCredential: unaryHandler<credentialV1.SaveCredentialRequest, credentialV1.SaveCredentialResponse>(
      logger,
      'SaveCredential',
      async (request, call) => {
        const key = credentialKey(request);
        const secret = parseSecret(request.secretJson, limits.maxSecretBytes);
        if (request.expectedVersion !== undefined && request.expectedVersion < 0)
          throw errors.invalidArgument(ErrorCodes.INVALID_EXPECTED_VERSION, 'expected_version must not be negative');
        const actor = await authorize(key, request, call.metadata, 'save');
        const info = await store.save(key, secret, request.expectedVersion, actor, quotaOf(request.tier ?? ''));
        return { credential: infoMessage(info) };
      },
    ),

    getCredential: unaryHandler<credentialV1.GetCredentialRequest, credentialV1.GetCredentialResponse>(
      logger,
      'GetCredential',
      async (request, call) => {
        const key = credentialKey(request);
        const actor = await authorize(key, request, call.metadata, 'get');
        const { info, secret } = await store.get(key, actor);
        return { credential: infoMessage(info), secretJson: secret.toString('utf8') };
      },
    ),

    listCredentials: unaryHandler<credentialV1.ListCredentialsRequest, credentialV1.ListCredentialsResponse>(
      logger,
      'ListCredentials',
      async (request, call) => {
        const tenantId = tenantOf(request);
        const service = request.service
          ? parseOrReject(CredentialService, request.service, ErrorCodes.INVALID_SERVICE, 'service')
          : undefined;
        const caller = await platformOnly('', call.metadata, 'ListCredentials');
        const infos = await store.list(tenantId, service, actorOf(caller, request.actor?.subject));
        return { credentials: infos.map(infoMessage) };
      },
    ),

    deleteCredential: unaryHandler<credentialV1.DeleteCredentialRequest, credentialV1.DeleteCredentialResponse>(
      logger,
      'DeleteCredential',
      async (request, call) => {
        const key = credentialKey(request);
        const caller = await platformOnly('', call.metadata, 'DeleteCredential');
        await store.delete(key, actorOf(caller, request.actor?.subject));
        return {};
      },
    ),

    listAuditEvents: unaryHandler<credentialV1.ListAuditEventsRequest, credentialV1.ListAuditEventsResponse>(
      logger,
      'ListAuditEvents',
      async (request, call) => {
        const tenantId = tenantOf(request);
        if (request.limit < 0 || request.limit > limits.auditMaxPageSize) {
          throw errors.invalidArgument(
            ErrorCodes.INVALID_LIMIT,
            `limit must be between 0 and ${limits.auditMaxPageSize}`,
          );
        }
        if (request.beforeId < 0)
          throw errors.invalidArgument(ErrorCodes.INVALID_BEFORE_ID, 'before_id must not be negative');
        await platformOnly('', call.metadata, 'ListAuditEvents');
        await deps.readAudit.flush();
        const events = await deps.db.asTenant(tenantId, (client) =>
          listAudit(client, tenantId, request.beforeId, request.limit || limits.auditPageSize),
        );
        return { events: events.map((e) => ({ ...e, at: e.at })) };
      },
    ),

    getKeyUsage: unaryHandler<credentialV1.GetKeyUsageRequest, credentialV1.GetKeyUsageResponse>(
      logger,
      'GetKeyUsage',
      async (_request, call) => {
        await platformOnly('', call.metadata, 'GetKeyUsage');
        return { keys: await keyUsage(deps.db, deps.keys) };
      },
    ),
  };
}
