import { CredentialAccount, CredentialService } from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, parseInput } from '../http-errors.js';
import { principalOf } from '../principal.js';
import type { CredentialCalls } from '../credential-calls.js';

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

function infoBody(info: credentialV1.CredentialInfo | undefined): Record<string, unknown> {
  return {
    service: info?.service,
    account: info?.account,
    version: info?.version,
    keyId: info?.keyId,
    createdAt: info?.createdAt?.toISOString() ?? null,
    updatedAt: info?.updatedAt?.toISOString() ?? null,
  };
}

function names(request: FastifyRequest): z.infer<typeof Names> {
  return parseInput(Names, request.params, 'INVALID_CREDENTIAL_NAME');
}

/**
 * Credentials of the caller's tenant, for an application's OAuth flow and settings pages: store
 * a token after the flow, list what is connected (never a secret), disconnect, and read the audit
 * trail. There is deliberately no route that returns a secret: only tool calls read them, through grants.
 */
export function registerCredentialRoutes(app: FastifyInstance, options: CredentialRoutesOptions): void {
  const calls = (): CredentialCalls => {
    if (!options.credentials) throw new HttpError(503, 'CREDENTIALS_UNAVAILABLE', 'this deployment has no credential service configured');
    return options.credentials;
  };

  app.put('/v1/credentials/:service/:account', async (request, reply) => {
    const { tenantId, subject } = principalOf(request);
    const key = names(request);
    const body = parseInput(PutBody, request.body, 'INVALID_BODY');
    const { credential } = await calls().save({ tenantId, ...key, secretJson: JSON.stringify(body.secret), expectedVersion: body.expectedVersion, subject });
    return reply.send({ credential: infoBody(credential) });
  });

  app.get('/v1/credentials', async (request, reply) => {
    const { tenantId, subject } = principalOf(request);
    const query = parseInput(ListQuery, request.query, 'INVALID_QUERY');
    const { credentials } = await calls().list({ tenantId, service: query.service ?? '', subject });
    return reply.send({ credentials: credentials.map(infoBody) });
  });

  app.delete('/v1/credentials/:service/:account', async (request, reply) => {
    const { tenantId, subject } = principalOf(request);
    await calls().remove({ tenantId, ...names(request), subject });
    return reply.code(204).send();
  });

  app.get('/v1/credentials/audit', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const query = parseInput(AuditQuery, request.query, 'INVALID_QUERY');
    const limit = query.limit ?? 100;
    const { events } = await calls().audit({ tenantId, beforeId: query.before ?? 0, limit });
    return reply.send({
      events: events.map((e) => ({
        id: e.id,
        service: e.service,
        account: e.account,
        action: e.action,
        outcome: e.outcome,
        actor: e.actorKind === 'grant' ? { kind: 'tool', tool: e.tool, runId: e.runId, callId: e.callId } : { kind: 'user', subject: e.subject || null },
        at: e.at?.toISOString() ?? null,
      })),
      nextBefore: events.length === limit ? (events[events.length - 1]?.id ?? null) : null,
    });
  });
}
