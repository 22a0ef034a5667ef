import { CREDENTIAL_GRANT_AUDIENCE, CREDENTIAL_GRANT_ISSUER, type CredentialGrantClaims } from '@platform/contracts';
import { importJWK, SignJWT, type CryptoKey, type JWK, type KeyObject } from 'jose';

/** What one grant covers: one tool call of one run of one tenant, and the services the tool declared. */
export interface GrantScope {
  tenantId: string;
  runId: string;
  callId: string;
  tool: string;
  services: readonly string[];
  /** Seconds the grant lives. */
  ttlSeconds: number;
}

const ALGORITHMS = new Set(['EdDSA', 'ES256']);

/**
 * Signs credential grants with a private key the credential service never holds (it verifies with
 * the public half): a grant can be checked everywhere but minted only here.
 */
export class CredentialGrantIssuer {
  private constructor(
    private readonly key: CryptoKey | KeyObject | Uint8Array,
    private readonly alg: string,
    private readonly kid: string,
  ) {}

  /** From a private JWK (`{"kty":"OKP","crv":"Ed25519","d":...,"x":...,"kid":"g1","alg":"EdDSA"}`). */
  static async fromJwk(jwk: JWK): Promise<CredentialGrantIssuer> {
    const alg = jwk.alg ?? (jwk.crv === 'Ed25519' ? 'EdDSA' : jwk.crv === 'P-256' ? 'ES256' : '');
    if (!ALGORITHMS.has(alg))
      throw new Error(
        `grant signing key must be an Ed25519 (EdDSA) or P-256 (ES256) private JWK, not '${alg || jwk.kty}'`,
      );
    if (!jwk.d) throw new Error('grant signing key is a public key; the issuer needs the private JWK');
    if (!jwk.kid) throw new Error('grant signing key needs a "kid" so the credential service can pick its public half');
    return new CredentialGrantIssuer(await importJWK(jwk, alg), alg, jwk.kid);
  }

  /** A signed grant for one call. */
  async issue(scope: GrantScope, now = Date.now()): Promise<string> {
    const iat = Math.floor(now / 1000);
    const claims: Omit<CredentialGrantClaims, 'iss' | 'aud' | 'iat' | 'exp'> = {
      tid: scope.tenantId,
      run: scope.runId,
      call: scope.callId,
      tool: scope.tool,
      svc: [...scope.services],
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: this.alg, kid: this.kid, typ: 'JWT' })
      .setIssuer(CREDENTIAL_GRANT_ISSUER)
      .setAudience(CREDENTIAL_GRANT_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + Math.max(1, Math.ceil(scope.ttlSeconds)))
      .sign(this.key);
  }
}
