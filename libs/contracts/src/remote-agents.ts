import { z } from 'zod';
import { CredentialAccount, CredentialService } from './credentials.js';

// Remote agents: A2A agents elsewhere that a tenant registers (POST /v1/remote-agents, the
// orchestrator stores them) and names in its agents' delegates (`DelegateSpec.remoteAgent`), so a
// delegation or a plan subtask hands its task to one as a child run. docs/remote-agents.md.

/** A remote agent's name, unique per tenant: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit. */
export const RemoteAgentName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');
export type RemoteAgentName = z.infer<typeof RemoteAgentName>;

/** The stored credential whose token a remote agent's calls carry (`Authorization: Bearer <token>`). */
export const RemoteAgentAuth = z
  .object({
    /** The credential's service (PUT /v1/credentials/{service}/{account}). */
    credentialService: CredentialService,
    /** Its account (default `primary`). */
    credentialAccount: CredentialAccount.optional(),
  })
  .strict();
export type RemoteAgentAuth = z.infer<typeof RemoteAgentAuth>;

/**
 * The agent a child run that a remote agent does is recorded under (`runs.agent_id`): the remote
 * agent's name after this prefix, version 0. Never a tenant agent's id (`agt_…`) nor a built-in's.
 */
const REMOTE_AGENT_PREFIX = 'remote:';

export function remoteRunAgentId(name: string): string {
  return `${REMOTE_AGENT_PREFIX}${name}`;
}

/** The remote agent's name of a run's agent id, or undefined when the run is not a remote agent's. */
export function remoteAgentOfRun(agentId: string | undefined): string | undefined {
  return agentId?.startsWith(REMOTE_AGENT_PREFIX) ? agentId.slice(REMOTE_AGENT_PREFIX.length) : undefined;
}
