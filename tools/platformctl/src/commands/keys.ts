import type { ApiClient } from '../api-client.js';
import { fields, table } from '../format.js';

interface ApiKey {
  keyId: string;
  prefix: string;
  name: string;
  role: string;
  createdBy: string;
  createdAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

interface AdminAction {
  id: number;
  operation: string;
  resource: string;
  role: string;
  subject: string;
  actingUser: string | null;
  at: string | null;
}

/** `keys create`: a new API key; its secret is printed once (docs/access.md#api-keys). */
export async function createKey(
  api: ApiClient,
  spec: { name: string; role: string; expiresAt: string | undefined },
): Promise<{ json: unknown; text: string }> {
  const body = await api.post<{ key: ApiKey; secret: string }>('v1/keys', {
    name: spec.name,
    role: spec.role,
    ...(spec.expiresAt ? { expiresAt: spec.expiresAt } : {}),
  });
  return {
    json: body,
    text: `${fields([
      ['key id', body.key.keyId],
      ['name', body.key.name],
      ['role', body.key.role],
      ['expires', body.key.expiresAt ?? 'never'],
      ['secret', body.secret],
    ])}the secret is shown only this once: store it now\n`,
  };
}

/** `keys list`: the tenant's keys, never a secret. */
export async function listKeys(api: ApiClient): Promise<{ json: unknown; text: string }> {
  const body = await api.get<{ keys: ApiKey[] }>('v1/keys');
  return {
    json: body,
    text: table(
      ['KEY ID', 'PREFIX', 'NAME', 'ROLE', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'],
      body.keys.map((k) => [k.keyId, k.prefix, k.name, k.role, k.createdAt, k.lastUsedAt, k.expiresAt, k.revokedAt]),
    ),
  };
}

/** `keys revoke <keyId>`: refused on every api replica within a second. */
export async function revokeKey(api: ApiClient, keyId: string): Promise<{ json: unknown; text: string }> {
  const body = await api.delete<{ key: ApiKey }>(`v1/keys/${encodeURIComponent(keyId)}`);
  return { json: body, text: `revoked ${body.key.prefix} (${body.key.name}) at ${body.key.revokedAt ?? '?'}\n` };
}

/** `audit`: the tenant's administrative actions, newest first. */
export async function listAudit(api: ApiClient, limit: number): Promise<{ json: unknown; text: string }> {
  const body = await api.get<{ actions: AdminAction[] }>('v1/audit', { limit });
  return {
    json: body,
    text: table(
      ['ID', 'AT', 'OPERATION', 'RESOURCE', 'WHO', 'FOR', 'ROLE'],
      body.actions.map((a) => [a.id, a.at, a.operation, a.resource, a.subject, a.actingUser, a.role]),
    ),
  };
}
