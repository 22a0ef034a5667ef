import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, createLogger, loadConfig, type PromiseClient } from '@platform/service-kit';
import type { memoryV1, orchestratorV1 } from '@platform/proto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { TokenVerifier, type Principal, type TokenVerifierOptions } from './auth.js';
import { ApiConfig } from './config.js';
import { HttpError } from './http-errors.js';
import { noAgentPool, noAgents, noConversations, noEvents, noTrigger } from './test-support/unavailable-ports.js';

const SECRET = 'test-secret-that-is-at-least-32-chars-long';
const ISSUER = 'https://issuer.test/';
const AUDIENCE = 'platform-api';

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string, alg: SigningKey['alg']): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A real identity provider's JWKS endpoint: serves `served` (or fails with `status`). */
class JwksServer {
  served: SigningKey[] = [];
  status = 200;
  requests = 0;
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.requests += 1;
      if (request.url !== '/.well-known/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(this.status, { 'content-type': 'application/json' });
      response.end(
        this.status === 200 ? JSON.stringify({ keys: this.served.map((key) => key.jwk) }) : '{"error":"boom"}',
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/.well-known/jwks.json`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  }
}

interface TokenOptions {
  kid?: string;
  issuer?: string | null;
  audience?: string | string[] | null;
  expiresAt?: number;
}

async function keyToken(key: SigningKey, claims: Record<string, unknown>, options: TokenOptions = {}): Promise<string> {
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(options.expiresAt ?? '5m');
  if (options.issuer !== null) jwt = jwt.setIssuer(options.issuer ?? ISSUER);
  if (options.audience !== null) jwt = jwt.setAudience(options.audience ?? AUDIENCE);
  return jwt.sign(key.privateKey);
}

async function secretToken(
  claims: Record<string, unknown>,
  options: { secret?: Uint8Array | string; issuer?: string; audience?: string } = {},
): Promise<string> {
  const secret =
    typeof options.secret === 'string' || options.secret === undefined
      ? new TextEncoder().encode(options.secret ?? SECRET)
      : options.secret;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .sign(secret);
}

/** The HttpError `verify` rejects with (fails the test when it resolves or throws anything else). */
async function rejection(verifier: TokenVerifier, token: string): Promise<HttpError> {
  const outcome: unknown = await verifier.verify(`Bearer ${token}`).then(
    (principal: Principal) => ({ resolved: principal }),
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(HttpError);
  return outcome as HttpError;
}

/** A port on which nothing listens (a server bound it, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const jwks = new JwksServer();
let rsa1: SigningKey;
let rsa2: SigningKey;
let ec: SigningKey;
let stranger: SigningKey;
let warnings: unknown[];

function verifierWith(options: Partial<TokenVerifierOptions> = {}): TokenVerifier {
  return new TokenVerifier({
    secret: SECRET,
    jwksUrl: jwks.url,
    issuer: ISSUER,
    audience: [AUDIENCE, 'other-api'],
    // No cooldown, so a rotated key is looked up at once (production keeps jose's 30 s).
    jwks: { cooldownMs: 0, timeoutMs: 2_000 },
    logger: { warn: (...args: unknown[]) => void warnings.push(args) } as unknown as TokenVerifierOptions['logger'],
    ...options,
  });
}

beforeAll(async () => {
  [rsa1, rsa2, ec, stranger] = await Promise.all([
    signingKey('rsa-1', 'RS256'),
    signingKey('rsa-2', 'RS256'),
    signingKey('ec-1', 'ES256'),
    signingKey('rsa-x', 'RS256'),
  ]);
  await jwks.start();
});
afterAll(async () => {
  await jwks.stop();
});
beforeEach(() => {
  jwks.served = [rsa1, ec];
  jwks.status = 200;
  jwks.requests = 0;
  warnings = [];
});

describe('TokenVerifier with a JWKS URL', () => {
  it('accepts a valid RS256 token and derives the tenant', async () => {
    const verifier = verifierWith();
    await expect(verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'user-1', tenant: 'acme' })}`)).resolves.toEqual(
      { tenantId: 'acme', subject: 'user-1', role: 'member' },
    );
    await expect(verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'globex' })}`)).resolves.toEqual({
      tenantId: 'globex',
      subject: 'globex',
      role: 'member',
    });
    expect(jwks.requests).toBe(1); // keys are cached between tokens
  });

  it('accepts a valid ES256 token', async () => {
    await expect(verifierWith().verify(`Bearer ${await keyToken(ec, { sub: 'acme' })}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
  });

  it('accepts a token for any one of the configured audiences', async () => {
    const token = await keyToken(rsa1, { sub: 'acme' }, { audience: ['someone-else', 'other-api'] });
    await expect(verifierWith().verify(`Bearer ${token}`)).resolves.toMatchObject({ tenantId: 'acme' });
  });

  it('rejects a token from another issuer with 401 INVALID_ISSUER', async () => {
    const error = await rejection(
      verifierWith(),
      await keyToken(rsa1, { sub: 'acme' }, { issuer: 'https://evil.test/' }),
    );
    expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_ISSUER' });
    expect(error.message).toMatch(/"iss"/);
  });

  it('rejects a token without an issuer when one is configured', async () => {
    expect(await rejection(verifierWith(), await keyToken(rsa1, { sub: 'acme' }, { issuer: null }))).toMatchObject({
      statusCode: 401,
      code: 'INVALID_ISSUER',
    });
  });

  it('rejects a token for another audience with 401 INVALID_AUDIENCE', async () => {
    const error = await rejection(verifierWith(), await keyToken(rsa1, { sub: 'acme' }, { audience: 'billing-api' }));
    expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_AUDIENCE' });
    expect(error.message).toMatch(/"aud"/);
  });

  it('does not check issuer or audience when none is configured', async () => {
    const verifier = verifierWith({ issuer: undefined, audience: undefined });
    await expect(
      verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'acme' }, { issuer: null, audience: null })}`),
    ).resolves.toMatchObject({ tenantId: 'acme' });
  });

  it('rejects an expired token with 401 TOKEN_EXPIRED', async () => {
    const token = await keyToken(rsa1, { sub: 'acme' }, { expiresAt: Math.floor(Date.now() / 1000) - 60 });
    expect(await rejection(verifierWith(), token)).toMatchObject({ statusCode: 401, code: 'TOKEN_EXPIRED' });
  });

  it('accepts a token that expired within the clock tolerance', async () => {
    const token = await keyToken(rsa1, { sub: 'acme' }, { expiresAt: Math.floor(Date.now() / 1000) - 2 });
    await expect(verifierWith({ clockToleranceSeconds: 30 }).verify(`Bearer ${token}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
    expect(await rejection(verifierWith({ clockToleranceSeconds: 0 }), token)).toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it('rejects a token whose kid is not in the key set with 401 UNKNOWN_SIGNING_KEY', async () => {
    const error = await rejection(verifierWith(), await keyToken(stranger, { sub: 'acme' }));
    expect(error).toMatchObject({ statusCode: 401, code: 'UNKNOWN_SIGNING_KEY' });
  });

  it('rejects a token signed by another key under a known kid', async () => {
    expect(await rejection(verifierWith(), await keyToken(stranger, { sub: 'acme' }, { kid: 'rsa-1' }))).toMatchObject({
      statusCode: 401,
      code: 'INVALID_TOKEN',
    });
  });

  it('follows key rotation: a token with the new kid is accepted once the server serves the new key', async () => {
    const verifier = verifierWith();
    await expect(verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'acme' })}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
    const rotated = await keyToken(rsa2, { sub: 'acme' });
    expect(await rejection(verifier, rotated)).toMatchObject({ code: 'UNKNOWN_SIGNING_KEY' });

    jwks.served = [rsa2, ec];
    const before = jwks.requests;
    await expect(verifier.verify(`Bearer ${rotated}`)).resolves.toMatchObject({ tenantId: 'acme' });
    expect(jwks.requests).toBe(before + 1); // the unknown kid made it refetch
    expect(
      await rejection(verifier, await keyToken(rsa1, { sub: 'acme', jti: 'signed-after-rotation' })),
    ).toMatchObject({ code: 'UNKNOWN_SIGNING_KEY' });
    // A token verified before the rotation is remembered for AUTH_TOKEN_CACHE_MAX_AGE_MS at most;
    // without the cache it is refused as soon as its key is gone.
    const uncached = verifierWith({ cache: { maxEntries: 0, maxAgeMs: 60_000 } });
    expect(await rejection(uncached, await keyToken(rsa1, { sub: 'acme' }))).toMatchObject({
      code: 'UNKNOWN_SIGNING_KEY',
    });
  });

  it('tries every matching key when the token has no kid', async () => {
    jwks.served = [rsa1, rsa2];
    const token = await new SignJWT({ sub: 'acme' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(rsa2.privateKey);
    await expect(verifierWith().verify(`Bearer ${token}`)).resolves.toMatchObject({ tenantId: 'acme' });
    const forged = await new SignJWT({ sub: 'acme' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(stranger.privateKey);
    expect(await rejection(verifierWith(), forged)).toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('answers 503 AUTH_UNAVAILABLE when the JWKS server is down', async () => {
    const verifier = verifierWith({ jwksUrl: `http://127.0.0.1:${await deadPort()}/.well-known/jwks.json` });
    const error = await rejection(verifier, await keyToken(rsa1, { sub: 'acme' }));
    expect(error).toMatchObject({ statusCode: 503, code: 'AUTH_UNAVAILABLE' });
    expect(error.message).not.toMatch(/127\.0\.0\.1/);
    expect(warnings).toHaveLength(1);
  });

  it('answers 503 AUTH_UNAVAILABLE when the JWKS server fails', async () => {
    jwks.status = 500;
    expect(await rejection(verifierWith(), await keyToken(rsa1, { sub: 'acme' }))).toMatchObject({
      statusCode: 503,
      code: 'AUTH_UNAVAILABLE',
    });
  });

  it('keeps verifying known keys from its cache while the JWKS server fails', async () => {
    const verifier = verifierWith();
    await expect(verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'acme' })}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
    jwks.status = 500;
    await expect(verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'acme' })}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
  });
});

describe('TokenVerifier with an HS256 secret', () => {
  it('still accepts HS256 tokens when only the secret is given', async () => {
    const verifier = new TokenVerifier(SECRET);
    await expect(verifier.verify(`Bearer ${await secretToken({ sub: 'acme' })}`)).resolves.toEqual({
      tenantId: 'acme',
      subject: 'acme',
      role: 'member',
    });
    expect(await rejection(verifier, await keyToken(rsa1, { sub: 'acme' }))).toMatchObject({
      statusCode: 401,
      code: 'INVALID_TOKEN',
    });
  });

  it('accepts HS256 and RS256 tokens side by side when both are configured', async () => {
    const verifier = verifierWith();
    await expect(verifier.verify(`Bearer ${await secretToken({ sub: 'acme' })}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
    await expect(verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'globex' })}`)).resolves.toMatchObject({
      tenantId: 'globex',
    });
    expect(
      await rejection(verifier, await secretToken({ sub: 'acme' }, { secret: 'another-secret-another-secret-123456' })),
    ).toMatchObject({ code: 'INVALID_TOKEN' });
    expect(await rejection(verifier, await secretToken({ sub: 'acme' }, { audience: 'billing-api' }))).toMatchObject({
      code: 'INVALID_AUDIENCE',
    });
  });

  it('rejects an HS256 token signed with the RSA public key (algorithm confusion)', async () => {
    const pem = await exportSPKI(rsa1.publicKey);
    for (const keyBytes of [pem, JSON.stringify(rsa1.jwk)]) {
      const confused = await secretToken({ sub: 'acme' }, { secret: new TextEncoder().encode(keyBytes) });
      expect(await rejection(verifierWith(), confused)).toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
      const keySetOnly = verifierWith({ secret: undefined });
      const error = await rejection(keySetOnly, confused);
      expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
      expect(error.message).toMatch(/algorithm is not accepted/);
    }
  });

  it('rejects alg "none"', async () => {
    const unsigned = new UnsecuredJWT({ sub: 'acme' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .encode();
    for (const verifier of [verifierWith(), new TokenVerifier(SECRET), verifierWith({ secret: undefined })]) {
      const error = await rejection(verifier, unsigned);
      expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('refuses a token it accepted before once the token expires (verified tokens are remembered only until exp)', async () => {
    const verifier = new TokenVerifier({ secret: SECRET, clockToleranceSeconds: 0 });
    const exp = Math.floor(Date.now() / 1000) + 1;
    const token = await new SignJWT({ sub: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifier.verify(`Bearer ${token}`)).resolves.toMatchObject({ tenantId: 'acme' });
    await expect(verifier.verify(`Bearer ${token}`)).resolves.toMatchObject({ tenantId: 'acme' });
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    expect(await rejection(verifier, token)).toMatchObject({ statusCode: 401, code: 'TOKEN_EXPIRED' });
  });

  it('rejects a missing or malformed Authorization header', async () => {
    const verifier = verifierWith();
    await expect(verifier.verify(undefined)).rejects.toMatchObject({ statusCode: 401, code: 'MISSING_TOKEN' });
    await expect(verifier.verify('Basic abc')).rejects.toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
    await expect(verifier.verify('Bearer not-a-jwt')).rejects.toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
  });
});

describe('the tenant role', () => {
  it('is the highest tenant role the roles claim names, else the default (member, or as configured)', async () => {
    const verifier = new TokenVerifier(SECRET);
    await expect(
      verifier.verify(
        `Bearer ${await secretToken({ sub: 'acme', roles: ['platform-operator', 'developer', 'viewer'] })}`,
      ),
    ).resolves.toMatchObject({ role: 'developer', roles: ['platform-operator', 'developer', 'viewer'] });
    await expect(
      verifier.verify(`Bearer ${await secretToken({ sub: 'acme', roles: ['ops'] })}`),
    ).resolves.toMatchObject({
      role: 'member',
    });
    const readOnly = new TokenVerifier({ secret: SECRET, defaultRole: 'viewer' });
    await expect(readOnly.verify(`Bearer ${await secretToken({ sub: 'acme' })}`)).resolves.toMatchObject({
      role: 'viewer',
    });
    await expect(
      readOnly.verify(`Bearer ${await secretToken({ sub: 'acme', roles: ['admin'] })}`),
    ).resolves.toMatchObject({
      role: 'admin',
    });
  });
});

describe('the tier claim', () => {
  it('is parsed into the principal', async () => {
    const verifier = verifierWith();
    await expect(
      verifier.verify(`Bearer ${await keyToken(rsa1, { sub: 'acme', tier: 'gold_2024-eu' })}`),
    ).resolves.toEqual({ tenantId: 'acme', subject: 'acme', tier: 'gold_2024-eu', role: 'member' });
    await expect(verifier.verify(`Bearer ${await secretToken({ sub: 'acme', tier: 'free' })}`)).resolves.toMatchObject({
      tier: 'free',
    });
  });

  it.each([['gold tier'], ['x'.repeat(33)], [''], ['gold.eu'], [42], [['gold']]])(
    'rejects tier %j with 401',
    async (tier) => {
      const error = await rejection(verifierWith(), await keyToken(rsa1, { sub: 'acme', tier }));
      expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
      expect(error.message).toMatch(/"tier"/);
    },
  );

  it('keeps the tenant rule: an invalid tenant is rejected', async () => {
    expect(await rejection(verifierWith(), await keyToken(rsa1, { sub: 'acme', tenant: 'no spaces' }))).toMatchObject({
      statusCode: 401,
      code: 'INVALID_TOKEN',
    });
  });
});

describe('token lifetime (issue 34, item 7)', () => {
  const now = (): number => Math.floor(Date.now() / 1000);
  /** An HS256 token with exactly these registered claims (no defaults filled in). */
  const rawToken = (claims: Record<string, unknown>): Promise<string> =>
    new SignJWT({ sub: 'acme', ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

  it('refuses a token without "exp" with 401 TOKEN_WITHOUT_EXPIRY', async () => {
    const error = await rejection(new TokenVerifier(SECRET), await rawToken({ iat: now() }));
    expect(error).toMatchObject({ statusCode: 401, code: 'TOKEN_WITHOUT_EXPIRY' });
    expect(error.message).toMatch(/"exp"/);
  });

  it('refuses exp 1e20 and any lifetime past the maximum with 401 TOKEN_LIFETIME_TOO_LONG, with or without "iat"', async () => {
    const verifier = new TokenVerifier({ secret: SECRET, maxTokenLifetimeSeconds: 3_600 });
    for (const claims of [
      { exp: 1e20 },
      { iat: now(), exp: 1e20 },
      { iat: now(), exp: now() + 3_601 },
      { exp: now() + 3_700 },
      { iat: now() - 7_200, exp: now() + 60 },
    ]) {
      const error = await rejection(verifier, await rawToken(claims));
      expect(error, JSON.stringify(claims)).toMatchObject({ statusCode: 401, code: 'TOKEN_LIFETIME_TOO_LONG' });
      expect(error.message).toMatch(/at most 1 h/);
    }
    await expect(
      verifier.verify(`Bearer ${await rawToken({ iat: now(), exp: now() + 3_600 })}`),
    ).resolves.toMatchObject({ tenantId: 'acme' });
    await expect(verifier.verify(`Bearer ${await rawToken({ exp: now() + 3_500 })}`)).resolves.toMatchObject({
      tenantId: 'acme',
    });
  });

  it('defaults to 24 hours', async () => {
    const verifier = new TokenVerifier(SECRET);
    await expect(
      verifier.verify(`Bearer ${await rawToken({ iat: now(), exp: now() + 24 * 3_600 })}`),
    ).resolves.toMatchObject({ tenantId: 'acme' });
    expect(await rejection(verifier, await rawToken({ iat: now(), exp: now() + 24 * 3_600 + 1 }))).toMatchObject({
      code: 'TOKEN_LIFETIME_TOO_LONG',
    });
  });

  it('refuses an "iat" in the future beyond the clock tolerance with 401 TOKEN_ISSUED_IN_FUTURE', async () => {
    const verifier = new TokenVerifier({ secret: SECRET, clockToleranceSeconds: 30 });
    const yearAhead = now() + 365 * 86_400;
    for (const claims of [
      { iat: yearAhead, exp: yearAhead + 60 },
      { iat: now() + 120, exp: now() + 600 },
    ]) {
      const error = await rejection(verifier, await rawToken(claims));
      expect(error).toMatchObject({ statusCode: 401, code: 'TOKEN_ISSUED_IN_FUTURE' });
      expect(error.message).toMatch(/"iat".*in the future.*30 s/);
    }
    await expect(
      verifier.verify(`Bearer ${await rawToken({ iat: now() + 20, exp: now() + 600 })}`),
    ).resolves.toMatchObject({ tenantId: 'acme' });
  });

  it('refuses a non-numeric "exp" or "iat"', async () => {
    for (const claims of [{ exp: 'never' }, { iat: 'now', exp: now() + 60 }]) {
      expect(await rejection(new TokenVerifier(SECRET), await rawToken(claims))).toMatchObject({
        statusCode: 401,
        code: 'INVALID_TOKEN',
      });
    }
  });

  it('reads AUTH_MAX_TOKEN_LIFETIME as seconds or a duration, default 24h, and refuses anything else', () => {
    expect(loadConfig(ApiConfig, { AUTH_JWT_SECRET: SECRET }).AUTH_MAX_TOKEN_LIFETIME).toBe(86_400);
    expect(
      loadConfig(ApiConfig, { AUTH_JWT_SECRET: SECRET, AUTH_MAX_TOKEN_LIFETIME: '900' }).AUTH_MAX_TOKEN_LIFETIME,
    ).toBe(900);
    expect(
      loadConfig(ApiConfig, { AUTH_JWT_SECRET: SECRET, AUTH_MAX_TOKEN_LIFETIME: '2d' }).AUTH_MAX_TOKEN_LIFETIME,
    ).toBe(172_800);
    for (const bad of ['0', '-5', '1w', 'forever', '1.5h'])
      expect(() => loadConfig(ApiConfig, { AUTH_JWT_SECRET: SECRET, AUTH_MAX_TOKEN_LIFETIME: bad })).toThrow(
        'AUTH_MAX_TOKEN_LIFETIME',
      );
  });
});

describe('the tenant claim (issue 34, item 8)', () => {
  it.each([[123], [true], [['tenant-a']], [{ id: 'tenant-a' }], [null], ['']])(
    'refuses tenant %j even when "sub" is a valid tenant',
    async (tenant) => {
      const error = await rejection(verifierWith(), await secretToken({ sub: 'tenant-a', tenant }));
      expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_TOKEN' });
      expect(error.message).toMatch(/"tenant" claim/);
    },
  );

  it('still takes "sub" when there is no tenant claim', async () => {
    await expect(verifierWith().verify(`Bearer ${await secretToken({ sub: 'tenant-a' })}`)).resolves.toMatchObject({
      tenantId: 'tenant-a',
    });
  });
});

describe('over HTTP', () => {
  const logger = createLogger({ service: 'api-auth-test', level: 'silent' });
  const orchestrator = {
    listTools: async () => ({ tools: [] }),
  } as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  const memory = {} as unknown as PromiseClient<memoryV1.MemoryServiceClient>;

  async function getTools(verifier: TokenVerifier, token: string): Promise<{ status: number; body: unknown }> {
    const app = buildApp({
      checkReplies: true,
      logger,
      verifier,
      maxBodyBytes: 10_000,
      orchestrator,
      memory,
      events: noEvents,
      agentPool: noAgentPool,
      agents: noAgents,
      conversations: noConversations,
      trigger: noTrigger,
      limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
      health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
    });
    try {
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      const response = await fetch(`${address}/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: await response.json() };
    } finally {
      await app.close();
    }
  }

  it('serves a request with an RS256 token', async () => {
    expect(await getTools(verifierWith(), await keyToken(rsa1, { sub: 'acme' }))).toMatchObject({ status: 200 });
  });

  it('answers 503 AUTH_UNAVAILABLE when the key set cannot be fetched', async () => {
    const verifier = verifierWith({ jwksUrl: `http://127.0.0.1:${await deadPort()}/jwks.json` });
    expect(await getTools(verifier, await keyToken(rsa1, { sub: 'acme' }))).toEqual({
      status: 503,
      body: { error: { code: 'AUTH_UNAVAILABLE', message: expect.any(String) } },
    });
  });

  it('answers 401 in the envelope for a token that never expires, one issued a year ahead, and a wrong-typed tenant', async () => {
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>): Promise<string> =>
      new SignJWT({ sub: 'tenant-a', ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(SECRET));
    const cases: [Record<string, unknown>, string][] = [
      [{ iat: now }, 'TOKEN_WITHOUT_EXPIRY'],
      [{ iat: now, exp: 1e20 }, 'TOKEN_LIFETIME_TOO_LONG'],
      [{ iat: now + 365 * 86_400, exp: now + 365 * 86_400 + 60 }, 'TOKEN_ISSUED_IN_FUTURE'],
      [{ tenant: 123, iat: now, exp: now + 60 }, 'INVALID_TOKEN'],
    ];
    for (const [claims, code] of cases) {
      expect(await getTools(new TokenVerifier(SECRET), await sign(claims)), code).toEqual({
        status: 401,
        body: { error: { code, message: expect.any(String) } },
      });
    }
    expect(await getTools(new TokenVerifier(SECRET), await sign({ iat: now, exp: now + 60 }))).toMatchObject({
      status: 200,
    });
  });

  it('answers 401 INVALID_AUDIENCE for a token meant for another service', async () => {
    expect(await getTools(verifierWith(), await keyToken(rsa1, { sub: 'acme' }, { audience: 'billing-api' }))).toEqual({
      status: 401,
      body: { error: { code: 'INVALID_AUDIENCE', message: expect.any(String) } },
    });
  });
});

describe('ApiConfig authentication settings', () => {
  it('fails without AUTH_JWT_SECRET and AUTH_JWKS_URL, naming both', () => {
    let error: unknown;
    try {
      loadConfig(ApiConfig, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/AUTH_JWT_SECRET/);
    expect((error as ConfigError).message).toMatch(/AUTH_JWKS_URL/);
  });

  it('accepts a JWKS URL alone, with issuer, audience list and default clock tolerance', () => {
    const config = loadConfig(ApiConfig, {
      AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: 'platform-api, other-api',
    });
    expect(config).toMatchObject({
      AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: ['platform-api', 'other-api'],
      AUTH_CLOCK_TOLERANCE_SECONDS: 5,
    });
    expect(config.AUTH_JWT_SECRET).toBeUndefined();
  });

  it('accepts a secret alone, and both together', () => {
    expect(loadConfig(ApiConfig, { AUTH_JWT_SECRET: SECRET }).AUTH_JWT_SECRET).toBe(SECRET);
    expect(
      loadConfig(ApiConfig, {
        AUTH_JWT_SECRET: SECRET,
        AUTH_JWKS_URL: 'https://id.example.com/jwks',
        AUTH_CLOCK_TOLERANCE_SECONDS: '0',
      }),
    ).toMatchObject({ AUTH_CLOCK_TOLERANCE_SECONDS: 0 });
  });

  it.each([
    [{ AUTH_JWT_SECRET: 'short' }, 'AUTH_JWT_SECRET'],
    [{ AUTH_JWKS_URL: 'not a url' }, 'AUTH_JWKS_URL'],
    [{ AUTH_JWKS_URL: 'ftp://id.example.com/jwks' }, 'AUTH_JWKS_URL'],
    [{ AUTH_JWT_SECRET: SECRET, AUTH_AUDIENCE: ' , ' }, 'AUTH_AUDIENCE'],
    [{ AUTH_JWT_SECRET: SECRET, AUTH_CLOCK_TOLERANCE_SECONDS: '-1' }, 'AUTH_CLOCK_TOLERANCE_SECONDS'],
  ])('rejects %j, naming %s', (environment, variable) => {
    expect(() => loadConfig(ApiConfig, environment)).toThrow(variable);
  });
});
