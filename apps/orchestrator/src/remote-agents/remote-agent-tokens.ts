import { DEFAULT_CREDENTIAL_ACCOUNT } from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import { isPlatformError, type PromiseClient } from '@platform/service-kit';
import type { CredentialGrants } from '../tool-gate/credential-grants.js';

/** The tool name a remote agent's credential read is granted and audited under. */
const REMOTE_AGENT_GRANT_TOOL = 'remote_agent';

/** Why a remote agent's token could not be had (the child run fails with this message; never a secret). */
export class RemoteAgentTokenError extends Error {}

/** The token of a credential's secret: an OAuth token response's `access_token`, else a `token` field. */
export function tokenOfSecret(secretJson: string): string | undefined {
  let secret: unknown;
  try {
    secret = JSON.parse(secretJson);
  } catch {
    return undefined;
  }
  if (!secret || typeof secret !== 'object') return undefined;
  const { access_token: accessToken, token } = secret as Record<string, unknown>;
  const value = typeof accessToken === 'string' ? accessToken : typeof token === 'string' ? token : undefined;
  return value && /^[\x21-\x7e]+$/.test(value) ? value : undefined;
}

/**
 * Reads a remote agent's token at call time from the credential service, as any tool does: through
 * a grant signed for this one run and this one credential service (audited as tool
 * `remote_agent`). The token lives only for the call; it is never stored, logged or returned.
 */
export class RemoteAgentTokens {
  constructor(
    private readonly grants: Pick<CredentialGrants, 'forCall'>,
    private readonly credential: Pick<PromiseClient<credentialV1.CredentialServiceClient>, 'getCredential'>,
  ) {}

  async tokenFor(
    run: { tenantId: string; runId: string },
    credential: { service: string; account?: string },
    deadlineAt: number,
  ): Promise<string> {
    const grant = await this.grants.forCall({
      tenantId: run.tenantId,
      runId: run.runId,
      callId: run.runId,
      tool: REMOTE_AGENT_GRANT_TOOL,
      services: [credential.service],
      deadlineAt,
    });
    const named = `the credential '${credential.service}/${credential.account ?? DEFAULT_CREDENTIAL_ACCOUNT}'`;
    if (!grant)
      throw new RemoteAgentTokenError(`${named} cannot be read: credential grants are not configured on this platform`);
    let reply: credentialV1.GetCredentialResponse;
    try {
      reply = await this.credential.getCredential({
        tenantId: run.tenantId,
        service: credential.service,
        account: credential.account ?? '',
        grant,
        callId: run.runId,
        actor: undefined,
      });
    } catch (err) {
      if (isPlatformError(err) && err.kind === 'not_found')
        throw new RemoteAgentTokenError(
          `${named} does not exist: store it (PUT /v1/credentials/…) to call this remote agent`,
        );
      throw new RemoteAgentTokenError(`${named} could not be read: ${isPlatformError(err) ? err.code : 'unavailable'}`);
    }
    const token = tokenOfSecret(reply.secretJson);
    if (!token)
      throw new RemoteAgentTokenError(`${named} holds no "access_token" (or "token") string to send as a bearer token`);
    return token;
  }
}
