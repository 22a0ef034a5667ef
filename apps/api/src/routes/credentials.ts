import { CredentialAccount, CredentialService } from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import type { CredentialCalls } from '../credential-calls.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface CredentialRoutesOptions {
  /** Absent when the api has no credential service configured: every route answers 503. */
  credentials: CredentialCalls | undefined;
}

const PutBody = z
  .object({
    /** The credential as a JSON object (e.g. the token response of the OAuth flow); stored encrypted. */
    secret: z.record(z.string(), z.unknown()),
    /** Replace only this version (0 = only if none exists yet); omitted = create or replace. */
    expectedVersion: z.number().int().min(0).optional(),
  })
  .strict();

const Names = z.object({ service: CredentialService, account: CredentialAccount });
const ListQuery = z.object({ service: CredentialService.optional() }).strict();
const AuditQuery = z
  .object({
    before: z.coerce.number().int().positive().optional(),
    limit: z.coerce.number().int().min(1).max(1_000).optional(),
  })
  .strict();

/** A connected account: never the secret. */
const CredentialInfo = z
  .object({
    service: z.string(),
    account: z.string(),
    version: z.number().int(),
    keyId: z.string().meta({ description: 'The key the secret is encrypted with.' }),
    createdAt: OptionalTimestamp,
    updatedAt: OptionalTimestamp,
  })
  .meta({ id: 'CredentialInfo' });

const INFO_EXAMPLE = {
  service: 'gmail',
  account: 'me@example.com',
  version: 1,
  keyId: 'k1',
  createdAt: '2026-06-01T09:30:00.000Z',
  updatedAt: '2026-06-01T09:30:00.000Z',
};

const AuditEvent = z.object({
  id: z.number().int(),
  service: z.string(),
  account: z.string(),
  action: z.string(),
  outcome: z.string(),
  actor: z.union([
    z.object({ kind: z.literal('tool'), tool: z.string(), runId: z.string(), callId: z.string() }),
    z.object({ kind: z.literal('user'), subject: z.string().nullable() }),
  ]),
  at: OptionalTimestamp,
});

const INVALID_NAME = { params: { code: ApiErrorCodes.INVALID_CREDENTIAL_NAME } };
const UNAVAILABLE = { 503: ['CREDENTIALS_UNAVAILABLE', 'UNAVAILABLE'] } as const;

export const credentialOperations = {
  saveCredential: defineOperation({
    method: 'PUT',
    path: '/v1/credentials/{service}/{account}',
    operationId: 'saveCredential',
    summary: "Store (create or replace) an account's credential, encrypted",
    tags: ['credentials'],
    access: 'tenant',
    role: 'member',
    params: Names,
    body: PutBody,
    invalid: INVALID_NAME,
    bodyExamples: {
      oauthToken: { secret: { access_token: 'ya29.a0', refresh_token: '1//0g', expires_at: 1780309800 } },
    },
    responses: {
      200: {
        description: 'Stored; the secret is not echoed.',
        body: z.object({ credential: CredentialInfo }),
        examples: { stored: { credential: INFO_EXAMPLE } },
      },
    },
    errors: {
      ...UNAVAILABLE,
      400: ['INVALID_SECRET'],
      409: ['VERSION_CONFLICT'],
      413: ['SECRET_TOO_LARGE'],
      429: ['QUOTA_EXCEEDED'],
    },
  }),
  listCredentials: defineOperation({
    method: 'GET',
    path: '/v1/credentials',
    operationId: 'listCredentials',
    summary: 'Connected accounts (never secrets)',
    tags: ['credentials'],
    access: 'tenant',
    role: 'viewer',
    query: ListQuery,
    responses: {
      200: {
        description: "The tenant's connected accounts.",
        body: z.object({ credentials: z.array(CredentialInfo) }),
        examples: { one: { credentials: [INFO_EXAMPLE] } },
      },
    },
    errors: UNAVAILABLE,
  }),
  deleteCredential: defineOperation({
    method: 'DELETE',
    path: '/v1/credentials/{service}/{account}',
    operationId: 'deleteCredential',
    summary: 'Disconnect an account',
    tags: ['credentials'],
    access: 'tenant',
    role: 'member',
    params: Names,
    invalid: INVALID_NAME,
    responses: { 204: { description: 'Deleted.' } },
    errors: { ...UNAVAILABLE, 404: ['CREDENTIAL_NOT_FOUND'] },
  }),
  credentialAudit: defineOperation({
    method: 'GET',
    path: '/v1/credentials/audit',
    operationId: 'listCredentialAudit',
    summary: 'The credential audit trail, newest first',
    tags: ['credentials'],
    access: 'tenant',
    role: 'viewer',
    query: AuditQuery,
    responses: {
      200: {
        description: 'Who stored, read (a tool, through a grant) or deleted which credential.',
        body: z.object({
          events: z.array(AuditEvent),
          nextBefore: z
            .number()
            .int()
            .nullable()
            .meta({ description: 'Pass as `before` for the next page; null on the last one.' }),
        }),
        examples: {
          page: {
            events: [
              {
                id: 7,
                service: 'gmail',
                account: 'me@example.com',
                action: 'read',
                outcome: 'ok',
                actor: { kind: 'tool', tool: 'send_email', runId: 'run_1', callId: 'call_1' },
                at: '2026-06-01T09:30:00.000Z',
              },
            ],
            nextBefore: null,
          },
        },
      },
    },
    errors: UNAVAILABLE,
  }),
};

function infoBody(info: credentialV1.CredentialInfo | undefined): z.infer<typeof CredentialInfo> {
  return {
    service: info?.service ?? '',
    account: info?.account ?? '',
    version: info?.version ?? 0,
    keyId: info?.keyId ?? '',
    createdAt: info?.createdAt?.toISOString() ?? null,
    updatedAt: info?.updatedAt?.toISOString() ?? null,
  };
}

/**
 * Credentials of the caller's tenant, for an application's OAuth flow and settings pages: store
 * a token after the flow, list what is connected (never a secret), disconnect, and read the audit
 * trail. There is deliberately no route that returns a secret: only tool calls read them, through grants.
 */
export function registerCredentialRoutes(router: OperationRouter, options: CredentialRoutesOptions): void {
  const calls = (): CredentialCalls => {
    if (!options.credentials)
      throw new HttpError(
        503,
        ApiErrorCodes.CREDENTIALS_UNAVAILABLE,
        'this deployment has no credential service configured',
      );
    return options.credentials;
  };

  router.add(credentialOperations.saveCredential, async ({ params, body, request }) => {
    const { tenantId, subject, tier } = principalOf(request);
    const { credential } = await calls().save({
      tenantId,
      ...params,
      secretJson: JSON.stringify(body.secret),
      expectedVersion: body.expectedVersion,
      subject,
      tier: tier ?? '',
    });
    return { status: 200, body: { credential: infoBody(credential) } };
  });

  router.add(credentialOperations.listCredentials, async ({ query, request }) => {
    const { tenantId, subject } = principalOf(request);
    const { credentials } = await calls().list({ tenantId, service: query.service ?? '', subject });
    return { status: 200, body: { credentials: credentials.map(infoBody) } };
  });

  router.add(credentialOperations.deleteCredential, async ({ params, request }) => {
    const { tenantId, subject } = principalOf(request);
    await calls().remove({ tenantId, ...params, subject });
    return { status: 204 };
  });

  router.add(credentialOperations.credentialAudit, async ({ query, request }) => {
    const { tenantId } = principalOf(request);
    const limit = query.limit ?? 100;
    const { events } = await calls().audit({ tenantId, beforeId: query.before ?? 0, limit });
    return {
      status: 200,
      body: {
        events: events.map((e) => ({
          id: e.id,
          service: e.service,
          account: e.account,
          action: e.action,
          outcome: e.outcome,
          actor:
            e.actorKind === 'grant'
              ? { kind: 'tool' as const, tool: e.tool, runId: e.runId, callId: e.callId }
              : { kind: 'user' as const, subject: e.subject || null },
          at: e.at?.toISOString() ?? null,
        })),
        nextBefore: events.length === limit ? (events[events.length - 1]?.id ?? null) : null,
      },
    };
  });
}
