import type { credentialV1 } from '@platform/proto';
import type { CallerTable } from '@platform/service-kit';

/**
 * Who may call each credential method, by service identity (docs/security.md). Runners
 * (`runner/<name>`, one certificate per runner deployment) read and save through a grant the
 * orchestrator signed for one call; the api manages a tenant's records with its platform token.
 * Both keep their own check behind this one: the identity only says who may knock. The
 * orchestrator reads a tenant's model connection (its URL and key) to call the tenant's model, and
 * a remote agent's credential through a grant.
 */
export const CREDENTIAL_CALLERS: CallerTable<typeof credentialV1.CredentialServiceService> = {
  saveCredential: ['api', 'runner/*'],
  // The orchestrator reads a remote A2A agent's token (docs/remote-agents.md) with a grant it
  // signed for that one child run, as a runner does for one tool call.
  getCredential: ['runner/*', 'orchestrator'],
  listCredentials: ['api'],
  deleteCredential: ['api'],
  listAuditEvents: ['api'],
  getKeyUsage: ['api'],
  createModelConnection: ['api'],
  updateModelConnection: ['api'],
  getModelConnection: ['api'],
  listModelConnections: ['api'],
  deleteModelConnection: ['api'],
  // The only method that returns a model connection's key: for the orchestrator, to call the model.
  resolveModelConnection: ['orchestrator'],
  createApiKey: ['api'],
  listApiKeys: ['api'],
  revokeApiKey: ['api'],
  verifyApiKey: ['api'],
  recordKeyUse: ['api'],
  recordAdminAction: ['api'],
  listAdminActions: ['api'],
};
