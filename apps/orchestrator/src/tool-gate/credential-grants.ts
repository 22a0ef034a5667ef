import type { Logger } from '@platform/service-kit';
import { CredentialGrantIssuer } from '@platform/tool-sdk';
import type { JWK } from 'jose';

/** One tool call that needs credentials. */
export interface GrantRequest {
  tenantId: string;
  runId: string;
  callId: string;
  tool: string;
  /** The services the tool declared in its descriptor (`platform.credentials`). */
  services: readonly string[];
  /** The call's absolute deadline (epoch ms): the grant expires shortly after it. */
  deadlineAt: number;
}

export interface CredentialGrantSettings {
  /** The private JWK (Ed25519 or P-256, with a `kid`) grants are signed with; absent: no grants. */
  signingKeyJson: string | undefined;
  /** Longest a grant lives, whatever the call's deadline. */
  maxTtlSeconds: number;
  /** Seconds a grant outlives its call's deadline (clock skew, a final save). */
  slackSeconds: number;
}

/**
 * The turn step that gives a tool call its credential grant: for a tool that declares
 * `credentials`, a short-lived token, signed here and verified by the credential service, that
 * lets this call, and only it, read and save those services of this tenant. Tools that declare
 * none get no grant.
 */
export class CredentialGrants {
  private constructor(
    private readonly issuer: CredentialGrantIssuer | undefined,
    private readonly settings: CredentialGrantSettings,
    private readonly logger: Logger,
  ) {}

  static async create(settings: CredentialGrantSettings, logger: Logger): Promise<CredentialGrants> {
    if (!settings.signingKeyJson) return new CredentialGrants(undefined, settings, logger);
    let jwk: JWK;
    try {
      jwk = JSON.parse(settings.signingKeyJson) as JWK;
    } catch {
      throw new Error('CREDENTIAL_GRANT_SIGNING_KEY is not valid JSON (expected a private JWK)');
    }
    const issuer = await CredentialGrantIssuer.fromJwk(jwk).catch((err: unknown) => {
      throw new Error(`CREDENTIAL_GRANT_SIGNING_KEY: ${(err as Error).message}`);
    });
    return new CredentialGrants(issuer, settings, logger);
  }

  get enabled(): boolean {
    return this.issuer !== undefined;
  }

  /** The grant for one call, or undefined when the tool needs none (or grants are not configured). */
  async forCall(request: GrantRequest, now = Date.now()): Promise<string | undefined> {
    if (request.services.length === 0) return undefined;
    if (!this.issuer) {
      this.logger.warn(
        { tool: request.tool },
        'tool declares credentials but CREDENTIAL_GRANT_SIGNING_KEY is not set; its call goes without a grant',
      );
      return undefined;
    }
    const untilDeadline = Math.ceil((request.deadlineAt - now) / 1000) + this.settings.slackSeconds;
    const ttlSeconds = Math.max(1, Math.min(this.settings.maxTtlSeconds, untilDeadline));
    return this.issuer.issue(
      {
        tenantId: request.tenantId,
        runId: request.runId,
        callId: request.callId,
        tool: request.tool,
        services: request.services,
        ttlSeconds,
      },
      now,
    );
  }
}
