import { randomBytes } from 'node:crypto';
import { credentialV1 } from '@platform/proto';
import { createGrpcClient, createLogger, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import { callerRoutedClient, sharedServicePki, testCertificates } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { CredentialGrantIssuer, type GrantScope } from '@platform/tool-sdk';
import { Metadata } from '@grpc/grpc-js';
import { exportJWK, generateKeyPair } from 'jose';
import { CredentialConfig } from '../config.js';
import { CREDENTIAL_CALLERS } from '../grpc-callers.js';
import { startCredentialServer, type CredentialServer } from '../server.js';

export const testLogger = createLogger({ service: 'credential-test', level: 'silent' });

/** A keyring JSON with fresh random keys; the first id is active unless `active` says otherwise. */
export function keyringJson(ids: string[], active = ids[0]!, keys: Record<string, string> = {}): string {
  const all = Object.fromEntries(ids.map((id) => [id, keys[id] ?? randomBytes(32).toString('base64')]));
  return JSON.stringify({ active, keys: all });
}

/** A grant-signing key pair: the issuer (orchestrator side) and the JWKS of its public half. */
export async function grantKeys(kid = 'g1'): Promise<{ issuer: CredentialGrantIssuer; jwks: string }> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA' };
  const issuer = await CredentialGrantIssuer.fromJwk({ ...(await exportJWK(privateKey)), kid, alg: 'EdDSA' });
  return { issuer, jwks: JSON.stringify({ keys: [publicJwk] }) };
}

export const PLATFORM_TOKEN = 'test-platform-token-0123456789abcdef0123456789';

/** Metadata a platform caller (the api) sends. */
export function platformMetadata(token = PLATFORM_TOKEN): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

export interface CredentialFixture {
  url: string;
  keyring: string;
  issuer: CredentialGrantIssuer;
  jwks: string;
  server: CredentialServer;
  client: GrpcClientHandle<credentialV1.CredentialServiceClient>;
  grant(scope: Partial<GrantScope>): Promise<string>;
  restart(env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export async function configFor(
  url: string,
  keyring: string,
  jwks: string,
  extra: Record<string, string> = {},
): Promise<CredentialConfig> {
  return CredentialConfig.parse({
    ...(await (await sharedServicePki()).env('credential')),
    DATABASE_URL: url,
    GRPC_PORT: '0',
    CREDENTIAL_KEYRING: keyring,
    CREDENTIAL_GRANT_PUBLIC_KEYS: jwks,
    CREDENTIAL_PLATFORM_TOKENS: PLATFORM_TOKEN,
    CREDENTIAL_REWRAP_INTERVAL_MS: '0',
    ...extra,
  });
}

/** The mutual-TLS transport a test runner (`runner/test`) reads credentials with. */
export async function testRunnerTransport(): Promise<MutualTlsTransport> {
  return new MutualTlsTransport(await testCertificates('runner/test'));
}

/**
 * A client of a credential server on `port` that calls each method as a service allowed to: the
 * api manages records with its platform token, a runner reads with a grant, the orchestrator
 * resolves model connections.
 */
export async function credentialTestClient(
  port: number,
): Promise<GrpcClientHandle<credentialV1.CredentialServiceClient>> {
  const as = async (identity: string) =>
    [
      identity,
      createGrpcClient(
        credentialV1.CredentialServiceClient,
        credentialV1.CredentialServiceService,
        `127.0.0.1:${port}`,
        {
          defaultDeadlineMs: 5_000,
          transport: new MutualTlsTransport(await testCertificates(identity)),
          server: 'credential',
        },
      ),
    ] as const;
  return callerRoutedClient(CREDENTIAL_CALLERS, [await as('api'), await as('runner/test'), await as('orchestrator')]);
}

/** A credential service on its own database, a client for it, and a grant issuer it trusts. */
export async function startCredentialFixture(
  label: string,
  env: Record<string, string> = {},
): Promise<CredentialFixture> {
  const url = await createSuiteDatabase(label);
  const { issuer, jwks } = await grantKeys();
  const fixture: CredentialFixture = {
    url,
    keyring: env.CREDENTIAL_KEYRING ?? keyringJson(['k1']),
    issuer,
    jwks,
    server: undefined as unknown as CredentialServer,
    client: undefined as unknown as GrpcClientHandle<credentialV1.CredentialServiceClient>,
    grant: (scope) =>
      issuer.issue({
        tenantId: 'acme',
        runId: 'run-1',
        callId: 'call-1',
        tool: 'send_email',
        services: ['google'],
        ttlSeconds: 60,
        ...scope,
      }),
    async restart(next = {}) {
      fixture.client?.close();
      await fixture.server?.stop();
      if (next.CREDENTIAL_KEYRING) fixture.keyring = next.CREDENTIAL_KEYRING;
      fixture.server = await startCredentialServer(
        await configFor(url, fixture.keyring, jwks, { ...env, ...next }),
        testLogger,
      );
      fixture.client = await credentialTestClient(fixture.server.port);
    },
    async stop() {
      fixture.client?.close();
      await fixture.server?.stop();
    },
  };
  await fixture.restart();
  return fixture;
}
