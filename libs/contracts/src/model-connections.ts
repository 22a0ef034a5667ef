import { z } from 'zod';
import { compositeKey } from './key-encoding.js';
import { TenantId } from './ids.js';

// Model connections: an OpenAI-compatible endpoint and API key a tenant registers (the credential
// service stores them, POST /v1/model-connections manages them) and names in its agents
// (`AgentSpec.modelConnection`). docs/models.md, "Models the tenant brings".

/** A connection's name, unique per tenant: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit. */
export const ModelConnectionName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');
export type ModelConnectionName = z.infer<typeof ModelConnectionName>;

/** A model a connection serves, as the endpoint names it (the `model` of its chat completions). */
export const ModelConnectionModel = z.string().min(1).max(200);

/** Core NATS notices that a connection was created, changed or deleted: caches drop their copy. */
export const MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX = 'platform.model-connections.changed';

/** The subject of one connection's change notice; tenant and name are one token each (`compositeKey`). */
export function modelConnectionChangedSubject(tenantId: string, name: string): string {
  return `${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.${compositeKey(tenantId, name)}`;
}

/** The body of a change notice (the subject says the same; the body is what receivers parse). */
export const ModelConnectionChanged = z
  .object({
    tenantId: TenantId,
    name: ModelConnectionName,
  })
  .strict();
export type ModelConnectionChanged = z.infer<typeof ModelConnectionChanged>;
