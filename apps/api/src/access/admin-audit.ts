import type { TenantRole } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CredentialCalls } from '../credential-calls.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What an administrative write created or changed, when its path does not name it (a new key's id). */
    auditResource?: string;
  }
}

/** The roles whose operations are administrative: their successful writes are audited. */
const AUDITED_ROLES: ReadonlySet<TenantRole> = new Set(['developer', 'admin']);

/** Operations recorded whatever their role: deleting a conversation is a member's, and must leave a trace (never its content). */
const ALWAYS_AUDITED: ReadonlySet<string> = new Set(['deleteConversation']);

/** Whether an operation of this method and role is recorded in the audit (docs/access.md#audit). */
function isAuditedOperation(method: string, role: TenantRole | undefined, operationId: string): boolean {
  if (method === 'GET' || method === 'HEAD') return false;
  return ALWAYS_AUDITED.has(operationId) || (role !== undefined && AUDITED_ROLES.has(role));
}

/** Names what a handler created, for the audit row of its request. */
export function noteAuditResource(request: FastifyRequest, resource: string): void {
  request.auditResource = resource;
}

/** `agent=support-bot,version=3` from the path's parameters (never the body: it may hold secrets). */
function resourceOf(request: FastifyRequest): string {
  const params = Object.entries((request.params ?? {}) as Record<string, unknown>).map(
    ([name, value]) => `${name}=${String(value)}`,
  );
  return [...params, ...(request.auditResource ? [request.auditResource] : [])].join(',').slice(0, 512);
}

/**
 * Records every successful write of an operation that needs the developer or admin role, before
 * the answer leaves: who (subject, key, the user a key acted for), what (operation, resource), the
 * role it acted with. A failure to record is logged as an error and the answer still goes out
 * (the write has happened; refusing the answer would only make the client retry it).
 */
export function registerAdminAudit(
  app: FastifyInstance,
  credentials: Pick<CredentialCalls, 'recordAdminAction'> | undefined,
  logger: Logger,
): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const { role, operationId, access } = request.routeOptions.config;
    if (access !== 'tenant' || !operationId || !isAuditedOperation(request.method, role, operationId)) return payload;
    if (reply.statusCode < 200 || reply.statusCode >= 400 || !request.principal) return payload;
    const principal = request.principal;
    const action = {
      operation: operationId,
      method: request.method,
      resource: resourceOf(request),
      status: reply.statusCode,
      role: principal.role,
      subject: (principal.actingUser ? `key:${principal.keyId}` : (principal.subject ?? '')).slice(0, 256),
      keyId: principal.keyId ?? '',
      actingUser: principal.actingUser ?? '',
      requestId: String(request.id).slice(0, 128),
    };
    try {
      if (!credentials) throw new Error('no credential service configured');
      await credentials.recordAdminAction(principal.tenantId, action);
    } catch (err) {
      logger.error(
        { err, tenantId: principal.tenantId, action },
        'cannot record an administrative action in the audit',
      );
    }
    return payload;
  });
}
