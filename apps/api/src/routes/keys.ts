import { TenantRole } from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import { z } from 'zod';
import { noteAuditResource } from '../access/admin-audit.js';
import type { CredentialCalls } from '../credential-calls.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';

/** Tells every api replica that a key was revoked (NATS), so none keeps trusting its cached answer. */
export interface KeyRevocations {
  announce(keyId: string): void;
}

export interface KeyRoutesOptions {
  /** Absent: the routes answer 503 (no credential service configured). */
  credentials: CredentialCalls | undefined;
  revocations: KeyRevocations | undefined;
}

const CreateBody = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._ -]{1,64}$/, 'must be 1-64 letters, digits, ".", "_", " " or "-"')
      .meta({ description: 'What the key is for, e.g. "billing backend".' }),
    role: TenantRole.meta({ description: 'The tenant role the key acts with (docs/access.md#roles).' }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When the key stops working; omitted: never (revoke it instead).' }),
  })
  .strict();

const KeyId = z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex digits');

const ApiKey = z
  .object({
    keyId: z.string(),
    prefix: z.string().meta({ description: 'What the key starts with (`plk_<keyId>`), to recognise it.' }),
    name: z.string(),
    role: TenantRole,
    createdBy: z.string().meta({ description: 'Who created it (the subject of the admin).' }),
    createdAt: OptionalTimestamp,
    expiresAt: OptionalTimestamp,
    revokedAt: OptionalTimestamp,
    lastUsedAt: OptionalTimestamp.meta({ description: 'Recorded within about a minute of a use; null: never used.' }),
  })
  .meta({ id: 'ApiKey' });

const KEY_EXAMPLE: z.infer<typeof ApiKey> = {
  keyId: '3f9c2a7b1d4e5f60',
  prefix: 'plk_3f9c2a7b1d4e5f60',
  name: 'billing backend',
  role: 'member',
  createdBy: 'alice',
  createdAt: '2026-06-01T09:30:00.000Z',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
};

const UNAVAILABLE = { 503: ['CREDENTIALS_UNAVAILABLE', 'UNAVAILABLE'] } as const;

export const keyOperations = {
  createApiKey: defineOperation({
    method: 'POST',
    path: '/v1/keys',
    operationId: 'createApiKey',
    summary: 'Create an API key for a server (the key is shown once)',
    description:
      'The answer holds the whole key in `secret`: the only time it is shown (only its hash is stored). Send it as `Authorization: Bearer <key>`.',
    tags: ['access'],
    access: 'tenant',
    role: 'admin',
    body: CreateBody,
    bodyExamples: { backend: { name: 'billing backend', role: 'member' } },
    responses: {
      201: {
        description: 'Created.',
        body: z.object({ key: ApiKey, secret: z.string() }),
        examples: { created: { key: KEY_EXAMPLE, secret: 'plk_3f9c2a7b1d4e5f60_…' } },
      },
    },
    errors: { ...UNAVAILABLE, 400: ['INVALID_KEY_EXPIRY'], 429: ['QUOTA_EXCEEDED'] },
  }),
  listApiKeys: defineOperation({
    method: 'GET',
    path: '/v1/keys',
    operationId: 'listApiKeys',
    summary: "The tenant's API keys (revoked and expired ones included), never a secret",
    tags: ['access'],
    access: 'tenant',
    role: 'admin',
    responses: {
      200: {
        description: 'Newest first.',
        body: z.object({ keys: z.array(ApiKey) }),
        examples: { one: { keys: [KEY_EXAMPLE] } },
      },
    },
    errors: UNAVAILABLE,
  }),
  revokeApiKey: defineOperation({
    method: 'DELETE',
    path: '/v1/keys/{keyId}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key: refused on every api replica within a second',
    tags: ['access'],
    access: 'tenant',
    role: 'admin',
    params: z.object({ keyId: KeyId }),
    invalid: { params: { status: 404, code: ApiErrorCodes.API_KEY_NOT_FOUND, message: 'no such API key' } },
    responses: {
      200: {
        description: 'Revoked (revoking a revoked key answers it unchanged).',
        body: z.object({ key: ApiKey }),
        examples: { revoked: { key: { ...KEY_EXAMPLE, revokedAt: '2026-06-02T09:30:00.000Z' } } },
      },
    },
    errors: { ...UNAVAILABLE, 404: ['API_KEY_NOT_FOUND'] },
  }),
};

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

function keyBody(key: credentialV1.ApiKeyInfo | undefined): z.infer<typeof ApiKey> {
  return {
    keyId: key?.keyId ?? '',
    prefix: key?.prefix ?? '',
    name: key?.name ?? '',
    role: TenantRole.parse(key?.role),
    createdBy: key?.createdBy ?? '',
    createdAt: iso(key?.createdAt),
    expiresAt: iso(key?.expiresAt),
    revokedAt: iso(key?.revokedAt),
    lastUsedAt: iso(key?.lastUsedAt),
  };
}

/** API keys for servers (docs/access.md#api-keys): create (shown once), list, revoke. Admins only. */
export function registerKeyRoutes(router: OperationRouter, options: KeyRoutesOptions): void {
  const calls = (): CredentialCalls => {
    if (!options.credentials)
      throw new HttpError(
        503,
        ApiErrorCodes.CREDENTIALS_UNAVAILABLE,
        'this deployment has no credential service configured',
      );
    return options.credentials;
  };

  router.add(keyOperations.createApiKey, async ({ body, request }) => {
    const principal = principalOf(request);
    const expiresAt = body.expiresAt === undefined ? undefined : new Date(body.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw new HttpError(400, ApiErrorCodes.INVALID_KEY_EXPIRY, 'expiresAt must be in the future');
    const created = await calls().createKey({
      tenantId: principal.tenantId,
      name: body.name,
      role: body.role,
      expiresAt,
      subject: principal.subject,
      tier: principal.tier ?? '',
    });
    noteAuditResource(request, `keyId=${created.key?.keyId ?? ''}`);
    return { status: 201, body: { key: keyBody(created.key), secret: created.secret } };
  });

  router.add(keyOperations.listApiKeys, async ({ request }) => {
    const { keys } = await calls().listKeys(principalOf(request).tenantId);
    return { status: 200, body: { keys: keys.map(keyBody) } };
  });

  router.add(keyOperations.revokeApiKey, async ({ params, request }) => {
    const principal = principalOf(request);
    const { key } = await calls().revokeKey({
      tenantId: principal.tenantId,
      keyId: params.keyId,
      subject: principal.subject,
    });
    options.revocations?.announce(params.keyId);
    return { status: 200, body: { key: keyBody(key) } };
  });
}
